"""Parsing model replies into pydantic objects."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from navicite.llm.jsonout import ReplyError, extract_json_text, parse_reply


class Pair(BaseModel):
    name: str
    score: int


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "a", "score": 1}',
        '```json\n{"name": "a", "score": 1}\n```',
        '```\n{"name": "a", "score": 1}```',
        'Here you go:\n{"name": "a", "score": 1}\nHope this helps.',
        '  \n{"name": "a", "score": 1}  ',
    ],
)
def test_parse_reply_accepts_bare_fenced_and_wrapped_json(text: str) -> None:
    assert parse_reply(text, Pair) == Pair(name="a", score=1)


def test_extract_json_text_keeps_arrays() -> None:
    assert extract_json_text("The list: [1, 2, 3].") == "[1, 2, 3]"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ('{"name": "a", "score": ', "not valid JSON"),
        ("no json here", "not valid JSON"),
        ('{"name": "a"}', "score"),
        ('{"name": "a", "score": "many"}', "score"),
    ],
)
def test_parse_reply_explains_what_is_wrong(text: str, reason: str) -> None:
    with pytest.raises(ReplyError, match=reason):
        parse_reply(text, Pair)
