"""What navigation returns: evidence with the path that led to it, notes, and the trace."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class Evidence:
    """A node summary or an original passage, with the titles from the document down to it.

    ``segments`` are the segment indices the text comes from (a passage has one);
    ``start``/``end`` are a passage's word offsets in the document text; ``via`` says whether
    the walk chose it or the BM25 fill added it (its path is then where it sits in the tree,
    not a path the agent took).
    """

    doc_id: str
    kind: Literal["summary", "passage"]
    text: str
    path: tuple[str, ...]
    node_id: str
    segments: tuple[int, ...]
    start: int | None = None
    end: int | None = None
    via: Literal["navigation", "fill"] = "navigation"

    @property
    def key(self) -> tuple[str, str, str, tuple[int, ...]]:
        """Identity for de-duplication."""
        return (self.doc_id, self.kind, self.node_id, self.segments)

    @property
    def path_label(self) -> str:
        """The path as one line, e.g. ``Report > Finances > Budget 2021``."""
        return " > ".join(self.path)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON (the path as a list)."""
        data = asdict(self)
        data["path"] = list(self.path)
        data["segments"] = list(self.segments)
        return data


@dataclass(frozen=True)
class Note:
    """A fact the memory variant kept, tied to the node or passage it was read from."""

    fact: str
    path: tuple[str, ...]
    segments: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON."""
        return {"fact": self.fact, "path": list(self.path), "segments": list(self.segments)}


@dataclass(frozen=True)
class TraceStep:
    """One navigation step: where it was, what it decided, what was still missing afterwards."""

    kind: Literal["classify", "level", "leaf", "fill"]
    path: tuple[str, ...]
    decision: dict[str, Any]
    gap: str
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON."""
        return {"kind": self.kind, "path": list(self.path), "decision": self.decision, "gap": self.gap, "error": self.error}


@dataclass
class Navigation:
    """The outcome of navigating one document's tree for one question."""

    question: str
    doc_id: str
    evidence: list[Evidence] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    trace: list[TraceStep] = field(default_factory=list)
    gap: str = ""
    closed: bool = False
    steps: int = 0
    question_kind: str | None = None
    #: What the tree's segments are: "segments", or "passages" (segment i is passage <doc_id>#p<i>).
    units: str = "segments"

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON."""
        return {
            "question": self.question,
            "doc_id": self.doc_id,
            "evidence": [e.to_dict() for e in self.evidence],
            "notes": [n.to_dict() for n in self.notes],
            "trace": [t.to_dict() for t in self.trace],
            "gap": self.gap,
            "closed": self.closed,
            "steps": self.steps,
            "question_kind": self.question_kind,
            "units": self.units,
        }
