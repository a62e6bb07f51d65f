"""The one stage recorder: seconds, a summary and the LLM calls of each named stage.

MPR, navigation, CiteG, the engine and the evaluation methods all time their steps with a
:class:`StageRecorder`::

    recorder = StageRecorder()
    with recorder.stage("draft", sources=3) as out:
        draft = drafter.run(...)
        out.update(words=len(draft.split()))
    recorder.stages   # [StageTrace("draft", 1.2, {"sources": 3}, {"words": 42}, calls=[Usage...])]
    recorder.usage()  # calls and tokens in all and per model-call stage (Answer.llm)

A stage's LLM calls are collected with :func:`~navicite.llm.base.usage_scope`, so only the
calls made by this thread or task (or work it hands on with ``carry_context``) count, not
those of other requests sharing the model. Stages may nest across recorders: a retrieval
run recording its own steps inside the engine's ``retrieve`` stage counts its calls in both.
A recorder is used by one answer (one thread) at a time. A generator whose stage spans a
``yield`` (the draft, streamed) is stepped through :func:`in_one_context`, so that the stage's
calls count however its consumer steps it.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

from navicite.llm.base import Usage, UsageLog, usage_scope


@dataclass
class StageTrace:
    """What one stage did: its timing, a short summary of inputs and outputs, and its model calls."""

    name: str
    seconds: float
    inputs: dict[str, Any] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    #: The LLM calls made inside the stage (their totals are in :meth:`StageRecorder.usage`).
    calls: list[Usage] = field(default_factory=list, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """``name``, ``seconds``, ``inputs``, ``outputs`` (the calls are summed in the answer's ``llm``)."""
        data = asdict(self)
        del data["calls"]
        return data


@dataclass
class StageRecorder:
    """The stages of one run, in the order they finished."""

    stages: list[StageTrace] = field(default_factory=list)

    @contextmanager
    def stage(self, name: str, **inputs: Any) -> Iterator[dict[str, Any]]:
        """Time the block as stage ``name`` with summary ``inputs``; the block fills the yielded outputs."""
        outputs: dict[str, Any] = {}
        start = time.perf_counter()
        with usage_scope() as calls:
            try:
                yield outputs
            finally:
                self.stages.append(StageTrace(name, round(time.perf_counter() - start, 4), inputs, outputs, list(calls)))

    def add(self, name: str, seconds: float, **inputs: Any) -> StageTrace:
        """Record a stage timed elsewhere (a share of a batch run for many questions, say)."""
        trace = StageTrace(name, seconds, inputs)
        self.stages.append(trace)
        return trace

    @property
    def last(self) -> StageTrace:
        """The stage that finished last."""
        return self.stages[-1]

    @property
    def calls(self) -> list[Usage]:
        """Every stage's model calls, in stage order."""
        return [u for s in self.stages for u in s.calls]

    def seconds(self) -> dict[str, float]:
        """Seconds per stage name (a name recorded more than once, as a step of each round, is summed)."""
        out: dict[str, float] = {}
        for s in self.stages:
            out[s.name] = out.get(s.name, 0.0) + s.seconds
        return out

    def usage(self) -> dict[str, Any]:
        """Calls and tokens in all, and per model-call stage (``analyze``, ``draft``, ...), of every stage."""
        return usage_summary(self.calls)


def usage_summary(calls: list[Usage]) -> dict[str, Any]:
    """Calls, tokens and seconds, in all and per stage, of ``calls``."""
    return {
        "calls": len(calls),
        "prompt_tokens": sum(u.prompt_tokens for u in calls),
        "completion_tokens": sum(u.completion_tokens for u in calls),
        "cached_tokens": sum(u.cached_tokens for u in calls),
        "stages": UsageLog(calls=list(calls)).totals(),
    }


T = TypeVar("T")


def in_one_context(steps: Iterator[T]) -> Iterator[T]:
    """The items of ``steps``, each step run in one copy of the context of the first.

    A stage's usage scope is a context variable: opened in one step of a generator, it must still
    be there in the next, or the calls made there are not counted. A consumer that runs each step
    in a fresh context (``anyio.to_thread.run_sync``, a new worker thread per step) would lose
    them; with every step in one context it cannot.
    """
    context = contextvars.copy_context()
    try:
        while True:
            try:
                item = context.run(next, steps)
            except StopIteration:
                return
            yield item
    finally:
        close = getattr(steps, "close", None)
        if close is not None:
            context.run(close)
