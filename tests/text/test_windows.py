"""Sentence windows: runs of consecutive sentences within a word budget, none inside another."""

from __future__ import annotations

from navicite.text.windows import premise_text, windows


def test_windows_cover_every_sentence_and_none_holds_another() -> None:
    sentences = ["one two three four five."] * 5 + ["a " * 100 + "long one."] + ["six seven eight."]
    spans = windows(sentences, max_words=12, most=3)
    covered = {i for start, end in spans for i in range(start, end)}
    assert covered == set(range(len(sentences)))
    assert all(sum(len(s.split()) for s in sentences[a:b]) <= 12 or b - a == 1 for a, b in spans)
    assert (5, 6) in spans  # the long sentence is a window of its own
    assert not any(a <= c and d <= b and (a, b) != (c, d) for a, b in spans for c, d in spans)


def test_a_premise_is_the_title_then_the_window() -> None:
    assert premise_text("sort(1)", "Sorts lines.") == "sort(1)\nSorts lines."
    assert premise_text("", "Sorts lines.") == "Sorts lines."
