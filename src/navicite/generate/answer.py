"""What CiteG takes in and gives back: sources (defined with the documents), citations, sentence records, the answer
(its trace entries are :class:`~navicite.stages.StageTrace`).

Everything here is plain data with ``to_dict`` so the command line (``--json``),
the HTTP API and the evaluation harness serialise the same shape.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from navicite.documents import Source, place_label
from navicite.stages import StageTrace

#: How a unit of the answer relates to the sources.
#: ``cited``: a claim with at least one verified source; ``general``: a statement the
#: aligner judged to need no source; ``unsupported``: a claim no source was verified for
#: (the hallucination signal); ``heading``: a title or heading, never cited.
SentenceKind = Literal["cited", "general", "unsupported", "heading"]


@dataclass(frozen=True)
class Citation:
    """One entry of the citation block."""

    marker: int
    doc_id: str
    title: str
    link: str
    passage: str
    passage_id: str | None = None
    pages: list[int] = field(default_factory=list)
    section: str = ""
    quote: str = ""
    """The sentence of the passage that best matches the claims citing it."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def place(self) -> str:
        """``p. 12, §3.3 Stanford heart transplant``: page(s) and section, as far as they are known."""
        return place_label(self.pages, self.section)

    def block_line(self) -> str:
        """The entry as printed in the citation block: ``[n] title — p. 12, §3.3 — link``."""
        tail = "".join(f" — {part}" for part in (self.place, self.link) if part)
        return f"[{self.marker}] {self.title or self.doc_id}{tail}"


@dataclass(frozen=True)
class SupportCheck:
    """One verified (sentence, source) pairing: the score and whether it was kept."""

    source: int
    doc_id: str
    score: float
    kept: bool
    scorer: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class SentenceRecord:
    """One unit of the answer with its markers and the evidence behind them."""

    text: str
    kind: SentenceKind
    markers: list[int] = field(default_factory=list)
    support: float | None = None
    checks: list[SupportCheck] = field(default_factory=list)
    disputed_by: list[dict[str, str]] = field(default_factory=list)
    """Sources that say otherwise on this claim: ``{"doc_id", "title", "link", "sentence"}``."""

    def to_dict(self) -> dict[str, Any]:
        out = {
            "text": self.text,
            "kind": self.kind,
            "markers": list(self.markers),
            "support": self.support,
            "checks": [c.to_dict() for c in self.checks],
        }
        if self.disputed_by:
            out["disputed_by"] = [dict(d) for d in self.disputed_by]
        return out


@dataclass
class Answer:
    """A cited answer.

    ``answer`` is the draft with ``[n]`` markers inserted (less any ``withheld`` sentence); every
    marker in it has an entry in ``citations``. ``short_answer`` is the answer phrase: the one the short-answer
    mode writes, or in the answer form the one taken out of the first sentence
    (:mod:`navicite.generate.phrase`), which shares that sentence's markers.
    """

    question: str
    answer: str
    citations: list[Citation]
    sentences: list[SentenceRecord]
    language: str
    short_answer: str | None = None
    withheld: list[SentenceRecord] = field(default_factory=list)
    """Sentences left out of ``answer`` because no source supports them (``generate.unsupported=withhold``)."""
    trace: list[StageTrace] = field(default_factory=list)
    llm: dict[str, Any] = field(default_factory=dict)

    @property
    def citation_block(self) -> str:
        """The citation block, one ``[n] title — link`` line per marker; empty if nothing is cited."""
        return "\n".join(c.block_line() for c in self.citations)

    @property
    def unsupported(self) -> list[SentenceRecord]:
        """Claims no source was verified for."""
        return [s for s in self.sentences if s.kind == "unsupported"]

    def cited_with_passages(self) -> list[dict[str, Any]]:
        """Every sentence shown as cited, with the passages it cites: what a reader checks it against.

        Each item is ``{"sentence", "passages": [{"marker", "title", "place", "text"}]}``.
        """
        by_marker = {c.marker: c for c in self.citations}
        return [
            {"sentence": s.text, "passages": [
                {"marker": m, "title": by_marker[m].title, "place": by_marker[m].place, "text": by_marker[m].passage}
                for m in s.markers if m in by_marker
            ]}
            for s in self.sentences if s.kind == "cited"
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.answer,
            "short_answer": self.short_answer,
            "language": self.language,
            "citations": [c.to_dict() for c in self.citations],
            "sentences": [s.to_dict() for s in self.sentences],
            "withheld": [s.to_dict() for s in self.withheld],
            "trace": {"stages": [t.to_dict() for t in self.trace], "llm": self.llm},
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)
