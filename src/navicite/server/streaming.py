"""The engine's events, stepped in worker threads, with keep-alives while a stage is quiet.

Every streamed endpoint (``/v1/ask``, the OpenAI and Ollama chat routes) reads the engine's
event generator the same way: each step runs in a worker thread (a step can take a minute of
model time), and while none is ready a ``None`` goes out every ``heartbeat_s`` seconds so the
route can send a keep-alive. Every step runs in one copied context
(:func:`navicite.stages.in_one_context`): a stage's usage scope, opened in one step, must
still be there in the next, or the answer counts only part of its model calls.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import TypeVar

from starlette.concurrency import iterate_in_threadpool

from navicite.stages import in_one_context

#: Seconds between keep-alives while no event is ready.
HEARTBEAT_S = 15.0

T = TypeVar("T")


async def paced(events: Iterator[T], heartbeat_s: float = HEARTBEAT_S) -> AsyncIterator[T | None]:
    """The items of ``events`` (each step in a worker thread), and ``None`` for every quiet ``heartbeat_s``.

    An exception of a step is raised here; a consumer that stops early cancels the pending step.
    """
    steps = iterate_in_threadpool(in_one_context(events))
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
