"""The one sentence splitter: a text cut into units (sentences, list items, headings).

The generator cuts its drafted answer with it (the units CiteG cites) and the citation
metric cuts the answers it scores with it, so both count the same sentences.

sentencex does the sentence splitting (it knows English and Korean punctuation);
the rules here handle what it leaves: the layout of a drafted answer (titles,
headings, list items, hard-wrapped lines), abbreviations it splits after
("approx. 5"), stray parenthetical references ("(p. 14).") and Korean sentences
written without a final full stop. Every unit keeps its character offsets in the
original text, so markers can be inserted without rewriting the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from sentencex import segment as _sentencex_segment

UnitKind = Literal["heading", "sentence"]


@dataclass(frozen=True)
class Unit:
    """A span of the answer: ``text == source[start:end]`` (stripped of list bullets)."""

    text: str
    start: int
    end: int
    kind: UnitKind


# Abbreviations after which a full stop never ends a sentence (lower-cased, without the dot).
_ABBREVIATIONS = frozenset("al approx ca cf dr e.g eg i.e ie mr mrs ms prof vs esp dept resp".split())
# Abbreviations that end a sentence only when no number follows ("the answer is no. 5 of ...").
_BEFORE_NUMBER = frozenset(
    "no nos p pp fig figs vol vols eq eqs ref refs sec ch art jan feb mar apr jun jul aug sep sept oct nov dec".split()
)

_HEADING_MARKUP = re.compile(r"^\s{0,3}(#{1,6})\s+\S|^\s*\*\*[^*]+\*\*\s*:?\s*$|^\s*__[^_]+__\s*$")
_HASHES = re.compile(r"^\s{0,3}#{1,6}\s+")
_LIST_ITEM = re.compile(r"^\s*(?:[-*•·]|\d{1,3}[.)]|[a-zA-Z][.)]|[가-힣][.)])\s+")
_LABEL = re.compile(r"^\s*(?:title|제목)\s*:\s*", re.IGNORECASE)
# "Answer: Paris" in short-answer mode is a claim, not a heading.
_ANSWER_LABEL = re.compile(r"^\s*(?:short\s+)?(?:answer|답|정답|답변)\s*:\s*\S", re.IGNORECASE)
_TERMINAL = re.compile(r"[.!?。！？…:;]['\"”’)\]]*\s*$")
# A Korean word ending in the declarative "-다" followed by another Hangul word ends a
# sentence even without a full stop (connective forms end in 고/는/면/가, not 다).
_KOREAN_FINAL = re.compile(r"(?<=[가-힣]다)\s+(?=[가-힣])")
_SENTENCE_TITLE = re.compile(r"^(?:#{1,6}\s+)?\S+(?:\s+\S+){3,}[.。]$")
_PUNCT_ONLY = re.compile(r"^[\W_]*$", re.UNICODE)
_PARENTHETICAL = re.compile(r"^\(\s*[^()]{0,60}\)\s*[.!?。]?\s*$")


def segment_text(text: str, language: str = "en") -> list[Unit]:
    """Split ``text`` into headings and sentences, in order, with offsets.

    Args:
        text: the drafted answer (plain text or light Markdown).
        language: ISO 639-1 code of the text; sentencex falls back sensibly for unknown codes.
    """
    units: list[Unit] = []
    layout = _unwrapped(text)
    for block_start, block_end, kind in _blocks(layout):
        if kind == "heading":
            units.append(_unit(text, block_start, block_end, "heading"))
            continue
        for start, end in _sentences(layout, block_start, block_end, language):
            units.append(_unit(text, start, end, "sentence"))
    return [u for u in units if u.text]


#: Most words a list item may have to be joined to its lead-in (a label, not a sentence of its own).
SHORT_ITEM_WORDS = 8


def join_short_lists(text: str, units: list[Unit], max_words: int = SHORT_ITEM_WORDS) -> list[Unit]:
    """``units`` with each lead-in ending in a colon and the short list items right after it made one sentence.

    "The countries are:" followed by "- Japan" and "- USA" is one statement; cut into units, each
    item is a bare label that states nothing a passage can be checked for (readers marked such
    items unsupported whatever their passage said), and the lead-in alone is a fragment. Joined, the
    unit spans from the lead-in to the last item, so the claim is checked and cited whole. Lists of
    longer items (sentences of their own) stay one unit per item.
    """
    out: list[Unit] = []
    at = 0
    while at < len(units):
        lead = units[at]
        items = []
        if lead.text.endswith(":"):
            for unit in units[at + 1:]:
                if unit.kind != "sentence" or not _whole_list_line(text, unit):
                    break
                items.append(unit)
        if len(items) >= 2 and all(len(u.text.split()) <= max_words for u in items):
            out.append(Unit(text[lead.start:items[-1].end], lead.start, items[-1].end, "sentence"))
            at += 1 + len(items)
        else:
            out.append(lead)
            at += 1
    return out


def _whole_list_line(text: str, unit: Unit) -> bool:
    """Whether ``unit`` is a whole list item: the rest of its line after the bullet."""
    line_start = text.rfind("\n", 0, unit.start) + 1
    line_end = text.find("\n", unit.end)
    bullet = _LIST_ITEM.match(text[line_start:unit.start])
    return bool(bullet) and line_start + bullet.end() == unit.start and not text[unit.end:line_end if line_end >= 0 else len(text)].strip()


def answer_units(text: str, language: str = "en") -> list[Unit]:
    """An answer's units as CiteG checks and cites them, and as the citation metric scores them:
    :func:`segment_text`, with each lead-in and its short list items one sentence (:func:`join_short_lists`)."""
    return join_short_lists(text, segment_text(text, language))


def split_sentences(text: str, language: str = "en") -> list[str]:
    """The texts of ``text``'s units (sentences, list items and headings), in order."""
    return [unit.text for unit in segment_text(text, language)]


