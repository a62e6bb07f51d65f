"""Highlighted snippets of search hits.

tantivy's snippet generator highlights the words a query matched. One
generator, made for the combined field, serves every part: all parts share its
analyzer, and abstract and body have no stored word field of their own. CJK
words are matched through bigram fields it cannot highlight from, so for them
the snippet is cut around the first occurrence of a query's CJK text and every
occurrence is marked.
"""

from __future__ import annotations

import re

import tantivy

from navicite.index.base import HIGHLIGHT_END, HIGHLIGHT_START

#: Longest snippet, in characters.
SNIPPET_CHARS = 200
#: Characters shown before the first CJK match.
_CJK_LEAD = 40

_SNIPPET_FIELDS = ("body", "abstract", "title")


class Snippets:
    """The snippet maker for one query, reused for every hit of it.

    ``query`` must search ``field`` (the combined field) only; ``cjk_texts`` are the
    CJK runs of the query's (non-excluded) leaves.
    """

    def __init__(
        self, searcher: tantivy.Searcher, query: tantivy.Query, schema: tantivy.Schema, field: str, cjk_texts: list[str]
    ) -> None:
        self._field = field
        self._generator = tantivy.SnippetGenerator.create(searcher, query, schema, field)
        self._generator.set_max_num_chars(SNIPPET_CHARS)
        self._cjk = re.compile("|".join(map(re.escape, sorted(set(cjk_texts), key=len, reverse=True)))) if cjk_texts else None

    def snippet(self, parts: dict[str, str]) -> str:
        """Matches in the body, else the abstract, else the title; else the opening of the first text.

        ``parts`` maps ``title``/``abstract``/``body`` to the document's texts.
        """
        texts = []
        for name in _SNIPPET_FIELDS:
            text = parts.get(name, "")
            if not text:
                continue
            # The generator reads its field's values from the document it is given.
            holder = tantivy.Document()
            holder.add_text(self._field, text)
            snippet = self._generator.snippet_from_doc(holder)
            ranges = snippet.highlighted()
            if ranges:
                return mark(snippet.fragment(), _char_ranges(snippet.fragment(), [(r.start, r.end) for r in ranges]))
            if self._cjk is not None:
                found = self._cjk_snippet(text)
                if found:
                    return found
            texts.append(text)
        return _opening(texts[0]) if texts else ""

    def _cjk_snippet(self, text: str) -> str:
        assert self._cjk is not None
        first = self._cjk.search(text)
        if first is None:
            return ""
        start = max(0, first.start() - _CJK_LEAD)
        fragment = text[start : start + SNIPPET_CHARS]
        return mark(fragment, [m.span() for m in self._cjk.finditer(fragment)])


def _char_ranges(fragment: str, byte_ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """tantivy reports UTF-8 byte offsets; slicing a str with them would cut the wrong characters."""
    data = fragment.encode("utf-8")

    def to_char(offset: int) -> int:
        return len(data[:offset].decode("utf-8", "ignore"))

    return [(to_char(start), to_char(end)) for start, end in byte_ranges]


def mark(fragment: str, ranges: list[tuple[int, int]]) -> str:
    """Wrap the given character ranges of ``fragment`` in highlight marks (overlaps are dropped)."""
    out: list[str] = []
    last = 0
    for start, end in sorted(ranges):
        if start < last:
            continue
        out.append(fragment[last:start])
        out.append(HIGHLIGHT_START + fragment[start:end] + HIGHLIGHT_END)
        last = end
    out.append(fragment[last:])
    return " ".join("".join(out).split())


def _opening(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= SNIPPET_CHARS:
        return text
    cut = text.rfind(" ", 0, SNIPPET_CHARS)
    return text[: cut if cut > 0 else SNIPPET_CHARS] + " …"
