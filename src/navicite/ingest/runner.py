"""The ingest stage: paths (or documents already read) in, documents upserted into the index in committed batches."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any, Protocol

from navicite.config import Settings
from navicite.documents import Document
from navicite.index.base import UpsertReport
from navicite.ingest.base import Failure
from navicite.ingest.detect import plan_paths
from navicite.ingest.loaders import load
from navicite.ingest.records import EmptyRecord, FieldMapping, RecordStream, nothing_to_index

# What happened to an id in this run; a later batch can only raise the rank
# (a duplicate that replaces a document added earlier in the run still counts as added).
_RANK = {"unchanged": 0, "replaced": 1, "added": 2}


@dataclass(frozen=True)
class IngestProgress:
    """Where a running ingest is, for a progress bar."""

    files_total: int
    files_done: int
    documents: int
    failed: int
    current: str


ProgressCallback = Callable[[IngestProgress], None]


@dataclass
class IngestSummary:
    """What one ingest did.

    ``added``/``replaced``/``unchanged`` count distinct document ids; ``duplicates``
    are ids that occurred more than once in the run (the last occurrence was kept);
    ``skipped`` are files inside folders that are of no known format; ``repeated`` are
    folders reached again through a symbolic link, not read twice; ``empty``
    are records with no title, abstract or text, left out without failing the run.
    """

    added: int = 0
    replaced: int = 0
    unchanged: int = 0
    failed: list[Failure] = field(default_factory=list)
    seconds: float = 0.0
    duplicates: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    empty: list[EmptyRecord] = field(default_factory=list)
    repeated: list[str] = field(default_factory=list)

    @property
    def documents(self) -> int:
        """Distinct documents read successfully."""
        return self.added + self.replaced + self.unchanged

    @property
    def docs_per_second(self) -> float:
        return self.documents / self.seconds if self.seconds > 0 else 0.0

    @property
    def ok(self) -> bool:
        """True when nothing failed."""
        return not self.failed

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for ``--json``."""
        return {
            "added": self.added,
            "replaced": self.replaced,
            "unchanged": self.unchanged,
            "failed": [{"path": f.path, "reason": f.reason} for f in self.failed],
            "duplicates": self.duplicates,
            "skipped": self.skipped,
            "repeated_folders": self.repeated,
            # Ids only: places name files, which a server must not show its clients.
            "empty": len(self.empty),
            "empty_ids": [e.id for e in self.empty if e.id],
            "seconds": round(self.seconds, 3),
            "docs_per_second": round(self.docs_per_second, 1),
        }


class _Tally:
    """Per-id outcome across batches, so counts stay per distinct document."""

    def __init__(self) -> None:
        self.outcome: dict[str, str] = {}

    def record(self, report: UpsertReport) -> None:
        for outcome, ids in (("added", report.added), ("replaced", report.replaced), ("unchanged", report.unchanged)):
            for doc_id in ids:
                previous = self.outcome.get(doc_id)
                if previous is None or _RANK[outcome] > _RANK[previous]:
                    self.outcome[doc_id] = outcome

    def count(self, outcome: str) -> int:
        return sum(1 for value in self.outcome.values() if value == outcome)


class DocumentSink(Protocol):
    """Where ingest writes: a collection (or anything that upserts documents as one)."""

    def upsert(self, documents: Iterable[Document], originals: Mapping[str, Path] | None = None) -> UpsertReport:
        """Add new documents, replace changed ones, skip unchanged ones; one commit.

        ``originals``: the files some of them were read from, for the sink to keep a copy of.
        """
        ...


class IngestRunner:
    """Reads files, and upserts their documents into the index in batches of ``settings.ingest.batch_size``.

    Each batch is one commit, so if the process dies mid-way every completed
    batch stays in the index. Duplicate ids within a run: the last one wins.
    """

    def __init__(
        self,
        settings: Settings,
        index: DocumentSink,
        progress: ProgressCallback | None = None,
    ) -> None:
        self.settings = settings
        self._index = index
        self._progress = progress
        # Where the run is, for progress: (files, files done, current file); none for documents given as objects.
        self._at: tuple[list[tuple[Path, str]], int, str] | None = None
        self._seen: dict[str, None] = {}
        self._summary = IngestSummary()
        # Document id -> the PDF it was read from, for the collection to keep a copy of (the viewer shows it).
        self._originals: Mapping[str, Path] = {}

    def run(self, paths: Iterable[Path | str], fmt: str = "auto", mapping: FieldMapping | None = None,
            documents: Iterable[Document] = ()) -> IngestSummary:
        """Ingest files and folders, then ``documents`` given as objects.

        Raises:
            UserInputError: a path does not exist or the format is unknown (checked
                before anything is written, so nothing changes).
        """
        started = time.perf_counter()
        plan = plan_paths([Path(p) for p in paths], fmt)
        summary = IngestSummary(failed=list(plan.failures), skipped=[str(p) for p in plan.skipped],
                                repeated=[str(p) for p in plan.repeated])
        return self._write(chain(self._read(plan.items, mapping), documents), summary, started)

    def add(self, items: Iterable[Document | Failure | EmptyRecord],
            originals: Mapping[str, Path] | None = None) -> IngestSummary:
        """Ingest documents already read (a loader's stream: failures and empty records are counted, not written).

        ``originals``: document id -> the file it was read from, to keep a copy of; it may be
        filled while ``items`` is read, as long as an id is in it before its document is yielded.
        """
        if originals is not None:
            self._originals = originals
        return self._write(items, IngestSummary(), time.perf_counter())

    def _read(self, items: list[tuple[Path, str]], mapping: FieldMapping | None) -> RecordStream:
        originals: dict[str, Path] = {}
        self._originals = originals
        for done, (path, file_format) in enumerate(items):
            self._at = (items, done, str(path))
            for item in load(path, file_format, mapping):
                if file_format == "pdf" and isinstance(item, Document):
                    originals[item.id] = path
                yield item
            self._at = (items, done + 1, str(path))
            self._report()

    def _write(self, items: Iterable[Document | Failure | EmptyRecord], summary: IngestSummary, started: float) -> IngestSummary:
        index = self._index
        tally = _Tally()
        seen: dict[str, None] = {}
        duplicates: dict[str, None] = {}
        pending: dict[str, Document] = {}
        batch_size = self.settings.ingest.batch_size
        self._seen, self._summary = seen, summary

        def flush() -> None:
            if pending:
                kept = {doc_id: self._originals[doc_id] for doc_id in pending if doc_id in self._originals}
                report = index.upsert(list(pending.values()), kept or None)
                tally.record(report)
                pending.clear()

        for item in items:
            if isinstance(item, Document) and nothing_to_index(item.title, item.abstract, item.text):
                item = EmptyRecord("Document", item.id)  # the same rule as for records read from files
            if isinstance(item, Failure):
                summary.failed.append(item)
                continue
            if isinstance(item, EmptyRecord):
                summary.empty.append(item)
                continue
            if item.id in seen:
                duplicates[item.id] = None
                pending.pop(item.id, None)  # re-inserted below, so the last occurrence keeps its place
            seen[item.id] = None
            pending[item.id] = item
            if len(pending) >= batch_size:
                flush()
                self._report()
        flush()
        summary.added, summary.replaced, summary.unchanged = (tally.count(o) for o in ("added", "replaced", "unchanged"))
        summary.duplicates = list(duplicates)
        summary.seconds = time.perf_counter() - started
        return summary

    def _report(self) -> None:
        if self._progress and self._at is not None:
            items, done, current = self._at
            self._progress(IngestProgress(len(items), done, len(self._seen), len(self._summary.failed), current))

