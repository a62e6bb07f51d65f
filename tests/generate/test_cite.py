"""Marker numbering, reuse, placement and the no-broken-marker guarantee."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from navicite.generate.answer import Source
from navicite.generate.cite import assign_markers, broken_markers, insert_markers, with_marker
from navicite.text.sentences import segment_text
from navicite.generate.sources import ContextEntry


def entries() -> list[ContextEntry]:
    # Sources 2 and 4 are two passages of the same document.
    docs = ["a", "b", "c", "b"]
    return [ContextEntry(i, Source(d, f"Title {d}", f"text {i}", f"http://{d}", passage_id=f"p{i}"), f"text {i}", False) for i, d in enumerate(docs, 1)]


def test_markers_are_numbered_by_first_use_and_reused_per_passage() -> None:
    m = assign_markers([[], [3], [2, 3], [4], [1, 2], [3]], entries())
    # Two passages of document b are two places, so two markers; a passage cited again keeps its number.
    assert m.per_unit == [[], [1], [2, 1], [3], [4, 2], [1]]
    assert [(c.marker, c.doc_id, c.passage_id) for c in m.citations] == [(1, "c", "p3"), (2, "b", "p2"), (3, "b", "p4"), (4, "a", "p1")]


def test_a_citation_names_its_page_section_and_quotes_the_supporting_sentence() -> None:
    passage = "The data set was collected in 1998. The function tmerge builds the intervals. Other text follows."
    source = Source("doc", "Time dependence", passage, pages=(12, 13), section=("3 Methods", "3.3 Intervals"), passage_id="doc#p4")
    m = assign_markers([[1]], [ContextEntry(1, source, passage, False)], ["Intervals are built with tmerge [1]."])
    citation = m.citations[0]
    assert citation.pages == [12, 13] and citation.section == "3.3 Intervals"
    assert citation.quote == "The function tmerge builds the intervals."
    assert citation.block_line() == "[1] Time dependence — pp. 12-13, §3.3 Intervals"


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


def test_left_out_units_take_their_spaces_bullets_and_empty_paragraphs_with_them() -> None:
    text = "The answer is 7. It is odd. It is big.\n\n- One item.\n- Another item.\n\nA lone claim.\n\nThe end."
    units = segment_text(text)
    assert [u.text for u in units][4] == "Another item."
    out = insert_markers(text, units, [[1], [], [2], [], [], [], []], frozenset({1, 4, 5}))
    assert out == "The answer is 7 [1]. It is big [2].\n\n- One item.\n\nThe end."
    # The last sentence of a line goes without leaving its space behind.
    assert insert_markers("A is 1. B is 2.\nC is 3.", segment_text("A is 1. B is 2.\nC is 3."), [[], [], []], frozenset({1})) == "A is 1.\nC is 3."


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
