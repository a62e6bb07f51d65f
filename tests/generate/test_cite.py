"""Marker numbering, reuse, placement and the no-broken-marker guarantee."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from navicite.generate.answer import Source
from navicite.generate.cite import assign_markers, broken_markers, insert_markers, with_marker
from navicite.generate.segment import segment_text
from navicite.generate.sources import ContextEntry


def entries() -> list[ContextEntry]:
    # Sources 2 and 4 are two passages of the same document.
    docs = ["a", "b", "c", "b"]
    return [ContextEntry(i, Source(d, f"Title {d}", f"text {i}", f"http://{d}", passage_id=f"p{i}"), f"text {i}", False) for i, d in enumerate(docs, 1)]


def test_markers_are_numbered_by_first_use_and_reused_per_document() -> None:
    m = assign_markers([[], [3], [2, 3], [4], [1, 2]], entries())
    assert m.per_unit == [[], [1], [2, 1], [2], [3, 2]]
    assert [(c.marker, c.doc_id) for c in m.citations] == [(1, "c"), (2, "b"), (3, "a")]
    # The first passage cited for a document is the one kept in its entry.
    assert m.citations[1].passage == "text 2" and m.citations[1].passage_id == "p2"


def test_unknown_source_numbers_never_become_markers() -> None:
    m = assign_markers([[9, 1]], entries())
    assert m.per_unit == [[1]] and len(m.citations) == 1


def test_marker_goes_before_the_closing_punctuation() -> None:
    assert with_marker("It rained.", [1, 2]) == "It rained [1][2]."
    assert with_marker("Did it rain?", [3]) == "Did it rain [3]?"
    assert with_marker("서울은 수도이다.", [1]) == "서울은 수도이다 [1]."
    assert with_marker("Answer: Paris", [2]) == "Answer: Paris [2]"
    assert with_marker("No markers.", []) == "No markers."


def test_insert_markers_keeps_layout() -> None:
    text = "# Title\n\nFirst fact. Second fact!\n\nLast line."
    units = segment_text(text)
    out = insert_markers(text, units, [[], [1], [], [2]])
    assert out == "# Title\n\nFirst fact [1]. Second fact!\n\nLast line [2]."


def test_broken_markers_detects_dangling_references() -> None:
    m = assign_markers([[1], [2]], entries())
    assert broken_markers("A [1]. B [2].", m.citations) == []
    assert broken_markers("A [1]. B [7].", m.citations) == [7]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.integers(min_value=-2, max_value=8), max_size=4), min_size=1, max_size=8))
def test_no_marker_ever_points_to_a_missing_entry(kept: list[list[int]]) -> None:
    text = " ".join(f"Sentence number {i}." for i in range(len(kept)))
    units = segment_text(text)
    m = assign_markers(kept, entries())
    answer = insert_markers(text, units, m.per_unit)
    assert broken_markers(answer, m.citations) == []
    assert [c.marker for c in m.citations] == list(range(1, len(m.citations) + 1))
    # Markers appear in the text in order of first use.
    first_seen: list[int] = []
    for markers in m.per_unit:
        first_seen.extend(x for x in markers if x not in first_seen)
    assert first_seen == sorted(first_seen)
