"""Passage embeddings kept on disk, so a reranker embeds each candidate text once per collection.

Embedding a fresh candidate costs ~45 ms on a CPU (MiniLM, 2 cores), which made re-ranking a
270-candidate pool take a minute; read back from here it costs microseconds. Rows are keyed by
the embedding model and a hash of the exact text embedded, so a replaced document simply gets
new rows (its old ones are never read again) and no invalidation is needed. ``navicite ingest
--embed`` fills the store ahead of time and records which text stands for each document (what
nearest-document search needs); rerankers fill it as they go. Deleting a document removes
its rows (:meth:`VectorStore.forget`).
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from navicite.embed import Embedder, reads
from navicite.errors import IndexStoreError
from navicite.sqlite_wal import enable_wal

if TYPE_CHECKING:
    from navicite.index.dense import DenseIndex

#: File name of the store inside the data directory.
STORE_FILE = "vectors.sqlite"


def text_key(text: str) -> str:
    """The key of one embedded text."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class VectorStore:
    """SQLite table of float32 vectors by (model, text hash). Safe to share between threads.

    Whoever opens a store closes it (:meth:`close`, or ``with open_store(...) as store``); a
    closed store raises ``sqlite3.ProgrammingError`` on use.
    """

    def __init__(self, path: Path, model: str) -> None:
        self.path = path
        self.model = model
        self._lock = threading.Lock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, check_same_thread=False, timeout=30)
            enable_wal(self._db)
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, key TEXT NOT NULL, vector BLOB NOT NULL, "
                "PRIMARY KEY (model, key))"
            )
            # Which text (hence vector) stands for each document: what nearest-document search reads.
            self._db.execute("CREATE TABLE IF NOT EXISTS documents (doc_id TEXT PRIMARY KEY, key TEXT NOT NULL)")
            self._db.commit()
        except (OSError, sqlite3.Error) as exc:
            raise IndexStoreError(f"cannot open the vector store {path} ({exc}); check the data directory's permissions") from exc

    def get_many(self, keys: Iterable[str]) -> dict[str, np.ndarray]:
        """The stored vectors among ``keys`` (missing keys are left out)."""
        wanted = list(dict.fromkeys(keys))
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(wanted), 500):  # SQLite caps the number of bound parameters
                chunk = wanted[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT key, vector FROM vectors WHERE model = ? AND key IN ({marks})", (self.model, *chunk)
                ).fetchall()
                found.update((key, np.frombuffer(blob, dtype=np.float32)) for key, blob in rows)
        return found

    def put_many(self, vectors: Mapping[str, np.ndarray]) -> None:
        """Store vectors by key (replacing rows with the same key)."""
        if not vectors:
            return
        rows = [(self.model, key, np.asarray(vec, dtype=np.float32).tobytes()) for key, vec in vectors.items()]
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO vectors (model, key, vector) VALUES (?, ?, ?)", rows)
            self._db.commit()

    def put_documents(self, keys: Mapping[str, str]) -> None:
        """Record the text key that represents each document id."""
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO documents (doc_id, key) VALUES (?, ?)", list(keys.items()))
            self._db.commit()

    def forget(self, doc_ids: Iterable[str], keys: Iterable[str]) -> None:
        """Remove deleted documents: their rows of the document table, and the vectors (of every
        model) of the text ``keys`` that no remaining document row still uses. One transaction."""
        ids, wanted = list(doc_ids), list(dict.fromkeys(keys))
        try:
            with self._lock, self._db:  # one transaction: committed at the end, rolled back on an error
                for start in range(0, len(ids), 500):  # SQLite caps the number of bound parameters
                    chunk = ids[start : start + 500]
                    self._db.execute(f"DELETE FROM documents WHERE doc_id IN ({','.join('?' * len(chunk))})", chunk)
                for start in range(0, len(wanted), 500):
                    chunk = wanted[start : start + 500]
                    self._db.execute(
                        f"DELETE FROM vectors WHERE key IN ({','.join('?' * len(chunk))}) "
                        "AND key NOT IN (SELECT key FROM documents)",
                        chunk,
                    )
        except sqlite3.Error as exc:
            raise IndexStoreError(f"cannot remove vectors from {self.path} ({exc}); nothing was deleted") from exc

    def document_vectors(self) -> tuple[list[str], np.ndarray]:
        """Every recorded document with a vector of this model: ids and one row each."""
        with self._lock:
            rows = self._db.execute(
                "SELECT d.doc_id, v.vector FROM documents d JOIN vectors v ON v.key = d.key AND v.model = ? ORDER BY d.doc_id",
                (self.model,),
            ).fetchall()
        if not rows:
            return [], np.zeros((0, 0), dtype=np.float32)
        return [doc_id for doc_id, _ in rows], np.vstack([np.frombuffer(blob, dtype=np.float32) for _, blob in rows])

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM vectors WHERE model = ?", (self.model,)).fetchone()[0])

    def close(self) -> None:
        """Close the database connection (again: no effect)."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> VectorStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_store(home: Path, model: str) -> VectorStore:
    """The vector store of the collection in ``home``, for embeddings of ``model``."""
    return VectorStore(home / STORE_FILE, model)


class StoredDense:
    """Nearest documents by embedding over the store's document vectors (MPR's portfolio D).

    Creating one reads nothing: the matrix is loaded by the first search (once, under a lock),
    so an engine whose questions never reach portfolio D never pays for it. A collection
    embedded again later is picked up by a new instance (one per engine). The searcher owns
    ``store``: :meth:`close` closes it.
    """

    def __init__(self, store: VectorStore, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder
        self._index: DenseIndex | None = None
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._dense())

    def _dense(self) -> DenseIndex:
        with self._lock:
            if self._index is None:
                from navicite.index.dense import DenseIndex

                ids, vectors = self.store.document_vectors()
                self._index = DenseIndex(ids, vectors if ids else np.zeros((0, 1), dtype=np.float32))
            return self._index

    def search(self, question: str, k: int) -> list[tuple[str, float]] | None:
        """Up to ``k`` (document id, cosine) pairs, best first; None when no document has a stored
        vector or the model does not read the question's language (no portfolio D then)."""
        if not reads(self.embedder, question):
            return None
        index = self._dense()
        if not len(index):
            return None
        return index.search(self.embedder.embed([question], query=True)[0], k)

    def close(self) -> None:
        """Close the store."""
        self.store.close()
