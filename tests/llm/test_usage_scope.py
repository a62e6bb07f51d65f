"""Per-request accounting: usage scopes see only their own context's calls."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

from navicite.llm.base import CallOptions, Message, carry_context, usage_scope
from navicite.llm.scripted import ScriptedLLM


def _ask(llm: ScriptedLLM, stage: str) -> None:
    llm.complete([Message("user", f"question for {stage}")], CallOptions(stage=stage))


def test_scope_collects_only_calls_made_inside_it() -> None:
    llm = ScriptedLLM(default="ok")
    _ask(llm, "before")
    with usage_scope() as calls:
        _ask(llm, "inside")
        with usage_scope() as inner:
            _ask(llm, "nested")
    _ask(llm, "after")
    assert [u.stage for u in calls] == ["inside", "nested"]
    assert [u.stage for u in inner] == ["nested"]
    assert len(llm.usage.calls) == 4


def test_concurrent_threads_do_not_count_each_other() -> None:
    llm = ScriptedLLM(default="ok")
    barrier = threading.Barrier(2)
    seen: dict[str, list[str]] = {}

    def request(name: str) -> None:
        with usage_scope() as calls:
            for _ in range(3):
                barrier.wait()  # interleave the two requests' calls in the shared log
                _ask(llm, name)
        seen[name] = [u.stage for u in calls]

    threads = [threading.Thread(target=request, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {"a": ["a"] * 3, "b": ["b"] * 3}
    assert len(llm.usage.calls) == 6


def test_thread_pools_need_carry_context_and_to_thread_inherits() -> None:
    llm = ScriptedLLM(default="ok")
    with usage_scope() as calls:
        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(carry_context(lambda s: _ask(llm, s)), ["p1", "p2"]))
            pool.submit(_ask, llm, "lost").result()  # a bare pool thread has a fresh context

        async def main() -> None:
            await asyncio.to_thread(_ask, llm, "async")

        asyncio.run(main())
    assert sorted(u.stage for u in calls) == ["async", "p1", "p2"]
