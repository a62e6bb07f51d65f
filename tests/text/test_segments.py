"""Segments: overlap arithmetic, offsets and coverage."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navicite.config import Settings
from navicite.documents import Document
from navicite.text.segments import segment, step_size


def numbered(n: int) -> Document:
    return Document(id="d", title="t", text=" ".join(f"w{i}" for i in range(n)))


def test_short_document_is_one_segment() -> None:
    [only] = segment(numbered(10), words=16, overlap=0.2)
    assert (only.start, only.end, only.index, only.id) == (0, 10, 0, "d#0")
    assert only.text == numbered(10).text


def test_overlap_arithmetic_with_the_default_settings() -> None:
    cfg = Settings().ingest
    segments = segment(numbered(1200), words=cfg.segment_words, overlap=cfg.segment_overlap)
    # 512 words with 20% overlap: a new segment every 512 - 102 = 410 words.
    assert [(s.start, s.end) for s in segments] == [(0, 512), (410, 922), (820, 1200)]
    assert segments[1].text.split()[:102] == segments[0].text.split()[-102:]
    assert segment(numbered(1200)) == segments  # the defaults are the settings' defaults


def test_exact_multiple_ends_without_an_empty_tail() -> None:
    segments = segment(numbered(20), words=10, overlap=0.0)
    assert [(s.start, s.end) for s in segments] == [(0, 10), (10, 20)]


def test_text_keeps_line_breaks_and_offsets_are_word_offsets() -> None:
    doc = Document(id="x", text="alpha beta\n\ngamma   delta\nepsilon")
    first, second = segment(doc, words=3, overlap=0.34)
    assert first.text == "alpha beta\n\ngamma"
    assert doc.text.split()[second.start:second.end] == second.text.split() == ["gamma", "delta", "epsilon"]


def test_abstract_is_used_when_there_is_no_text_and_empty_gives_none() -> None:
    assert [s.text for s in segment(Document(id="a", abstract="only an abstract"), words=16)] == ["only an abstract"]
    assert segment(Document(id="e", title="title only"), words=16) == []


def test_bad_arguments_are_rejected() -> None:
    with pytest.raises(ValueError):
        step_size(0, 0.2)
    with pytest.raises(ValueError):
        step_size(10, 1.0)
    assert step_size(3, 0.89) == 1


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 400), words=st.integers(1, 60), overlap=st.floats(0.0, 0.89))
def test_every_word_is_covered_and_consecutive_overlap_is_constant(n: int, words: int, overlap: float) -> None:
    segments = segment(numbered(n), words=words, overlap=overlap)
    covered = set()
    for s in segments:
        assert 0 <= s.start < s.end <= n and s.end - s.start <= words
        assert s.text.split() == [f"w{i}" for i in range(s.start, s.end)]
        covered.update(range(s.start, s.end))
    assert covered == set(range(n))
    step = step_size(words, overlap)
    for a, b in zip(segments, segments[1:]):
        assert b.start - a.start == step
        assert a.end == a.start + words  # only the last segment may be short
    assert [s.index for s in segments] == list(range(len(segments)))
