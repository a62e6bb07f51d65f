"""One data directory's documents, their passages and their trees, kept consistent.

A collection has two lexical indexes: ``documents`` holds every document whole (what
``docs list``/``docs show`` and the tree builder read) and ``passages`` holds the passages
retrieval ranks and answers cite. Every write goes through :class:`CollectionStore`, so adding,
replacing and deleting a document changes its passages and drops its stale tree in one place.

The two indexes commit separately. A marker file is written before a document write and
removed once its passages are committed; finding it on open (a crash in between), or finding
passages cut to another ``ingest.passage_words``, rebuilds the passage index from the documents.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from navicite.config import Settings
from navicite.documents import Document, Passage
from navicite.index.base import LexicalIndex, UpsertReport
from navicite.ingest.base import Failure
from navicite.ingest.records import EmptyRecord, FieldMapping
from navicite.ingest.runner import IngestRunner, IngestSummary, ProgressCallback
from navicite.navigate.store import TreeStore
from navicite.text.passages import cut_passages

#: Written in the passage index's folder: how its passages were cut.
INFO_FILE = "navicite-passages.json"
#: Present while a document write's passages are not yet committed.
PENDING_FILE = "navicite-passages.pending"
_REBUILD_BATCH = 2000


class CollectionStore:
    """The documents, passages and knowledge trees of ``settings.home``.

    Args:
        settings: the collection's settings (``home``, ``index``, ``ingest.passage_words``).
        documents: the document index to use (default: the configured backend's).
        passages: the passage index to use (default: the configured backend's).
    """

    def __init__(self, settings: Settings, documents: LexicalIndex | None = None,
                 passages: LexicalIndex | None = None) -> None:
        self.settings = settings
        self._documents = documents
        self._passages = passages
        self._checked = False
        self._lock = threading.RLock()

    # -- parts ---------------------------------------------------------------------------------

    @property
    def documents(self) -> LexicalIndex:
        """Every document whole."""
        if self._documents is None:
            from navicite import index

            self._documents = index.create(self.settings, "documents")
        return self._documents

    @property
    def passages(self) -> LexicalIndex:
        """The passages of every document, rebuilt first if they are out of step with the documents."""
        with self._lock:  # concurrent first questions (the server) must not rebuild twice or read half a rebuild
            if self._passages is None:
                from navicite import index

                self._passages = index.create(self.settings, "passages")
            if not self._checked:
                if self._stale():
                    self.rebuild_passages()
                self._checked = True
        return self._passages

    @property
    def words(self) -> int:
        """Target words of a passage."""
        return self.settings.ingest.passage_words

    def passages_of(self, document: Document) -> list[Passage]:
        """``document`` cut into passages as this collection cuts them."""
        return cut_passages(document, self.words)

    def get(self, doc_id: str) -> Document | None:
        """A stored document by id."""
        return self.documents.get(doc_id)

    def get_passage(self, passage_id: str) -> Passage | None:
        """A stored passage by id (a whole record's passage has its document's id)."""
        entry = self.passages.get(passage_id)
        return None if entry is None else Passage.from_document(entry)

    # -- writes --------------------------------------------------------------------------------

    def ingest(self, paths: Iterable[Path | str], fmt: str = "auto", mapping: FieldMapping | None = None,
               progress: ProgressCallback | None = None, documents: Iterable[Document] = ()) -> IngestSummary:
        """Read files and folders, then ``documents``, into this collection (see :class:`~navicite.ingest.runner.IngestRunner`)."""
        return IngestRunner(self.settings, index=self, progress=progress).run(paths, fmt, mapping, documents)

    def add(self, items: Iterable[Document | Failure | EmptyRecord]) -> IngestSummary:
        """Write documents already read (by a loader, a server upload, a program) in committed batches.

        Failures and empty records in ``items`` are counted in the summary, not written; a
        document with nothing to index is counted as empty.
        """
        return IngestRunner(self.settings, index=self).add(items)

    def upsert(self, documents: Iterable[Document]) -> UpsertReport:
        """Add new documents, replace changed ones (their passages and trees go with them), skip unchanged ones."""
        batch = list(documents)
        passages = self.passages  # checked before the write, so a rebuild never sees half of it
        with self._pending():
            report = self.documents.upsert(batch)
            changed = set(report.added) | set(report.replaced)
            if report.replaced:
                passages.delete(report.replaced)
            latest = {doc.id: doc for doc in batch if doc.id in changed}
            passages.upsert(p.as_document(doc) for doc in latest.values() for p in self.passages_of(doc))
        if report.replaced:
            self._drop_trees(report.replaced, keep_summaries=True)
        return report

    def delete(self, doc_ids: Iterable[str]) -> list[str]:
        """Remove documents with their passages and trees; returns the ids that existed."""
        wanted = list(doc_ids)
        passages = self.passages
        with self._pending():
            gone = self.documents.delete(wanted)
            if gone:
                passages.delete(gone)
        if gone:
            self._drop_trees(gone)
        return gone

    def rebuild_passages(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Cut every document again into a fresh passage index; returns the passages written."""
        assert self._passages is not None
        folder = self.settings.passage_index_dir
        self._passages.delete(list(self.documents.ids()))
        total, written, done = self.documents.count(), 0, 0
        for chunk in _chunks(self.documents.ids(), _REBUILD_BATCH):
            entries = []
            for doc_id in chunk:
                doc = self.documents.get(doc_id)
                if doc is not None:
                    entries.extend(p.as_document(doc) for p in self.passages_of(doc))
            self._passages.upsert(entries)
            written += len(entries)
            done += len(chunk)
            if progress is not None:
                progress(done, total)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / INFO_FILE).write_text(json.dumps({"passage_words": self.words}) + "\n")
        _record_shared_cut(self._passages, self.words)
        (folder / PENDING_FILE).unlink(missing_ok=True)
        return written

    def close(self) -> None:
        """Release write resources of both indexes."""
        for part in (self._documents, self._passages):
            if part is not None:
                part.close()

    # -- consistency ---------------------------------------------------------------------------

    def _stale(self) -> bool:
        folder = self.settings.passage_index_dir
        if (folder / PENDING_FILE).exists():
            return True
        if self.documents.count() == 0:
            return False
        try:
            info = json.loads((folder / INFO_FILE).read_text())
        except (OSError, ValueError):
            # A cluster index keeps the cut itself: another process's data directory lacks the file.
            info = _shared_cut(self._passages)
            if info is None:
                return True  # documents without a passage index: a collection of the first release
        return info.get("passage_words") != self.words

    def _pending(self) -> _Pending:
        return _Pending(self.settings.passage_index_dir, self.words, self._passages)

    def _drop_trees(self, doc_ids: list[str], keep_summaries: bool = False) -> None:
        """A replaced document's node summaries stay, so rebuilding its tree asks only for what changed."""
        store = TreeStore.existing(self.settings)
        if store is not None:
            store.delete(doc_ids, keep_summaries)


class _Pending:
    """Marks a write whose passages are not committed yet; records the cut once they are."""

    def __init__(self, folder: Path, words: int, passages: LexicalIndex | None = None) -> None:
        self.folder = folder
        self.words = words
        self.passages = passages

    def __enter__(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / PENDING_FILE).write_text("")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            (self.folder / INFO_FILE).write_text(json.dumps({"passage_words": self.words}) + "\n")
            _record_shared_cut(self.passages, self.words)
            (self.folder / PENDING_FILE).unlink(missing_ok=True)


def _shared_cut(passages: LexicalIndex | None) -> dict[str, Any] | None:
    """How the passages were cut, as a shared index (a cluster) records it for every process; None elsewhere."""
    read = getattr(passages, "shared_info", None)
    return read() if callable(read) else None


def _record_shared_cut(passages: LexicalIndex | None, words: int) -> None:
    write = getattr(passages, "record_shared_info", None)
    if callable(write):
        write({"passage_words": words})


def _chunks(ids: Iterator[str], size: int) -> Iterator[list[str]]:
    chunk: list[str] = []
    for doc_id in ids:
        chunk.append(doc_id)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
