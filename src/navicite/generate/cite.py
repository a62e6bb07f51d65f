"""Markers, the citation block and the final text.

Markers are numbered by first use and reused for the same passage, so a passage
has one number however many sentences cite it, and each number names one place
(page and section) of its document. The
citation list is built from the same map that places markers, so a marker
without an entry cannot arise; :func:`broken_markers` checks it anyway.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from navicite.generate.answer import Citation
from navicite.text.sentences import Unit, segment_text
from navicite.generate.sources import ContextEntry
from navicite.support.words import lexical_support

_MARKER = re.compile(r"\[(\d+)\]")
# Closing punctuation a marker goes in front of: "... in 1998 [1]." rather than "... in 1998. [1]"
_CLOSING = re.compile(r"[.!?。！？…:;]+['\"”’]?$")
# What leaving sentences out can leave behind: a bullet with nothing after it, runs of blank lines.
_EMPTY_ITEM = re.compile(r"^[ \t]*(?:[-*•·]|\d{1,3}[.)])[ \t]*(?:\n|$)", re.MULTILINE)
_BLANK_LINES = re.compile(r"\n[ \t]*(?:\n[ \t]*){2,}")


@dataclass
class Markers:
    """Markers per unit (in unit order) and the citations they point to."""

    per_unit: list[list[int]]
    citations: list[Citation]


def assign_markers(kept: list[list[int]], entries: list[ContextEntry], claims: list[str] | None = None) -> Markers:
    """Number the cited passages by first use.

    Args:
        kept: per unit, the context numbers of its verified sources (empty for none).
        entries: the context, to look the numbers up.
        claims: per unit, its text; each citation then quotes the sentence of its passage
            that best matches the claims citing it.
    """
    by_number = {e.number: e for e in entries}
    marker_of: dict[tuple[str, str | None], int] = {}
    citing: dict[int, list[str]] = {}
    cited: list[ContextEntry] = []
    per_unit: list[list[int]] = []
    for at, numbers in enumerate(kept):
        markers: list[int] = []
        for n in numbers:
            entry = by_number.get(n)
            if entry is None:
                continue
            key = (entry.source.doc_id, entry.source.passage_id)
            if key not in marker_of:
                marker_of[key] = len(marker_of) + 1
                cited.append(entry)
            marker = marker_of[key]
            if marker not in markers:
                markers.append(marker)
                if claims is not None and at < len(claims):
                    citing.setdefault(marker, []).append(claims[at])
        per_unit.append(markers)
    citations = [_citation(m, e, citing.get(m, [])) for m, e in enumerate(cited, start=1)]
    return Markers(per_unit, citations)


def _citation(marker: int, entry: ContextEntry, claims: list[str]) -> Citation:
    s = entry.source
    return Citation(
        marker, s.doc_id, s.title, s.link, entry.text, s.passage_id,
        pages=list(s.pages), section=s.section[-1] if s.section else "", quote=best_quote(entry.text, claims),
    )


def best_quote(passage: str, claims: list[str]) -> str:
    """The sentence of ``passage`` sharing most with ``claims`` (empty without claims)."""
    if not claims or not passage.strip():
        return ""
    claim = " ".join(claims)
    sentences = [u.text for u in segment_text(passage) if u.kind == "sentence"] or [passage.strip()]
    return max(sentences, key=lambda sentence: lexical_support(claim, sentence))


def with_marker(sentence: str, markers: list[int]) -> str:
    """``sentence`` with ``[n]`` markers placed before its closing punctuation."""
    if not markers:
        return sentence
    tag = "".join(f"[{m}]" for m in markers)
    stripped = sentence.rstrip()
    closing = _CLOSING.search(stripped)
    if closing:
        return f"{stripped[:closing.start()].rstrip()} {tag}{stripped[closing.start():]}"
    return f"{stripped} {tag}"


def insert_markers(text: str, units: list[Unit], per_unit: list[list[int]], leave_out: frozenset[int] = frozenset()) -> str:
    """``text`` with each unit's markers inserted in place; everything else is unchanged.

    Units whose index is in ``leave_out`` are dropped with the spaces after them; a list item or
    paragraph left empty goes too.
    """
    out: list[str] = []
    cursor = 0
    for at, (unit, markers) in enumerate(zip(units, per_unit)):
        out.append(text[cursor:unit.start])
        if at in leave_out:
            cursor = unit.end
            while cursor < len(text) and text[cursor] in " \t":
                cursor += 1
            if cursor == len(text) or text[cursor] in "\r\n":  # it ended its line: no spaces left dangling
                out[-1] = out[-1].rstrip(" \t")
            continue
        out.append(with_marker(text[unit.start:unit.end], markers))
        cursor = unit.end
    out.append(text[cursor:])
    joined = "".join(out)
    if not leave_out:
        return joined
    joined = _EMPTY_ITEM.sub("", joined)
    return _BLANK_LINES.sub("\n\n", joined).strip()


def broken_markers(answer: str, citations: list[Citation]) -> list[int]:
    """Markers in ``answer`` with no entry in ``citations`` (always empty for CiteG's output)."""
    known = {c.marker for c in citations}
    return sorted({int(m) for m in _MARKER.findall(answer)} - known)
