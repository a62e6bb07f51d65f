"""Documents, segments, passages and sources: what navicite indexes, retrieves and cites."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from functools import cached_property
from collections.abc import Sequence
from typing import Any


def content_id(*parts: str) -> str:
    """A stable id derived from content: the first 16 hex digits of its sha256."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()
    return digest[:16]


@dataclass(frozen=True)
class Document:
    """One source: a paper, a page, a record.

    ``id`` is stable across re-ingests: taken from the record where it has one
    (a control number, DOI, BEIR ``_id``) and otherwise derived from content.
    """

    id: str
    title: str = ""
    abstract: str = ""
    text: str = ""
    link: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def fingerprint(self) -> str:
        """Hash of everything stored; an unchanged re-ingest has the same fingerprint.

        Hashed field by field: going through ``asdict`` made this the costliest step of indexing.
        """
        digest = hashlib.sha256()
        for part in (self.id, self.title, self.abstract, self.text, self.link):
            digest.update(part.encode("utf-8", "surrogatepass"))
            digest.update(b"\x1f")
        if self.metadata:
            meta = json.dumps(self.metadata, sort_keys=True, ensure_ascii=False, default=str)
            digest.update(meta.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    @property
    def word_count(self) -> int:
        """Words in abstract and text together."""
        return len(self.abstract.split()) + len(self.text.split())

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON output."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Document:
        """Inverse of :meth:`to_dict`."""
        return cls(
            id=str(data["id"]),
            title=data.get("title") or "",
            abstract=data.get("abstract") or "",
            text=data.get("text") or "",
            link=data.get("link") or "",
            metadata=dict(data.get("metadata") or {}),
        )


@dataclass(frozen=True)
class Segment:
    """A piece of a long document, remembering where it came from.

    ``start`` and ``end`` are word offsets into the document's ``text``.
    """

    doc_id: str
    index: int
    text: str
    start: int
    end: int

    @property
    def id(self) -> str:
        """``<doc_id>#<index>``, unique within a collection."""
        return f"{self.doc_id}#{self.index}"


def page_label(pages: Sequence[int]) -> str:
    """``p. 12`` for one page, ``pp. 12-13`` for a range, empty for none."""
    if not pages:
        return ""
    first, last = pages[0], pages[-1]
    return f"p. {first}" if first == last else f"pp. {first}-{last}"


def place_label(pages: Sequence[int], section: str) -> str:
    """``p. 12, §3.3 Title``: where a passage stands; a numbered section gets a §, a named one stands as it is."""
    parts = [page_label(pages)] if pages else []
    if section:
        parts.append(f"§{section}" if section[:1].isdigit() else section)
    return ", ".join(parts)


#: Metadata key of a passage stored as a :class:`Document`: the id of the document it belongs to.
PARENT_KEY = "doc_id"


@dataclass(frozen=True)
class Passage:
    """The unit that is retrieved, ranked, quoted and cited: a sentence-aligned span of one document.

    ``start``/``end`` are word offsets (end exclusive) into the document's ``field``
    (``"text"`` or ``"abstract"``); ``pages`` the 1-based first and last page it spans
    (empty where the document has no pages); ``section`` the headings enclosing it,
    outermost first. A short record is one passage whose id is the document's own.
    """

    doc_id: str
    number: int
    text: str
    start: int = 0
    end: int = 0
    field: str = "text"
    pages: tuple[int, ...] = ()
    section: tuple[str, ...] = ()
    whole: bool = False

    @property
    def id(self) -> str:
        """The document id for a whole-record passage, else ``<doc_id>#p<number>``."""
        return self.doc_id if self.whole else f"{self.doc_id}#p{self.number}"

    @property
    def page_label(self) -> str:
        """``p. 12`` or ``pp. 12-13``; empty without pages."""
        return page_label(self.pages)

    def as_document(self, parent: Document) -> Document:
        """The passage as an index entry: the parent's title and link, the passage's text and place."""
        meta: dict[str, Any] = {"number": self.number, "field": self.field, "start": self.start, "end": self.end}
        if not self.whole:  # a whole record's entry is its document's own id
            meta[PARENT_KEY] = self.doc_id
        if self.pages:
            meta["pages"] = list(self.pages)
        if self.section:
            meta["section"] = list(self.section)
        return Document(id=self.id, title=parent.title, text=self.text, link=parent.link, metadata=meta)

    @classmethod
    def from_document(cls, entry: Document) -> Passage:
        """Inverse of :meth:`as_document` (an entry without passage metadata is a whole record)."""
        meta = entry.metadata
        doc_id = str(meta.get(PARENT_KEY) or entry.id)
        return cls(
            doc_id=doc_id,
            number=int(meta.get("number", 0)),
            text=entry.text or entry.abstract,
            start=int(meta.get("start", 0)),
            end=int(meta.get("end", 0)),
            field=str(meta.get("field", "text")),
            pages=tuple(int(p) for p in meta.get("pages", ())),
            section=tuple(str(s) for s in meta.get("section", ())),
            whole=entry.id == doc_id,
        )


@dataclass(frozen=True)
class Source:
    """One candidate source as retrieval and reranking hand it over, best first."""

    doc_id: str
    title: str
    text: str
    link: str = ""
    score: float = 0.0
    passage_id: str | None = None
    pages: tuple[int, ...] = ()
    section: tuple[str, ...] = ()
    position: int = 0
    """Where the passage stands in its document (passage number), for quoting in document order."""
    round: int = 1
    """The latest retrieval round whose search found it: a later round's passage holds a hop the question does not name."""

    def listing(self, number: int) -> dict[str, Any]:
        """The source as a ``sources`` event lists it (terminal, SSE, MCP progress, chat reasoning)."""
        return {"number": number, "doc_id": self.doc_id, "title": self.title, "passage_id": self.passage_id,
                "pages": list(self.pages), "section": self.section[-1] if self.section else "", "link": self.link}
