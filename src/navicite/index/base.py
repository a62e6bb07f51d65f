"""The lexical index seam: what every backend (tantivy, OpenSearch, ...) offers."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from navicite.documents import Document
from navicite.index.query import Query


#: Marks around the matched words in :attr:`Hit.snippet` (Markdown bold), e.g. ``the **gene** of``.
HIGHLIGHT_START, HIGHLIGHT_END = "**", "**"


@dataclass(frozen=True)
class Hit:
    """One search result; ``snippet`` marks matched words with :data:`HIGHLIGHT_START`/:data:`HIGHLIGHT_END`.

    ``parent`` is the document a passage hit belongs to (empty for a whole document or record).
    """

    doc_id: str
    score: float
    title: str
    snippet: str = ""
    link: str = ""
    parent: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.doc_id, "title": self.title, "score": self.score, "snippet": self.snippet, "link": self.link}


@dataclass
class UpsertReport:
    """What an ingest did to the index."""

    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class IndexStats:
    """Size and make-up of a collection."""

    documents: int
    languages: dict[str, int] = field(default_factory=dict)
    size_bytes: int = 0


def latest_by_id(documents: Iterable[Document], key: Callable[[str], str] = str) -> dict[str, Document]:
    """The documents of one write by id (``key(doc.id)``), a later one of the same id winning, in order.

    Raises:
        IndexStoreError: a document has an empty id.
    """
    from navicite.errors import IndexStoreError

    batch: dict[str, Document] = {}
    for doc in documents:
        if not doc.id:
            raise IndexStoreError("a document has an empty id; every document needs one")
        doc_id = key(doc.id)
        batch.pop(doc_id, None)
        batch[doc_id] = doc
    return batch


@runtime_checkable
class LexicalIndex(Protocol):
    """A BM25 index of documents with Boolean queries.

    Writes are atomic per call: after a crash the index shows the state of the
    last completed ``upsert``/``delete``. Readers keep working while a writer commits.
    """

    def upsert(self, documents: Iterable[Document]) -> UpsertReport:
        """Add new documents, replace changed ones (same id), skip unchanged ones; one commit."""
        ...

    def delete(self, doc_ids: Iterable[str]) -> list[str]:
        """Remove documents by id; returns the ids that existed. One commit."""
        ...

    def search(self, query: Query, k: int = 10, snippets: bool = False) -> list[Hit]:
        """Top ``k`` documents for a query AST, best first."""
        ...

    def get(self, doc_id: str) -> Document | None:
        """The stored document, or None."""
        ...

    def ids(self) -> Iterator[str]:
        """Every document id."""
        ...

    def count(self) -> int:
        """Number of documents."""
        ...

    def stats(self) -> IndexStats:
        """Counts, languages and size on disk."""
        ...

    def close(self) -> None:
        """Give up write resources (e.g. a writer lock) now; the index stays usable and reopens them on demand."""
        ...
