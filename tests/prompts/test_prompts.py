"""The prompt registry: every prompt file loads and renders; format mistakes are caught."""

from __future__ import annotations

import pytest

from navicite import prompts
from navicite.llm.base import Message
from navicite.prompts import PromptError, parse


def test_there_are_prompts() -> None:
    assert {"json_repair", "json_instructions", "llm_check"} <= set(prompts.names())


@pytest.mark.parametrize("name", prompts.names())
def test_every_prompt_renders_with_sample_values(name: str) -> None:
    prompt = prompts.load(name)
    values = {key: f"<<{key} sample>>" for key in prompt.placeholders}
    messages = prompt.render(**values)
    assert messages, "a prompt renders to at least one message"
    text = "\n".join(m.content for m in messages)
    for key in prompt.placeholders:
        assert f"<<{key} sample>>" in text
        assert prompt.placeholders[key], f"placeholder {key} of {name} needs a description in the header"
    assert all(m.role in ("system", "user", "assistant") and m.content for m in messages)
    assert "<!--" not in text  # the header never reaches the model


HEADER = "<!--\nPrompt: t - a test.\nPlaceholders:\n  {a}  first value\n  {b}  second value,\n       continued\n-->\n"


def test_render_fills_values_once_and_keeps_other_braces() -> None:
    prompt = parse("t", HEADER + 'Say {a} and {b}. JSON like {"k": {"x": 1}} and a literal {{a}}.')
    assert prompt.placeholders == {"a": "first value", "b": "second value,"}
    [message] = prompt.render(a="{b}", b="B")
    assert message == Message("user", 'Say {b} and B. JSON like {"k": {"x": 1}} and a literal {a}.')


def test_role_markers_split_messages() -> None:
    prompt = parse("t", HEADER + "--- system ---\nBe brief about {a}.\n--- user ---\n{b}\n")
    assert prompt.render(a="x", b="y") == [Message("system", "Be brief about x."), Message("user", "y")]


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("no header {a}", "header"),
        (HEADER + "uses {a} only", r"declared but never used: \['b'\]"),
        (HEADER + "uses {a} {b} {c}", r"used but not declared.*\['c'\]"),
    ],
)
def test_broken_files_are_rejected(source: str, problem: str) -> None:
    with pytest.raises(PromptError, match=problem):
        parse("t", source)


def test_wrong_values_are_rejected() -> None:
    prompt = parse("t", HEADER + "{a} {b}")
    with pytest.raises(PromptError, match=r"missing values for \['b'\]"):
        prompt.render(a=1)
    with pytest.raises(PromptError, match=r"unknown placeholders \['z'\]"):
        prompt.render(a=1, b=2, z=3)


def test_unknown_prompt_name() -> None:
    with pytest.raises(PromptError, match="no prompt named 'nope'"):
        prompts.load("nope")
    with pytest.raises(PromptError):
        prompts.load("../config")
