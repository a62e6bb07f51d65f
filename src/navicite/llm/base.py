"""The LLM seam: one protocol for every chat backend (embedded llama.cpp, OpenAI-compatible).

Stages talk only to :class:`LLM`. ``complete_json`` returns a validated pydantic
object or raises :class:`LLMOutputError`, which stages catch to fall back.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import ParamSpec, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from navicite.errors import NaviciteError
from navicite.messages import Message


class LLMError(NaviciteError):
    """Base of LLM failures."""


class LLMUnavailableError(LLMError):
    """The backend cannot be reached or loaded (server down, model missing); names the setting to change."""


class LLMInputError(LLMError):
    """The request itself is invalid: empty messages, a prompt longer than the context."""

    exit_code = 2


class LLMOutputError(LLMError):
    """The model's answer could not be turned into the requested structure, even after a repair attempt."""


@dataclass(frozen=True)
class CallOptions:
    """Per-call options; ``None`` means the setting's default."""

    temperature: float | None = None
    max_tokens: int | None = None
    stop: tuple[str, ...] = ()
    stage: str = "unknown"
    use_cache: bool = True
    #: Ask the backend for this many most likely alternatives of each reply token (0: none).
    #: Backends that cannot give them reply as usual, with no alternatives.
    alternatives: int = 0


@dataclass
class Usage:
    """Cost of one call, recorded by the backend for accounting and traces."""

    stage: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: Prompt tokens served from the backend's prompt cache (a shared prefix with an earlier call).
    cached_tokens: int = 0
    seconds: float = 0.0
    cache_hit: bool = False
    #: Time the backend spent reading the prompt and writing the reply, where it reports them
    #: (llama.cpp does); ``None`` otherwise. ``navicite llm check`` turns them into tokens/s.
    prompt_ms: float | None = None
    generation_ms: float | None = None


# Open usage scopes of the current context. Per-answer accounting must not read the shared log by
# position: concurrent requests on one engine (the server) interleave their calls there.
_SCOPES: contextvars.ContextVar[tuple[list[Usage], ...]] = contextvars.ContextVar("navicite_usage_scopes", default=())


@dataclass
class UsageLog:
    """Every call's usage, with per-stage totals. Safe to share between threads."""

    calls: list[Usage] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def record(self, usage: Usage) -> None:
        """Append one call's usage (and hand it to every :func:`usage_scope` open in this context)."""
        with self._lock:
            self.calls.append(usage)
            for scope in _SCOPES.get():
                scope.append(usage)

    def totals(self) -> dict[str, dict[str, float]]:
        """Per stage: calls, cache hits, prompt (and prompt-cached) and completion tokens, seconds."""
        out: dict[str, dict[str, float]] = {}
        with self._lock:
            calls = list(self.calls)
        for u in calls:
            t = out.setdefault(u.stage, {"calls": 0, "cache_hits": 0, "prompt_tokens": 0, "cached_tokens": 0,
                                         "completion_tokens": 0, "seconds": 0.0})
            t["calls"] += 1
            t["cache_hits"] += int(u.cache_hit)
            t["prompt_tokens"] += u.prompt_tokens
            t["cached_tokens"] += u.cached_tokens
            t["completion_tokens"] += u.completion_tokens
            t["seconds"] += u.seconds
        return out


@contextmanager
def usage_scope() -> Iterator[list[Usage]]:
    """Collect the usage of the calls made inside the block by this thread or task.

    Work started with ``asyncio.to_thread`` inherits the scope; for other thread pools,
    wrap the submitted function with :func:`carry_context`. Scopes nest.
    """
    calls: list[Usage] = []
    _SCOPES.set((*_SCOPES.get(), calls))
    try:
        yield calls
    finally:
        # Removed by identity rather than with a reset token: a generator holding the scope may be
        # resumed in another context, where a token from this one would be refused.
        _SCOPES.set(tuple(s for s in _SCOPES.get() if s is not calls))


P = ParamSpec("P")
R = TypeVar("R")


def carry_context(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` bound to the caller's current context, for thread pools that do not copy it."""
    context = contextvars.copy_context()

    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        # A context cannot be entered by two threads at once: each call gets its own copy.
        return context.copy().run(fn, *args, **kwargs)

    return run


T = TypeVar("T", bound=BaseModel)


@runtime_checkable
class LLM(Protocol):
    """A chat model. Implementations are safe to share between threads."""

    name: str
    usage: UsageLog

    def complete(self, messages: list[Message], options: CallOptions | None = None) -> str:
        """Text reply."""
        ...

    def count_tokens(self, messages: list[Message]) -> int:
        """Prompt tokens of ``messages`` (exact where the backend has the tokenizer, else an estimate)."""
        ...

    def complete_json(self, messages: list[Message], schema: type[T], options: CallOptions | None = None) -> T:
        """Reply parsed and validated as ``schema`` (schema-constrained where the backend can)."""
        ...

    def complete_json_scored(
        self, messages: list[Message], schema: type[T], options: CallOptions | None = None
    ) -> tuple[T, tuple[tuple[str, dict[str, float]], ...]]:
        """:meth:`complete_json`, and each reply token with up to ``options.alternatives`` likely
        alternatives and their log-probabilities (empty where the backend gives none)."""
        ...

    def stream(self, messages: list[Message], options: CallOptions | None = None) -> Iterator[str]:
        """Text reply, piece by piece."""
        ...
