"""The knowledge tree of one long document: titled nodes over the document's segments.

Every node has a title and content: paragraphs, each marked with the indices of the
segments it was drawn from, so any summary can be traced back to original text. A
leaf additionally points to the segments themselves (``segments``); the segment
texts travel with the tree so navigation can hand out original passages without
re-reading the index.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from navicite.text.tokens import estimate_tokens


def token_count(text: str) -> int:
    """Tokens of ``text`` for budgets; an estimate, so a tree's sizes do not depend on the model."""
    return estimate_tokens(text)


_WORD = re.compile(r"\w+", re.UNICODE)


def words_of(text: str) -> set[str]:
    """Lower-case words of ``text``, for word-overlap choices (fallbacks when the model fails)."""
    return {w.lower() for w in _WORD.findall(text)}


def normalise_title(title: str) -> str:
    """A title reduced for comparison: lower case, single spaces, no surrounding punctuation."""
    return " ".join(title.lower().split()).strip(" .:;,-\"'")


@dataclass
class Paragraph:
    """One paragraph of a node's content and the segments it came from."""

    text: str
    sources: list[int]

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON."""
        return {"text": self.text, "sources": list(self.sources)}


@dataclass
class Node:
    """A titled node. Leaves have no children and point to segments."""

    id: str
    title: str
    paragraphs: list[Paragraph] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)
    segments: list[int] = field(default_factory=list)

    @property
    def is_leaf(self) -> bool:
        """Whether the node has no children."""
        return not self.children

    @property
    def content(self) -> str:
        """The paragraphs as one text, a blank line between them."""
        return "\n\n".join(p.text for p in self.paragraphs)

    @property
    def tokens(self) -> int:
        """Size of the content, as counted against the budget."""
        return token_count(self.content)

    def sources(self) -> set[int]:
        """Segment indices cited in this node's own content."""
        return {s for p in self.paragraphs for s in p.sources}

    def reachable_segments(self) -> set[int]:
        """Segments pointed to by the leaves of this subtree."""
        if self.is_leaf:
            return set(self.segments)
        return set().union(*(child.reachable_segments() for child in self.children))

    def walk(self, path: tuple[str, ...] = ()) -> Iterator[tuple[Node, tuple[str, ...]]]:
        """This node and every descendant, depth first, each with its path of titles (root excluded)."""
        yield self, path
        for child in self.children:
            yield from child.walk((*path, child.title))

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON (recursive)."""
        return {
            "id": self.id,
            "title": self.title,
            "paragraphs": [p.to_dict() for p in self.paragraphs],
            "segments": list(self.segments),
            "children": [c.to_dict() for c in self.children],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Node:
        """Inverse of :meth:`to_dict`."""
        return cls(
            id=str(data["id"]),
            title=str(data["title"]),
            paragraphs=[Paragraph(str(p["text"]), [int(s) for s in p["sources"]]) for p in data.get("paragraphs", [])],
            segments=[int(s) for s in data.get("segments", [])],
            children=[cls.from_dict(c) for c in data.get("children", [])],
        )


@dataclass(frozen=True)
class SegmentRef:
    """An original passage of the document: its index, word span in the text, and text."""

    index: int
    start: int
    end: int
    text: str

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON."""
        return {"index": self.index, "start": self.start, "end": self.end, "text": self.text}


def passage_tokens(segments: Sequence[SegmentRef], indices: Iterable[int]) -> int:
    """Tokens of the original text that the segments ``indices`` cover, words shared by overlapping segments counted once.

    This is what a leaf costs to read, so it is what the leaf budget bounds; unknown indices count nothing.
    """
    total, covered = 0, 0
    for i in sorted(set(indices)):
        if not 0 <= i < len(segments):
            continue
        seg = segments[i]
        length = max(1, seg.end - seg.start)
        new = max(0, seg.end - max(seg.start, covered))
        total += math.ceil(token_count(seg.text) * min(new, length) / length)
        covered = max(covered, seg.end)
    return total


