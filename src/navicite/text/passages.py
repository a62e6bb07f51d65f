"""Cutting a document into passages: sentence-aligned spans that know their page and section.

A passage is what retrieval ranks and an answer cites, so its size is a trade: long enough to
hold a claim with its context, short enough that the best one can be quoted next to others
within a prompt budget (``ingest.passage_words``). Passages end at a sentence end where one
comes within twice the target, and never run across a section heading, so a citation can name
the section. Word offsets index ``text.split()``, the convention ``metadata['page_starts']``
and ``metadata['sections']`` use too.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from navicite.config import IngestSettings
from navicite.documents import Document, Passage
from navicite.text.sections import enclosing

_WORD = re.compile(r"\S+")
# A word that ends a sentence: closing punctuation, perhaps inside quotes or brackets.
_ENDS_SENTENCE = re.compile(r"[.!?。！？]['\"”’)\]]*$")
# Abbreviations whose full stop rarely ends a sentence.
_ABBREVIATIONS = frozenset("al. e.g. i.e. etc. vs. cf. fig. figs. eq. eqs. ref. refs. sec. no. pp. p. approx. dr. mr. mrs. ms.".split())
#: A record with at most this many times the target words stays one passage.
WHOLE_RECORD_FACTOR = 3.0
#: A section break is only taken once the passage has this many words: a bare heading
#: ("3 Methods" right before "3.1 Data") joins the text that follows it.
MIN_PASSAGE_WORDS = 25
_DEFAULT_WORDS: int = IngestSettings.model_fields["passage_words"].default


def cut_passages(document: Document, words: int = _DEFAULT_WORDS) -> list[Passage]:
    """The passages of ``document`` in reading order (none for a document with no words).

    A record of at most ``WHOLE_RECORD_FACTOR * words`` words is one passage carrying the
    document's id; a longer one gives its abstract's passages, then its text's.
    """
    meta = document.metadata
    page_starts = _ints(meta.get("page_starts"))
    sections = _sections(meta.get("sections"))
    if document.word_count == 0:
        return []
    if document.word_count <= WHOLE_RECORD_FACTOR * words:
        text = "\n".join(part for part in (document.abstract.strip(), document.text.strip()) if part)
        text_words = len(document.text.split())
        pages = _pages(page_starts, 0, text_words) if text_words else ()
        field = "text" if document.text.strip() else "abstract"
        return [Passage(document.id, 0, text, 0, len(text.split()), field, pages, (), whole=True)]
    out: list[Passage] = []
    for field, source in (("abstract", document.abstract), ("text", document.text)):
        if not source.strip():
            continue
        starts = sorted({s["start"] for s in sections}) if field == "text" else []
        for start, end, text in _pack(source, words, starts):
            pages = _pages(page_starts, start, end) if field == "text" else ()
            section = tuple(section_path(sections, heading_anchor(starts, start, end))) if field == "text" else ("Abstract",)
            out.append(Passage(document.id, len(out), text, start, end, field, pages, section))
    return out


def heading_anchor(starts: Sequence[int], start: int, end: int) -> int:
    """The word whose section a passage ``start:end`` belongs to: the last heading among
    ``starts`` within its first words (a bare heading joins the text after it), else its start."""
    return max((s for s in starts if start <= s < min(end, start + MIN_PASSAGE_WORDS + 15)), default=start)


def place_of(document: Document, start: int, end: int) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The pages and section path of the words ``start:end`` of ``document.text`` (empty where unknown)."""
    meta = document.metadata
    return _pages(_ints(meta.get("page_starts")), start, end), tuple(section_path(_sections(meta.get("sections")), start))


def passage_link(document: Document, passage: Passage) -> str:
    """The document's link pointing at the passage's section (``#anchor``) where the section has an
    anchor (an HTML heading's id) and the link none yet; else the document's link."""
    link = document.link
    sections = _sections(document.metadata.get("sections"))
    if not link or "#" in link or passage.field != "text" or not passage.section or not sections:
        return link
    starts = [s["start"] for s in sections]
    word = heading_anchor(sorted(set(starts)), passage.start, passage.end)
    inner = enclosing(sections[: bisect_right(starts, word)])
    return f"{link}#{inner[-1]['anchor']}" if inner and inner[-1].get("anchor") else link


