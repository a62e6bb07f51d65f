"""Documents and segments: what navicite indexes, retrieves and cites."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from functools import cached_property
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
