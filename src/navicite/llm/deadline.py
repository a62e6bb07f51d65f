"""One deadline for a whole answer, however many model calls it makes.

``llm.timeout_s`` bounds each wait for the model server (each read of its reply): a server
that sends one byte every few seconds, or an answer whose calls each wait their full timeout,
would never be stopped by it. :func:`deadline` sets the time by which everything inside the
block must be done; every model call checks it (:func:`check`) and waits at most
:func:`time_left`. Passing it raises :class:`DeadlineExceeded`, which is deliberately not an
:class:`~navicite.llm.base.LLMError`: stages catch those to take a fallback, while a passed
deadline must end the answer as a whole.

The deadline lives in a context variable, like the usage scopes (:mod:`navicite.llm.base`):
work handed to another thread carries it with :func:`navicite.llm.base.carry_context`.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from navicite.errors import NaviciteError


class DeadlineExceeded(NaviciteError):
    """The work ran past its deadline and was stopped; names the setting that sets it."""


@dataclass(frozen=True)
class _Deadline:
    at: float  # time.monotonic()
    seconds: float
    setting: str
    what: str


_DEADLINES: contextvars.ContextVar[tuple[_Deadline, ...]] = contextvars.ContextVar("navicite_deadlines", default=())


@contextmanager
def deadline(seconds: float | None, *, setting: str = "llm.answer_timeout_s", what: str = "the answer") -> Iterator[None]:
    """Everything inside the block must be done within ``seconds`` (``None``: no deadline of its own).

    ``setting`` and ``what`` name the limit in the error. Nested deadlines: the earliest counts.
    """
    if seconds is None:
        yield
        return
    own = _Deadline(time.monotonic() + seconds, seconds, setting, what)
    _DEADLINES.set((*_DEADLINES.get(), own))
    try:
        yield
    finally:
        # Removed by identity: a generator holding the block may be resumed in another context.
        _DEADLINES.set(tuple(d for d in _DEADLINES.get() if d is not own))


def _earliest() -> _Deadline | None:
    return min(_DEADLINES.get(), key=lambda d: d.at, default=None)


def time_left() -> float | None:
    """Seconds until the earliest open deadline (0 when passed), or ``None`` when there is none."""
    earliest = _earliest()
    return None if earliest is None else max(0.0, earliest.at - time.monotonic())


def exceeded(detail: str = "") -> DeadlineExceeded:
    """The error for the earliest deadline having passed (``detail``: what was still being waited for)."""
    earliest = _earliest()
    if earliest is None:  # pragma: no cover - only called when a deadline exists
        return DeadlineExceeded(f"stopped: {detail or 'out of time'}")
    waiting = f": {detail}" if detail else ""
    return DeadlineExceeded(
        f"{earliest.what} was stopped after {earliest.seconds:g} s, its limit ({earliest.setting}){waiting}; "
        f"check that the model is working, or raise {earliest.setting}"
    )


def check(detail: str = "") -> None:
    """Raise :class:`DeadlineExceeded` when the earliest open deadline has passed."""
    left = time_left()
    if left is not None and left <= 0:
        raise exceeded(detail)
