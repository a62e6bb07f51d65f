"""The stage recorder: seconds, summaries and the model calls of each stage."""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Iterator

import pytest

from navicite.llm.base import CallOptions, Message
from navicite.llm.scripted import ScriptedLLM
from navicite.stages import StageRecorder, StageTrace, in_one_context, usage_summary

ASK = [Message("user", "Say yes.")]


def ask(llm: ScriptedLLM, stage: str) -> str:
    return llm.complete(ASK, CallOptions(stage=stage))


def test_a_stage_records_its_seconds_summary_and_only_its_own_calls() -> None:
    llm = ScriptedLLM(default="yes")
    recorder = StageRecorder()
    ask(llm, "before")  # outside every stage: not recorded
    with recorder.stage("draft", sources=2) as out:
        ask(llm, "draft")
        ask(llm, "draft")
        time.sleep(0.01)
        out.update(words=1)
    with recorder.stage("align"):
        ask(llm, "align")
    draft, align = recorder.stages
    assert (draft.name, draft.inputs, draft.outputs) == ("draft", {"sources": 2}, {"words": 1})
    assert draft.seconds >= 0.01 and [u.stage for u in draft.calls] == ["draft", "draft"]
    assert [u.stage for u in align.calls] == ["align"]
    usage = recorder.usage()
    assert usage["calls"] == 3 and set(usage["stages"]) == {"draft", "align"}
    assert usage["stages"]["draft"]["calls"] == 2
    assert usage["prompt_tokens"] == sum(u.prompt_tokens for u in recorder.calls) > 0
    assert usage == usage_summary(recorder.calls)


def test_the_outward_shape_of_a_stage_is_name_seconds_inputs_outputs() -> None:
    recorder = StageRecorder()
    with recorder.stage("cite", mode="x") as out:
        ask(ScriptedLLM(default="yes"), "cite")
        out["citations"] = 1
    assert recorder.last.to_dict() == {"name": "cite", "seconds": recorder.last.seconds,
                                       "inputs": {"mode": "x"}, "outputs": {"citations": 1}}
    assert StageTrace("draft", 1.25).to_dict() == {"name": "draft", "seconds": 1.25, "inputs": {}, "outputs": {}}


def test_a_failing_stage_is_still_recorded() -> None:
    recorder = StageRecorder()
    with pytest.raises(ValueError), recorder.stage("verify"):
        ask(ScriptedLLM(default="yes"), "verify")
        raise ValueError("boom")
    assert recorder.last.name == "verify" and len(recorder.last.calls) == 1


def test_nested_recorders_both_count_the_inner_calls() -> None:
    llm = ScriptedLLM(default="yes")
    outer, inner = StageRecorder(), StageRecorder()
    with outer.stage("retrieve"):
        with inner.stage("analyze"):
            ask(llm, "analyze")
        with inner.stage("gap"):
            ask(llm, "gap")
        with inner.stage("gap"):
            ask(llm, "gap")
    assert [s.name for s in outer.stages] == ["retrieve"]
    assert outer.usage()["stages"] == inner.usage()["stages"]
    assert outer.usage()["stages"]["gap"]["calls"] == 2
    assert set(inner.seconds()) == {"analyze", "gap"}  # the two gap stages are summed
    assert inner.seconds()["gap"] == pytest.approx(sum(s.seconds for s in inner.stages if s.name == "gap"))


def test_calls_of_another_thread_are_not_counted() -> None:
    llm = ScriptedLLM(default="yes")
    recorder = StageRecorder()
    with recorder.stage("draft"):
        other = threading.Thread(target=ask, args=(llm, "elsewhere"))
        other.start()
        other.join()
        ask(llm, "draft")
    assert [u.stage for u in recorder.calls] == ["draft"]


def test_a_stage_timed_elsewhere() -> None:
    recorder = StageRecorder()
    recorder.add("embed", 0.5)
    assert recorder.seconds() == {"embed": 0.5} and recorder.last.calls == []
    assert recorder.usage() == {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0, "stages": {}}


def _streamed(llm: ScriptedLLM, recorder: StageRecorder) -> Iterator[str]:
    with recorder.stage("draft"):
        yield "first"
        ask(llm, "draft")  # made in a later step than the one that opened the stage
        yield "second"


def test_a_stage_spanning_steps_counts_its_calls_when_each_step_runs_in_a_fresh_context() -> None:
    llm = ScriptedLLM(default="yes")
    for wrap, counted in ((lambda g: g, 0), (in_one_context, 1)):
        recorder = StageRecorder()
        steps = wrap(_streamed(llm, recorder))
        # As anyio.to_thread.run_sync steps a generator: a copy of the caller's context per step.
        while contextvars.copy_context().run(next, steps, None) is not None:
            pass
        assert len(recorder.last.calls) == counted


def test_closing_the_stream_early_closes_the_stage() -> None:
    recorder = StageRecorder()
    steps = in_one_context(_streamed(ScriptedLLM(default="yes"), recorder))
    assert next(steps) == "first"
    steps.close()  # type: ignore[attr-defined]
    assert recorder.last.name == "draft"
