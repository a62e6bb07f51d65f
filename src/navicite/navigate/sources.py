"""Navigation evidence as CiteG sources, and navigation as a trace entry.

Every evidence item becomes its own source, so a citation points to the passage
(or node summary) it came from: the passage id names the segment or node, and the
title carries the path from the document down to it.
"""

from __future__ import annotations

from typing import Any

from navicite.documents import Document, Source
from navicite.navigate.evidence import Evidence, Navigation
from navicite.text.passages import place_of


def passage_id(evidence: Evidence, units: str = "segments") -> str:
    """``seg<i>`` for an original passage (segment ``i``), ``node:<id>`` for a node summary; in a
    tree over passages (``units``), the passage's own id ``<doc_id>#p<i>``, the one retrieval gives it.

    A passage reached through two leaves keeps one id, so CiteG quotes it once (and in hybrid
    mode once when retrieval found it too).
    """
    if evidence.kind == "passage" and evidence.segments:
        i = evidence.segments[0]
        return f"{evidence.doc_id}#p{i}" if units == "passages" else f"seg{i}"
    return f"node:{evidence.node_id}"


def source_title(evidence: Evidence, document: Document) -> str:
    """The document's title and the path below it, e.g. ``Report > Finances > Budget``."""
    path = list(evidence.path)
    name = document.title or document.id
    if path and path[0] in (name, document.id):
        path = path[1:]
    return " > ".join([name, *path])


def evidence_sources(navigation: Navigation, document: Document, score: float = 1.0) -> list[Source]:
    """One source per evidence item: original passages first (they are what a citation
    should quote), then node summaries, each group in the order navigation found them.

    All get ``score`` (the document's retrieval score, or 1.0), so CiteG's score-ratio
    test treats them alike and its token budget decides how many it reads.
    """
    ordered = sorted(navigation.evidence, key=lambda e: e.kind != "passage")
    out = []
    for e in ordered:
        pages, section = place_of(document, e.start, e.end) if e.start is not None and e.end is not None else ((), ())
        passages = navigation.units == "passages" and e.kind == "passage" and bool(e.segments)
        out.append(Source(doc_id=document.id, title=source_title(e, document), text=e.text, link=document.link,
                          score=score, passage_id=passage_id(e, navigation.units), pages=pages, section=section,
                          position=e.segments[0] if passages else 0))
    return out


def navigation_trace(navigation: Navigation) -> dict[str, Any]:
    """The navigation without evidence texts (the sources carry them): paths, steps, gap, decisions."""
    data = navigation.to_dict()
    data["evidence"] = [
        {"kind": e.kind, "path": list(e.path), "node_id": e.node_id, "segments": list(e.segments), "passage_id": passage_id(e, navigation.units), "via": e.via}
        for e in navigation.evidence
    ]
    data["paths"] = paths_taken(navigation)
    return data


def paths_taken(navigation: Navigation) -> list[list[str]]:
    """The distinct paths the walk took to its evidence, in the order they were first reached
    (passages the BM25 fill added are in the evidence, not on a path the agent took)."""
    seen: dict[tuple[str, ...], None] = {}
    for e in navigation.evidence:
        if e.via == "navigation":
            seen.setdefault(e.path, None)
    if not seen:  # nothing found: show where the walk went
        for step in navigation.trace:
            seen.setdefault(step.path, None)
    return [list(p) for p in seen]
