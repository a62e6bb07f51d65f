"""The shared LLM machinery (cache, accounting, JSON repair, limits), driven by the scripted stand-in."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from pydantic import BaseModel

from navicite.llm.base import CallOptions, LLMInputError, LLMOutputError, Message
from navicite.llm.cache import AnswerCache
from navicite.llm.scripted import ScriptedLLM

ASK = [Message("user", "Name a colour and a number.")]


class Pick(BaseModel):
    colour: str
    number: int


def test_complete_returns_text_and_records_usage() -> None:
    llm = ScriptedLLM(["blue"])
    assert llm.complete(ASK, CallOptions(stage="draft")) == "blue"
    assert llm.usage.calls[0].stage == "draft"
    assert llm.usage.calls[0].cache_hit is False
    assert llm.usage.calls[0].prompt_tokens > 0
    assert llm.usage.totals()["draft"]["calls"] == 1


@pytest.mark.parametrize("messages", [[], [Message("user", "")], [Message("system", "  "), Message("user", "\n")]])
def test_empty_prompt_is_an_input_error_and_calls_nothing(messages: list[Message]) -> None:
    llm = ScriptedLLM(["never"])
    with pytest.raises(LLMInputError, match="empty prompt"):
        llm.complete(messages)
    assert llm.calls == []


def test_prompt_longer_than_context_is_rejected_before_calling() -> None:
    llm = ScriptedLLM(["never"], context_size=512)
    with pytest.raises(LLMInputError, match="llm.context_size"):
        llm.complete([Message("user", "word " * 2000)])
    assert llm.calls == []


def test_complete_json_validates() -> None:
    llm = ScriptedLLM([{"colour": "red", "number": 7}])
    assert llm.complete_json(ASK, Pick) == Pick(colour="red", number=7)
    assert llm.calls[0].json_schema == Pick.model_json_schema()


def test_complete_json_repairs_once() -> None:
    llm = ScriptedLLM(['{"colour": "red", "number": "seven"}', '```json\n{"colour": "red", "number": 7}\n```'])
    assert llm.complete_json(ASK, Pick, CallOptions(stage="s")) == Pick(colour="red", number=7)
    assert len(llm.calls) == 2
    repair = llm.calls[1]
    assert repair.messages[-2] == Message("assistant", '{"colour": "red", "number": "seven"}')
    assert "number" in repair.messages[-1].content  # the problem is named
    assert '"colour"' in repair.messages[-1].content  # the schema is shown
    assert llm.usage.totals()["s"]["calls"] == 2


def test_complete_json_gives_up_after_one_repair() -> None:
    llm = ScriptedLLM(["not json", "still not json", "unused"])
    with pytest.raises(LLMOutputError, match="Pick.*after one repair"):
        llm.complete_json(ASK, Pick, CallOptions(stage="analyse"))
    assert len(llm.calls) == 2
    assert llm.remaining == 1


def test_cut_off_reply_says_so_in_the_repair_prompt() -> None:
    class Long(BaseModel):
        text: str

    llm = ScriptedLLM(['{"text": "abc'], default='{"text": "abc"}')
    original = llm._generate

    def cut(request):  # type: ignore[no-untyped-def]
        completion = original(request)
        if len(llm.calls) == 1:
            completion.finish_reason = "length"
        return completion

    llm._generate = cut  # type: ignore[method-assign]
    assert llm.complete_json(ASK, Long, CallOptions(max_tokens=5)).text == "abc"
    assert "cut off at 5 tokens" in llm.calls[1].messages[-1].content


def test_cache_answers_repeat_calls_without_the_model(tmp_path: Path) -> None:
    llm = ScriptedLLM(["first answer"], cache=AnswerCache(tmp_path / "llm.sqlite"))
    assert llm.complete(ASK, CallOptions(stage="x")) == "first answer"
    assert llm.complete(ASK, CallOptions(stage="x")) == "first answer"
    assert len(llm.calls) == 1
    assert [u.cache_hit for u in llm.usage.calls] == [False, True]
    assert llm.usage.totals()["x"]["cache_hits"] == 1
    # another instance on the same file (a re-run) needs no model either
    rerun = ScriptedLLM([], cache=AnswerCache(tmp_path / "llm.sqlite"))
    assert rerun.complete(ASK, CallOptions(stage="x")) == "first answer"
    assert rerun.calls == []


def test_cache_key_includes_options(tmp_path: Path) -> None:
    llm = ScriptedLLM(["a", "b", "c"], cache=AnswerCache(tmp_path / "llm.sqlite"))
    assert llm.complete(ASK) == "a"
    assert llm.complete(ASK, CallOptions(max_tokens=9)) == "b"
    assert llm.complete(ASK, CallOptions(temperature=0.7)) == "c"
    assert len(llm.calls) == 3


def test_use_cache_false_bypasses_the_cache(tmp_path: Path) -> None:
    llm = ScriptedLLM(["a", "b"], cache=AnswerCache(tmp_path / "llm.sqlite"))
    assert llm.complete(ASK, CallOptions(use_cache=False)) == "a"
    assert llm.complete(ASK, CallOptions(use_cache=False)) == "b"
    assert not (tmp_path / "llm.sqlite").exists()


def test_invalid_json_is_not_cached_but_the_repaired_answer_is(tmp_path: Path) -> None:
    cache = AnswerCache(tmp_path / "llm.sqlite")
    llm = ScriptedLLM(["oops", {"colour": "red", "number": 1}], cache=cache)
    assert llm.complete_json(ASK, Pick).number == 1
    rerun = ScriptedLLM([], cache=cache)
    assert rerun.complete_json(ASK, Pick).number == 1  # served by the cache, no repair needed
    assert rerun.calls == []


def test_stream_yields_pieces_and_caches_the_whole(tmp_path: Path) -> None:
    llm = ScriptedLLM(["one two three"], cache=AnswerCache(tmp_path / "llm.sqlite"))
    assert "".join(llm.stream(ASK)) == "one two three"
    assert list(llm.stream(ASK)) == ["one two three"]
    assert len(llm.calls) == 1


def test_concurrency_is_bounded() -> None:
    active = 0
    peak = 0
    lock = threading.Lock()

    def slow(messages: list[Message]) -> str:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        time.sleep(0.05)
        with lock:
            active -= 1
        return "ok"

    llm = ScriptedLLM(default=slow, concurrency=2)
    threads = [threading.Thread(target=llm.complete, args=([Message("user", f"q{i}")],)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(llm.calls) == 6
    assert peak == 2


def test_repair_that_no_longer_fits_the_context_is_an_output_error() -> None:
    llm = ScriptedLLM(["garbage " * 600], context_size=700)
    with pytest.raises(LLMOutputError, match="after one repair"):
        llm.complete_json(ASK, Pick)
    assert len(llm.calls) == 1
