"""Highlight marks."""

from __future__ import annotations

from navicite.index.snippet_text import mark
from navicite.index.tantivy_snippets import _char_ranges


def test_byte_offsets_become_character_ranges() -> None:
    fragment = "Café naïve kinase"
    start = len("Café naïve ".encode())
    assert mark(fragment, _char_ranges(fragment, [(start, start + 6)])) == "Café naïve **kinase**"


def test_mark_several_and_overlapping_ranges() -> None:
    assert mark("a bb cc", [(5, 7), (2, 4), (3, 4)]) == "a **bb** **cc**"
    assert mark("plain\n text", []) == "plain text"
