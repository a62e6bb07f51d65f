"""One data directory's documents, their passages and their trees, kept consistent.

A collection has two lexical indexes (and a ledger, :class:`~navicite.ingest.library.Library`,
of when each document came, its passage count and a copy of its original PDF): ``documents`` holds every document whole (what
``docs list``/``docs show`` and the tree builder read) and ``passages`` holds the passages
retrieval ranks and answers cite. Every write goes through :class:`CollectionStore`, so adding,
replacing and deleting a document changes its passages and drops its stale tree in one place.

The two indexes commit separately. A marker file is written before a document write and
removed once its passages are committed; finding it on open (a crash in between), or finding
passages cut to another ``ingest.passage_words``, repairs the passage index from the documents:
every document is cut again and every entry no document gives goes (those of documents deleted
by the interrupted write too). A delete removes what is derived from a document (its vectors, its tree,
its passages) before the document itself, so a crash never leaves derived data without a source.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

from navicite.config import Settings
from navicite.documents import Document, Passage
from navicite.errors import DiskFullError, IndexStoreError
from navicite.index.base import LexicalIndex, UpsertReport
from navicite.ingest.base import Failure
from navicite.ingest.library import Library, LibraryRecord
from navicite.ingest.records import EmptyRecord, FieldMapping
from navicite.ingest.runner import IngestRunner, IngestSummary, ProgressCallback
from navicite.navigate.store import TreeStore
from navicite.rerank.base import candidate_text
from navicite.text.passages import cut_passages
from navicite.vectors import STORE_FILE, VectorStore, text_key

#: Written in the passage index's folder: how its passages were cut.
INFO_FILE = "navicite-passages.json"
#: Present while a document write's passages are not yet committed.
PENDING_FILE = "navicite-passages.pending"
#: Room kept in the data directory and given up when a write finds the disk full, so that taking
#: the failed batch back (a delete: a few small files) can still be written.
RESERVE_FILE = "navicite-reserve"
RESERVE_BYTES = 512 * 1024
#: Raised when a release's repair must run once on older passage indexes: 2 removes the passages
#: an interrupted ``docs delete`` of an earlier release left without their document.
REPAIR_LEVEL = 2
_REBUILD_BATCH = 2000

log = logging.getLogger(__name__)


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
        """The passages of every document, rebuilt first if they are out of step with the documents.

        A repair that cannot be written (a full disk, a read-only data directory) is logged and the
        passages are read as they are: a read never fails for a write it did not ask for. The next
        write repairs them first, or fails.
        """
        return self._checked_passages(strict=False)

    def _checked_passages(self, strict: bool) -> LexicalIndex:
        with self._lock:  # concurrent first questions (the server) must not rebuild twice or read half a rebuild
            if self._passages is None:
                from navicite import index

                self._passages = index.create(self.settings, "passages")
            if not self._checked and self._stale():
                try:
                    self.rebuild_passages()
                except (OSError, IndexStoreError) as exc:
                    if strict:
                        raise
                    log.warning("the passage index could not be repaired (%s); reading it as it is", exc)
                    return self._passages  # not marked checked: the next write tries again
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

    @cached_property
    def library(self) -> Library:
        """When each document was added, its passage count and its kept original file."""
        return Library(self.settings.home)

    def records(self, doc_ids: Iterable[str]) -> dict[str, LibraryRecord]:
        """The library entries of ``doc_ids`` (documents added before the ledger existed have none)."""
        return self.library.get(doc_ids)

    def original(self, doc_id: str) -> Path | None:
        """The kept copy of the file a document was read from (PDFs), or None."""
        return self.library.original(doc_id)

    def get_passage(self, passage_id: str) -> Passage | None:
        """A stored passage by id (a whole record's passage has its document's id)."""
        entry = self.passages.get(passage_id)
        return None if entry is None else Passage.from_document(entry)

    # -- writes --------------------------------------------------------------------------------

    def ingest(self, paths: Iterable[Path | str], fmt: str = "auto", mapping: FieldMapping | None = None,
               progress: ProgressCallback | None = None, documents: Iterable[Document] = ()) -> IngestSummary:
        """Read files and folders, then ``documents``, into this collection (see :class:`~navicite.ingest.runner.IngestRunner`)."""
        return IngestRunner(self.settings, index=self, progress=progress).run(paths, fmt, mapping, documents)

    def add(self, items: Iterable[Document | Failure | EmptyRecord],
            originals: Mapping[str, Path] | None = None) -> IngestSummary:
        """Write documents already read (by a loader, a server upload, a program) in committed batches.

        Failures and empty records in ``items`` are counted in the summary, not written; a
        document with nothing to index is counted as empty. ``originals``: document id -> the
        file it was read from, to keep a copy of (filled at the latest as its document is read).
        """
        return IngestRunner(self.settings, index=self).add(items, originals)

    def upsert(self, documents: Iterable[Document], originals: Mapping[str, Path] | None = None) -> UpsertReport:
        """Add new documents, replace changed ones (their passages and trees go with them), skip unchanged ones.

        ``originals`` maps document ids to the files they were read from, to keep a copy of (PDFs, for the viewer).
        """
        batch = list(documents)
        passages = self._checked_passages(strict=True)  # checked before the write, so a rebuild never sees half of it
        self._keep_reserve()
        with self._pending() as pending:
            report = self.documents.upsert(batch)
            pending.changed = True
            changed = set(report.added) | set(report.replaced)
            latest = {doc.id: doc for doc in batch if doc.id in changed}
            cut = {doc_id: self.passages_of(doc) for doc_id, doc in latest.items()}
            try:
                if report.replaced:
                    passages.delete(report.replaced)
                passages.upsert(p.as_document(latest[doc_id]) for doc_id, parts in cut.items() for p in parts)
            except BaseException:
                # A batch of new documents whose passages could not be written (a full disk) is
                # taken back whole; replaced documents lost their old passages, so the repair is due.
                (self.settings.home / RESERVE_FILE).unlink(missing_ok=True)
                if not report.replaced and self._take_back(report.added):
                    pending.changed = False
                raise
        self.library.record({doc_id: len(parts) for doc_id, parts in cut.items()}, originals)
        if originals and report.unchanged:
            self.library.keep_missing({i: originals[i] for i in report.unchanged if i in originals})
        if report.replaced:
            self._drop_trees(report.replaced, keep_summaries=True)
        return report

    def delete(self, doc_ids: Iterable[str]) -> list[str]:
        """Remove documents with everything derived from them (vectors, trees, kept files, passages); returns the ids that existed.

        Derived data goes first and the documents last: a crash part-way leaves documents that lost
        some derived data (recomputed when needed; the passages by the repair the marker asks
        for), never passages or vectors of a document that is gone.
        """
        wanted = list(dict.fromkeys(doc_ids))
        passages = self._checked_passages(strict=True)
        existing = [doc for doc in map(self.documents.get, wanted) if doc is not None]
        if not existing:
            return []
        self._drop_vectors(existing)
        self._drop_trees([doc.id for doc in existing])
        self.library.delete([doc.id for doc in existing])
        with self._pending() as pending:
            passages.delete(wanted)
            pending.changed = True
            return self.documents.delete(wanted)

    def rebuild_passages(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Bring the passage index in step with the documents; returns the passage entries written.

        Every document is cut again and its entries upserted (those already right are left as
        they are), then every entry that no document gives any more is removed: the passages of
        documents an interrupted delete removed, or of an older cut. Nothing is cleared first, so a
        repair that fails part-way (a full disk) leaves no fewer right passages than it found.
        """
        assert self._passages is not None
        folder = self.settings.passage_index_dir
        expected: set[str] = set()
        total, written, done = self.documents.count(), 0, 0
        for chunk in _chunks(self.documents.ids(), _REBUILD_BATCH):
            entries, counts = self._entries(chunk)
            expected.update(entry.id for entry in entries)
            report = self._passages.upsert(entries)
            self.library.set_passages(counts)
            written += len(report.added) + len(report.replaced)
            done += len(chunk)
            if progress is not None:
                progress(done, total)
        stale = [entry_id for entry_id in self._passages.ids() if entry_id not in expected]
        if stale:
            self._passages.delete(stale)
            # Deleting an id deletes the entries naming it as their parent too: a whole record
            # since cut into several passages needs its new ones written again.
            regained, _ = self._entries([doc_id for doc_id in stale if self.documents.get(doc_id) is not None])
            written += len(self._passages.upsert(regained).added)
        folder.mkdir(parents=True, exist_ok=True)
        _write_info(folder, self.words)
        _record_shared_cut(self._passages, self.words)
        (folder / PENDING_FILE).unlink(missing_ok=True)
        return written

    def _entries(self, doc_ids: list[str]) -> tuple[list[Document], dict[str, int]]:
        """The passage entries of the given documents, as this collection cuts them, and each one's count."""
        entries: list[Document] = []
        counts: dict[str, int] = {}
        for doc_id in doc_ids:
            doc = self.documents.get(doc_id)
            if doc is not None:
                parts = self.passages_of(doc)
                counts[doc_id] = len(parts)
                entries.extend(p.as_document(doc) for p in parts)
        return entries, counts

    def close(self) -> None:
        """Release write resources of both indexes."""
        for part in (self._documents, self._passages):
            if part is not None:
                part.close()
        if "library" in self.__dict__:
            self.library.close()

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
            shared = _shared_cut(self._passages)
            if shared is None:
                return True  # documents without a passage index: a collection of the first release
            return shared.get("passage_words") != self.words
        return info.get("passage_words") != self.words or info.get("repair", 1) < REPAIR_LEVEL

    def _pending(self) -> _Pending:
        return _Pending(self.settings.passage_index_dir, self.words, self._passages)

    def _keep_reserve(self) -> None:
        """Make sure the reserve is there before a write; a disk without room for it is full already."""
        path = self.settings.home / RESERVE_FILE
        if path.is_file() and path.stat().st_size >= RESERVE_BYTES:
            return
        try:
            self.settings.home.mkdir(parents=True, exist_ok=True)
            with path.open("wb") as handle:
                handle.write(os.urandom(RESERVE_BYTES))  # not zeros: a compressing file system would keep no room
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            path.unlink(missing_ok=True)
            if exc.errno == errno.ENOSPC:
                raise DiskFullError(str(self.settings.home)) from exc
            raise

    def _take_back(self, doc_ids: list[str]) -> bool:
        """Delete documents just added; False when that fails too (the error being handled is the one to report)."""
        try:
            self.documents.delete(doc_ids)
        except Exception:
            return False
        return True

    def _drop_vectors(self, docs: list[Document]) -> None:
        """Forget the stored vectors of ``docs`` and their passages, and their rows in the document vector table."""
        path = self.settings.home / STORE_FILE
        if not path.is_file():
            return
        ids: list[str] = []
        keys: set[str] = set()
        for doc in docs:
            ids.append(doc.id)
            keys.add(text_key(candidate_text(doc)))
            for passage in self.passages_of(doc):
                ids.append(passage.id)
                keys.add(text_key(candidate_text(passage.as_document(doc))))
        with VectorStore(path, self.settings.embed.model) as store:
            store.forget(ids, keys)

    def _drop_trees(self, doc_ids: list[str], keep_summaries: bool = False) -> None:
        """A replaced document's node summaries stay, so rebuilding its tree asks only for what changed."""
        store = TreeStore.existing(self.settings)
        if store is not None:
            store.delete(doc_ids, keep_summaries)


class _Pending:
    """Marks a write whose passages are not committed yet; records the cut once they are.

    The writer sets :attr:`changed` once its first index write has committed. A write that
    fails before that changed nothing (each index write is atomic), so its marker goes too and
    no repair is asked of the next read.
    """

    def __init__(self, folder: Path, words: int, passages: LexicalIndex | None = None) -> None:
        self.folder = folder
        self.words = words
        self.passages = passages
        self.changed = False

    def __enter__(self) -> _Pending:
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / PENDING_FILE).write_text("")
        return self

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            _write_info(self.folder, self.words)
            _record_shared_cut(self.passages, self.words)
        if exc_type is None or not self.changed:
            (self.folder / PENDING_FILE).unlink(missing_ok=True)


def _write_info(folder: Path, words: int) -> None:
    (folder / INFO_FILE).write_text(json.dumps({"passage_words": words, "repair": REPAIR_LEVEL}) + "\n")


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
