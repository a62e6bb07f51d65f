"""What a collection remembers about each document beside its text: when it came, how many
passages it has, and a copy of its original file.

The web page's library lists documents with the time they were added and their passage count,
and its viewer shows a cited PDF page as it was typeset. Neither can be read back from the
lexical index (a time in a document's metadata would change its fingerprint on every re-ingest),
so they live here: one SQLite file, ``library.sqlite`` in the collection's home, and a ``files/``
folder with one copy per kept original, named by a hash of the document id so no id ever
becomes a path. :class:`~navicite.collection.CollectionStore` writes it with every add, replace
and delete, so an entry never outlives its document.
"""

from __future__ import annotations

import shutil
import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from navicite.documents import content_id
from navicite.sqlite_wal import enable_wal

DB_FILE = "library.sqlite"
FILES_DIR = "files"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    id TEXT PRIMARY KEY,
    added REAL NOT NULL,
    updated REAL NOT NULL,
    passages INTEGER NOT NULL,
    file TEXT
)
"""


@dataclass(frozen=True)
class LibraryRecord:
    """One document's entry: seconds since the epoch it was first added and last changed, its
    passage count, and the name of its kept original under ``files/`` (empty if none)."""

    doc_id: str
    added: float
    updated: float
    passages: int
    file: str = ""


class Library:
    """The ``library.sqlite`` ledger and ``files/`` folder of one collection home.

    Nothing is created until the first write; reading a home without a ledger finds no entries.
    """

    def __init__(self, home: Path) -> None:
        self.home = home
        self.files = home / FILES_DIR
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _db(self, create: bool) -> sqlite3.Connection | None:
        if self._conn is None:
            path = self.home / DB_FILE
            if not create and not path.exists():
                return None
            self.home.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, check_same_thread=False, timeout=30)
            enable_wal(conn)
            conn.execute(_SCHEMA)
            conn.commit()
            self._conn = conn
        return self._conn

    def record(self, counts: Mapping[str, int], originals: Mapping[str, Path] | None = None) -> None:
        """Note documents just added or replaced with their passage counts; copy their original files.

        A replaced document keeps its first ``added`` time; an original given again replaces the old copy.
        """
        now = time.time()
        kept = {doc_id: self._keep(doc_id, path) for doc_id, path in (originals or {}).items() if doc_id in counts}
        with self._lock:
            db = self._db(create=True)
            assert db is not None
            db.executemany(
                "INSERT INTO documents (id, added, updated, passages, file) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET updated = excluded.updated, passages = excluded.passages, "
                "file = COALESCE(excluded.file, documents.file)",
                [(doc_id, now, now, count, kept.get(doc_id)) for doc_id, count in counts.items()],
            )
            db.commit()

    def keep_missing(self, originals: Mapping[str, Path]) -> None:
        """Copy originals of unchanged documents that have an entry but no kept file (ingested before files were kept)."""
        with self._lock:
            db = self._db(create=False)
            if db is None or not originals:
                return
            marks = ",".join("?" * len(originals))
            missing = [row[0] for row in db.execute(
                f"SELECT id FROM documents WHERE file IS NULL AND id IN ({marks})", list(originals))]
        for doc_id in missing:
            name = self._keep(doc_id, originals[doc_id])
            with self._lock:
                db.execute("UPDATE documents SET file = ? WHERE id = ?", (name, doc_id))
                db.commit()

    def _keep(self, doc_id: str, source: Path) -> str | None:
        """Copy ``source`` to ``files/``; the file's name, or None when it cannot be read."""
        name = content_id("original", doc_id) + source.suffix.lower()
        self.files.mkdir(parents=True, exist_ok=True)
        part = self.files / (name + ".part")
        try:
            shutil.copyfile(source, part)
        except OSError:
            part.unlink(missing_ok=True)
            return None
        part.replace(self.files / name)  # a reader never sees half a file
        return name

    def get(self, doc_ids: Iterable[str]) -> dict[str, LibraryRecord]:
        """The entries of ``doc_ids`` that exist."""
        wanted = list(doc_ids)
        with self._lock:
            db = self._db(create=False)
            if db is None or not wanted:
                return {}
            found: dict[str, LibraryRecord] = {}
            for start in range(0, len(wanted), 500):
                chunk = wanted[start: start + 500]
                rows = db.execute(
                    f"SELECT id, added, updated, passages, file FROM documents WHERE id IN ({','.join('?' * len(chunk))})",
                    chunk,
                )
                for doc_id, added, updated, passages, file in rows:
                    found[doc_id] = LibraryRecord(doc_id, added, updated, passages, file or "")
        return found

    def original(self, doc_id: str) -> Path | None:
        """The kept original file of a document, or None."""
        record = self.get([doc_id]).get(doc_id)
        if record is None or not record.file:
            return None
        path = self.files / record.file
        return path if path.is_file() else None

    def set_passages(self, counts: Mapping[str, int]) -> None:
        """Update passage counts after the passages were cut again (entries that exist only)."""
        with self._lock:
            db = self._db(create=False)
            if db is None:
                return
            db.executemany("UPDATE documents SET passages = ? WHERE id = ?", [(n, i) for i, n in counts.items()])
            db.commit()

    def delete(self, doc_ids: Iterable[str]) -> None:
        """Forget documents and remove their kept files."""
        wanted = list(doc_ids)
        records = self.get(wanted)
        with self._lock:
            db = self._db(create=False)
            if db is None:
                return
            db.executemany("DELETE FROM documents WHERE id = ?", [(i,) for i in wanted])
            db.commit()
        for record in records.values():
            if record.file:
                (self.files / record.file).unlink(missing_ok=True)

    def close(self) -> None:
        """Close the database connection (it reopens on the next use)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