def _unit(text: str, start: int, end: int, kind: UnitKind) -> Unit:
    """A unit with surrounding whitespace (and, for headings, markup) trimmed from its span."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Unit(text[start:end], start, end, kind)


# A line break inside a sentence of hard-wrapped text: after a character that ends no sentence,
# before a line that opens in lower case ("... makes Mutt\nperform a case-insensitive search").
_WRAP = re.compile(r"(?<=[^\s.!?。:;])(\r?\n)(?=[ \t]*[a-z])")


def _unwrapped(text: str) -> str:
    """``text`` with the line breaks of hard-wrapped prose made spaces, offsets unchanged.

    Plain-text manuals and specifications wrap at 72-80 columns; read line by line, each line
    was a "sentence", and the closest quote of a Mutt manual answer stopped mid-phrase at
    "(because for IMAP Mutt" (held-out pile, 7 Dec 2026).
    """
    return _WRAP.sub(lambda m: " " * len(m.group(1)), text)


def _lines(text: str) -> list[tuple[int, int]]:
    spans, pos = [], 0
    for line in text.splitlines(keepends=True):
        spans.append((pos, pos + len(line.rstrip("\r\n"))))
        pos += len(line)
    return spans


def _is_heading(line: str, opens_block: bool) -> bool:
    if _HEADING_MARKUP.match(line) or _LABEL.match(line):
        # A "title" that is a whole sentence ("# Curie married Pierre Curie in 1895.") is a claim.
        return not _SENTENCE_TITLE.search(line.strip())
    if _ANSWER_LABEL.match(line) or _LIST_ITEM.match(line):
        return False
    stripped = line.strip()
    words = stripped.split()
    if stripped.endswith(":") and len(words) <= 4:
        return True
    if _TERMINAL.search(stripped):
        return False
    # A short line without final punctuation is a title or section heading when it opens a
    # block (or is very short), unless it is Korean prose that simply omits the full stop.
    korean_prose = bool(re.search(r"[가-힣](다|요)$", stripped)) and len(words) >= 3
    if korean_prose or len(stripped) > 80:
        return False
    return len(words) <= 4 or (opens_block and len(words) <= 10)


def _blocks(text: str) -> list[tuple[int, int, Literal["heading", "prose"]]]:
    """Layout pass: each non-blank line is a heading, a list item or a prose block.

    Drafts from chat models put one paragraph per line, so a line break is taken as a
    unit boundary; a sentence is continued across lines only where hard wrapping was undone
    before (:func:`_unwrapped`).
    """
    blocks: list[tuple[int, int, Literal["heading", "prose"]]] = []
    opens_block = True
    for start, end in _lines(text):
        line = text[start:end]
        if not line.strip():
            opens_block = True
            continue
        if _is_heading(line, opens_block):
            blocks.append((*_strip_heading_markup(text, start, end), "heading"))
            opens_block = True
            continue
        # List bullets and the hashes of a sentence-like title are layout, not text.
        prefix = _LIST_ITEM.match(line) or _HASHES.match(line)
        blocks.append((start + (prefix.end() if prefix else 0), end, "prose"))
        opens_block = False
    return blocks


def _strip_heading_markup(text: str, start: int, end: int) -> tuple[int, int]:
    line = text[start:end]
    m = re.match(r"^\s*(?:#{1,6}\s+|\*\*|__|(?:title|제목)\s*:\s*)", line, re.IGNORECASE)
    if m:
        start += m.end()
    tail = re.search(r"(?:\*\*|__)\s*:?\s*$", text[start:end])
    if tail:
        end = start + tail.start()
    return start, end


def _sentences(text: str, start: int, end: int, language: str) -> list[tuple[int, int]]:
    """Sentence spans inside one prose block."""
    block = text[start:end]
    pieces = [p for p in _sentencex_segment(language or "en", block) if p.strip()]
    spans = _locate(block, pieces)
    spans = _merge_false_breaks(block, spans)
    if language == "ko":
        spans = _split_korean_finals(block, spans)
    return [(start + s, start + e) for s, e in spans]


def _locate(block: str, pieces: list[str]) -> list[tuple[int, int]]:
    """Offsets of each piece in ``block``, tolerant of whitespace the splitter changed."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for piece in pieces:
        words = piece.split()
        pattern = r"\s+".join(re.escape(w) for w in words)
        m = re.compile(pattern).search(block, cursor)
        if m is None:
            continue
        spans.append((m.start(), m.end()))
        cursor = m.end()
    if not spans:
        return [(0, len(block))]
    # Text the splitter dropped (rare) is given to the neighbouring sentence, never lost.
    spans[0] = (0, spans[0][1])
    spans[-1] = (spans[-1][0], len(block))
    return spans


def _ends_with_abbreviation(piece: str, following: str) -> bool:
    m = re.search(r"(?:^|[\s(])([A-Za-z][A-Za-z.]*)\.\s*$", piece)
    if not m:
        return False
    word = m.group(1).lower()
    if word in _ABBREVIATIONS:
        return True
    return word in _BEFORE_NUMBER and following[:1].isdigit()


def _merge_false_breaks(block: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Re-join pieces split after an abbreviation, before a lower-case or numeric continuation,
    or before a lone parenthetical reference or punctuation."""
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        piece = block[s:e].strip()
        if merged:
            prev = block[merged[-1][0]:merged[-1][1]].rstrip()
            continues = (
                _ends_with_abbreviation(prev, piece)
                or piece[:1].islower()
                or _PARENTHETICAL.match(piece) is not None
                or _PUNCT_ONLY.match(piece) is not None
                or not _TERMINAL.search(prev)
            )
            if continues:
                merged[-1] = (merged[-1][0], e)
                continue
        merged.append((s, e))
    return merged


def _split_korean_finals(block: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in spans:
        cut = s
        for m in _KOREAN_FINAL.finditer(block, s, e):
            out.append((cut, m.start()))
            cut = m.end()
        out.append((cut, e))
    return out