@dataclass
class BuildCost:
    """What building one tree cost, and per 1,000 document tokens."""

    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    document_tokens: int = 0
    segments: int = 0
    #: Optional calls (split, naming, refine) the build's call budget declined.
    declined_calls: int = 0

    @property
    def calls_per_1k_tokens(self) -> float:
        """Model calls per 1,000 tokens of document."""
        return 1000 * self.calls / self.document_tokens if self.document_tokens else 0.0

    @property
    def tokens_per_1k_tokens(self) -> float:
        """Model tokens (prompt and completion) per 1,000 tokens of document."""
        return 1000 * (self.prompt_tokens + self.completion_tokens) / self.document_tokens if self.document_tokens else 0.0

    @property
    def calls_per_segment(self) -> float:
        """Model calls per segment (the design goal is at most 1.5 for 512-word segments)."""
        return self.calls / self.segments if self.segments else 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON, derived ratios included."""
        return {
            "calls": self.calls,
            "cache_hits": self.cache_hits,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "seconds": round(self.seconds, 2),
            "document_tokens": self.document_tokens,
            "segments": self.segments,
            "declined_calls": self.declined_calls,
            "calls_per_1k_tokens": round(self.calls_per_1k_tokens, 3),
            "tokens_per_1k_tokens": round(self.tokens_per_1k_tokens, 1),
            "calls_per_segment": round(self.calls_per_segment, 3),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BuildCost:
        """Inverse of :meth:`to_dict` (the ratios are recomputed)."""
        keys = (
            "calls", "cache_hits", "prompt_tokens", "completion_tokens", "seconds", "document_tokens", "segments", "declined_calls",
        )
        return cls(**{k: data[k] for k in keys if k in data})


@dataclass
class KnowledgeTree:
    """The tree of one document, tied to the document version (``fingerprint``) it was built from.

    ``source`` says where its shape comes from: ``"llm"`` (the model organised the document's
    segments) or the document's own structure, ``"outline"`` (PDF bookmarks) or ``"headings"``;
    ``units`` what ``segments`` are: overlapping segments, or the document's passages as the
    index holds them (segment ``i`` is passage ``<doc_id>#p<i>``), as structure trees have.
    ``memo`` holds the model's node summaries by what they were written from; the store keeps it
    beside the tree (not in it), so a rebuild of a changed document asks again only for the
    nodes whose text changed.
    """

    doc_id: str
    fingerprint: str
    root: Node
    segments: list[SegmentRef]
    cost: BuildCost = field(default_factory=BuildCost)
    limits: dict[str, int] = field(default_factory=dict)
    source: str = "llm"
    units: Literal["segments", "passages"] = "segments"
    memo: dict[str, str] = field(default_factory=dict)

    def node(self, node_id: str) -> Node | None:
        """The node with ``node_id``, if any."""
        return next((n for n, _ in self.root.walk() if n.id == node_id), None)

    def nodes(self) -> Iterator[tuple[Node, tuple[str, ...]]]:
        """Every node with its path of titles."""
        return self.root.walk()

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON and storage."""
        return {
            "doc_id": self.doc_id,
            "fingerprint": self.fingerprint,
            "root": self.root.to_dict(),
            "segments": [s.to_dict() for s in self.segments],
            "cost": self.cost.to_dict(),
            "limits": dict(self.limits),
            "source": self.source,
            "units": self.units,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KnowledgeTree:
        """Inverse of :meth:`to_dict`."""
        return cls(
            doc_id=str(data["doc_id"]),
            fingerprint=str(data["fingerprint"]),
            root=Node.from_dict(data["root"]),
            segments=[SegmentRef(int(s["index"]), int(s["start"]), int(s["end"]), str(s["text"])) for s in data["segments"]],
            cost=BuildCost.from_dict(data.get("cost", {})),
            limits={k: int(v) for k, v in data.get("limits", {}).items()},
            source=str(data.get("source", "llm")),
            units="passages" if data.get("units") == "passages" else "segments",
        )
