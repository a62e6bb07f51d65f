"""The one token estimate that every budget counts in."""

from __future__ import annotations

from navicite.text.tokens import estimate_tokens


def test_estimate_grows_with_text_and_blank_text_is_free() -> None:
    assert estimate_tokens("") == 0 and estimate_tokens(" \n ") == 0
    assert estimate_tokens("one two three") >= 3
    assert estimate_tokens("word " * 100) >= 100


def test_hangul_costs_about_a_token_a_character() -> None:
    assert estimate_tokens("Seoul is the capital") == len("Seoul is the capital") // 4 + 1
    assert estimate_tokens("서울은 한국의 수도이다") == 10 + 1  # ten syllables (two spaces make no token)
