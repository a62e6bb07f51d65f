"""Stepping the engine's events in worker threads keeps one context and sends keep-alives."""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Iterator

from navicite.llm.base import Usage, UsageLog, usage_scope
from navicite.server.streaming import paced

_SEEN: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="unset")


def _events() -> Iterator[str]:
    _SEEN.set("first step")
    yield "one"
    time.sleep(0.25)  # a quiet stage
    yield _SEEN.get()  # a later step, maybe in another worker thread


def test_every_step_sees_the_context_of_the_first_and_quiet_stages_get_keep_alives() -> None:
    async def collect() -> list[str | None]:
        return [item async for item in paced(_events(), heartbeat_s=0.05)]

    items = asyncio.run(collect())
    assert [i for i in items if i is not None] == ["one", "first step"]
    assert None in items


def test_a_usage_scope_opened_in_one_step_counts_the_calls_of_the_next() -> None:
    log = UsageLog()

    def answer() -> Iterator[int]:
        with usage_scope() as calls:
            log.record(Usage("analyze", prompt_tokens=10))
            yield 0
            log.record(Usage("draft", prompt_tokens=20))
            yield len(calls)

    async def collect() -> list[int | None]:
        return [item async for item in paced(answer(), heartbeat_s=5)]

    assert asyncio.run(collect())[-1] == 2