def page_text(document: Document, page: int) -> str:
    """The words of 1-based ``page`` of a paged document; empty when it records no such page."""
    starts = _ints(document.metadata.get("page_starts"))
    if not 1 <= page <= len(starts):
        return ""
    words = document.text.split()
    end = starts[page] if page < len(starts) else len(words)
    return " ".join(words[starts[page - 1]:end])


def section_path(sections: Sequence[dict[str, Any]], word_offset: int) -> list[str]:
    """Titles of the headings that enclose ``word_offset``, outermost first ([] before the first heading).

    The enclosing headings are the last heading at or before the offset and, above it,
    the last heading of each smaller level before that one. ``sections`` must be sorted
    by ``start`` (as loaders store them).
    """
    return [entry["title"] for entry in enclosing(sections[: bisect_right([s["start"] for s in sections], word_offset)])]


def _pack(source: str, target: int, breaks: Sequence[int]) -> list[tuple[int, int, str]]:
    """(start, end, text) spans of about ``target`` words, cut after sentence ends and before ``breaks``."""
    spans = [m.span() for m in _WORD.finditer(source)]
    total = len(spans)
    must_break = set(breaks)
    out: list[tuple[int, int, str]] = []
    start = 0
    for i in range(total):
        size = i + 1 - start
        nxt = i + 1
        cut = nxt == total
        if not cut and nxt in must_break:
            if size >= MIN_PASSAGE_WORDS:
                cut = True
            elif out and out[-1][1] == start and start not in must_break:
                # A few words left before the heading: they end the passage before them.
                s0 = out.pop()[0]
                out.append((s0, nxt, source[spans[s0][0]:spans[i][1]]))
                start = nxt
                continue
            # else: a bare heading, which joins the text that follows it
        elif not cut and size >= target and _is_sentence_end(source, spans, i):
            cut = True
        elif not cut and size >= 2 * target and (size >= 3 * target or _ends_line(source, spans, i)):
            # No sentence end in sight (a table, a code listing, a formula): cut by size, at a line
            # end so that a table row or a line of code stays whole.
            cut = True
        if cut:
            out.append((start, nxt, source[spans[start][0]:spans[i][1]]))
            start = nxt
    if len(out) > 1 and out[-1][1] - out[-1][0] < target // 4 and out[-1][0] not in must_break:
        (s0, _, _), (_, e1, _) = out[-2], out[-1]  # a short tail joins the passage before it
        out[-2:] = [(s0, e1, source[spans[s0][0]:spans[e1 - 1][1]])]
    return out


def _ends_line(source: str, spans: list[tuple[int, int]], i: int) -> bool:
    return i + 1 == len(spans) or "\n" in source[spans[i][1]:spans[i + 1][0]]


def _is_sentence_end(source: str, spans: list[tuple[int, int]], i: int) -> bool:
    word = source[spans[i][0]:spans[i][1]]
    if not _ENDS_SENTENCE.search(word) or word.lower() in _ABBREVIATIONS:
        return False
    if i + 1 == len(spans):
        return True
    following = source[spans[i + 1][0]]
    return not following.islower()


def _pages(page_starts: list[int], start: int, end: int) -> tuple[int, ...]:
    if not page_starts:
        return ()
    first = max(1, bisect_right(page_starts, start))
    last = max(first, bisect_right(page_starts, max(start, end - 1)))
    return (first,) if first == last else (first, last)


def _ints(value: Any) -> list[int]:
    try:
        return [int(v) for v in value or ()]
    except (TypeError, ValueError):
        return []


def _sections(value: Any) -> list[dict[str, Any]]:
    out = []
    for item in value or ():
        if isinstance(item, dict) and isinstance(item.get("start"), int) and item.get("title"):
            out.append(item)
    return sorted(out, key=lambda s: s["start"])
