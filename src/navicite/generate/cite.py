"""Markers, the citation block and the final text.

Markers are numbered by first use and reused for the same document, so a
document has one number however many of its passages or sentences cite it. The
citation list is built from the same map that places markers, so a marker
without an entry cannot arise; :func:`broken_markers` checks it anyway.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from navicite.generate.answer import Citation
from navicite.generate.segment import Unit
from navicite.generate.sources import ContextEntry

_MARKER = re.compile(r"\[(\d+)\]")
# Closing punctuation a marker goes in front of: "... in 1998 [1]." rather than "... in 1998. [1]"
_CLOSING = re.compile(r"[.!?。！？…:;]+['\"”’]?$")


@dataclass
class Markers:
    """Markers per unit (in unit order) and the citations they point to."""

    per_unit: list[list[int]]
    citations: list[Citation]


def assign_markers(kept: list[list[int]], entries: list[ContextEntry]) -> Markers:
    """Number the cited documents by first use.

    Args:
        kept: per unit, the context numbers of its verified sources (empty for none).
        entries: the context, to look the numbers up.
    """
    by_number = {e.number: e for e in entries}
    marker_of: dict[str, int] = {}
    citations: list[Citation] = []
    per_unit: list[list[int]] = []
    for numbers in kept:
        markers: list[int] = []
        for n in numbers:
            entry = by_number.get(n)
            if entry is None:
                continue
            doc = entry.source.doc_id
            if doc not in marker_of:
                marker_of[doc] = len(marker_of) + 1
                s = entry.source
                citations.append(Citation(marker_of[doc], s.doc_id, s.title, s.link, entry.text, s.passage_id))
            if marker_of[doc] not in markers:
                markers.append(marker_of[doc])
        per_unit.append(markers)
    return Markers(per_unit, citations)


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


def insert_markers(text: str, units: list[Unit], per_unit: list[list[int]]) -> str:
    """``text`` with each unit's markers inserted in place; everything else is unchanged."""
    out: list[str] = []
    cursor = 0
    for unit, markers in zip(units, per_unit):
        out.append(text[cursor:unit.start])
        out.append(with_marker(text[unit.start:unit.end], markers))
        cursor = unit.end
    out.append(text[cursor:])
    return "".join(out)


def broken_markers(answer: str, citations: list[Citation]) -> list[int]:
    """Markers in ``answer`` with no entry in ``citations`` (always empty for CiteG's output)."""
    known = {c.marker for c in citations}
    return sorted({int(m) for m in _MARKER.findall(answer)} - known)
