"""The engine's events, stepped in worker threads, with keep-alives while a stage is quiet.

Every streamed endpoint (``/v1/ask``, the OpenAI and Ollama chat routes) reads the engine's
event generator the same way: each step runs in a worker thread (a step can take a minute of
model time), and while none is ready a ``None`` goes out every ``heartbeat_s`` seconds so the
route can send a keep-alive. Every step runs in one copied context: the engine's usage scope,
opened in one step, must still be there in the next, or the answer counts only part of its
model calls.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator, Iterator
from typing import TypeVar

from starlette.concurrency import iterate_in_threadpool

#: Seconds between keep-alives while no event is ready.
HEARTBEAT_S = 15.0

T = TypeVar("T")


class OneContext(Iterator[T]):
    """``events`` with every step run in the context it was created in."""

    def __init__(self, events: Iterator[T]) -> None:
        self._events = events
        self._context = contextvars.copy_context()

    def __next__(self) -> T:
        return self._context.run(next, self._events)


async def paced(events: Iterator[T], heartbeat_s: float = HEARTBEAT_S) -> AsyncIterator[T | None]:
    """The items of ``events`` (each step in a worker thread), and ``None`` for every quiet ``heartbeat_s``.

    An exception of a step is raised here; a consumer that stops early cancels the pending step.
    """
    steps = iterate_in_threadpool(events if isinstance(events, OneContext) else OneContext(events))
    pending: asyncio.Future[T] | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(steps.__anext__())
            done, _ = await asyncio.wait({pending}, timeout=heartbeat_s)
            if not done:
                yield None
                continue
            finished, pending = pending, None
            try:
                yield finished.result()
            except StopAsyncIteration:
                return
    finally:
        if pending is not None:  # the client went away mid-stage
            pending.cancel()
