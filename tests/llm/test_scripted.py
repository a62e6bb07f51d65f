"""The scripted stand-in itself: replay order, answer kinds, recording."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from navicite.llm.base import LLM, LLMUnavailableError, Message
from navicite.llm.scripted import ScriptedLLM


class Item(BaseModel):
    name: str


def test_implements_the_protocol() -> None:
    assert isinstance(ScriptedLLM(), LLM)


def test_replays_in_order_then_default() -> None:
    llm = ScriptedLLM(["a", "b"], default="z")
    assert [llm.complete([Message("user", str(i))]) for i in range(4)] == ["a", "b", "z", "z"]
    assert [c.prompt for c in llm.calls] == ["0", "1", "2", "3"]


def test_running_out_fails_the_test_loudly() -> None:
    llm = ScriptedLLM(["only"])
    llm.complete([Message("user", "q1")])
    with pytest.raises(AssertionError, match="no answer left for call 2"):
        llm.complete([Message("user", "q2")])


def test_answer_kinds() -> None:
    llm = ScriptedLLM(
        [
            Item(name="model"),
            {"name": "dict"},
            lambda messages: {"name": messages[-1].content.upper()},
            LLMUnavailableError("down"),
        ]
    )
    assert llm.complete_json([Message("user", "x")], Item).name == "model"
    assert llm.complete_json([Message("user", "x")], Item).name == "dict"
    assert llm.complete_json([Message("user", "echo")], Item).name == "ECHO"
    with pytest.raises(LLMUnavailableError):
        llm.complete([Message("user", "x")])


def test_add_and_count_tokens() -> None:
    llm = ScriptedLLM()
    llm.add("later")
    assert llm.remaining == 1
    assert llm.count_tokens([Message("user", "some words here")]) > 3
