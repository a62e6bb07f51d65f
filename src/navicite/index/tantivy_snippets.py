"""Highlighted snippets of search hits.

tantivy's snippet generator highlights the words a query matched. One
generator, made for the combined field, serves every part: all parts share its
analyzer, and abstract and body have no stored word field of their own. CJK
words are matched through bigram fields it cannot highlight from, so for them
the snippet is cut around the first occurrence of a query's CJK text and every
occurrence is marked.
"""

from __future__ import annotations

import tantivy

from navicite.index.snippet_text import SNIPPET_CHARS, SNIPPET_FIELDS, cjk_pattern, cjk_snippet, mark, opening


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
        self._cjk = cjk_pattern(cjk_texts)

    def snippet(self, parts: dict[str, str]) -> str:
        """Matches in the body, else the abstract, else the title; else the opening of the first text.

        ``parts`` maps ``title``/``abstract``/``body`` to the document's texts.
        """
        texts = []
        for name in SNIPPET_FIELDS:
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
                found = cjk_snippet(self._cjk, text)
                if found:
                    return found
            texts.append(text)
        return opening(texts[0]) if texts else ""


def _char_ranges(fragment: str, byte_ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """tantivy reports UTF-8 byte offsets; slicing a str with them would cut the wrong characters."""
    data = fragment.encode("utf-8")

    def to_char(offset: int) -> int:
        return len(data[:offset].decode("utf-8", "ignore"))

    return [(to_char(start), to_char(end)) for start, end in byte_ranges]
