"""Knowledge trees on disk: one SQLite file in the data directory, one row per document.

A row carries the fingerprint of the document version it was built from and the
parameters that shaped it (segment size, budgets), so a replaced document or a
changed setting marks its tree out of date. Writing one document's tree touches
only that document's row; a tree is validated before it is written, so a broken
tree is never stored.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from navicite.config import Settings
from navicite.errors import IndexStoreError
from navicite.navigate.tree import KnowledgeTree
from navicite.navigate.validate import check

STORE_FILE_NAME = "trees.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS trees (
    doc_id      TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    params      TEXT NOT NULL,
    built_at    REAL NOT NULL,
    tree        TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS summaries (
    doc_id  TEXT NOT NULL,
    key     TEXT NOT NULL,
    summary TEXT NOT NULL,
    PRIMARY KEY (doc_id, key)
);
"""


def build_params(settings: Settings, source: str | None = None) -> dict[str, Any]:
    """The settings that shape a tree; a stored tree built with others is out of date.

    ``source`` is where a structure tree's shape comes from ("outline", "headings"); None for a
    tree the model organised, whose parameters are those of the first release (so such trees
    stay current). A structure tree also depends on the passage size and the summary settings.
    """
    nav = settings.navigate
    if source is not None:
        return {
            "structure": source,
            "passage_words": settings.ingest.passage_words,
            "leaf_token_budget": nav.leaf_token_budget,
            "max_topics_per_level": nav.max_topics_per_level,
            "max_calls_per_segment": nav.max_calls_per_segment,
            "summaries_per_call": nav.summaries_per_call,
            "node_summary_words": nav.node_summary_words,
            **({"summaries": nav.summaries} if nav.summaries != "model" else {}),  # model-summarised trees stay current
        }
    return {
        "segment_words": settings.ingest.segment_words,
        "segment_overlap": settings.ingest.segment_overlap,
        "titles_per_segment": nav.titles_per_segment,
        "max_titles": nav.max_titles,
        "leaf_token_budget": nav.leaf_token_budget,
        "max_topics_per_level": nav.max_topics_per_level,
        "max_calls_per_segment": nav.max_calls_per_segment,
        # Trees from before leaves were bounded by their passages as well as their content are rebuilt.
        "leaf_budget_counts": "content+passages",
    }


class TreeStore:
    """The trees of one collection."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as db:
                db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise IndexStoreError(f"cannot open the tree store {path} ({exc}); check the data directory (--home)") from exc

    @classmethod
    def open(cls, settings: Settings) -> TreeStore:
        """The store in ``settings.home``."""
        return cls(settings.home / STORE_FILE_NAME)

    @classmethod
    def existing(cls, settings: Settings) -> TreeStore | None:
        """The store in ``settings.home`` if a tree was ever built there; None otherwise (nothing is created)."""
        path = settings.home / STORE_FILE_NAME
        return cls(path) if path.is_file() else None

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30.0)
        try:
            with db:  # one transaction: committed on success, rolled back on error
                yield db
        finally:
            db.close()

    def put(self, tree: KnowledgeTree, params: dict[str, Any]) -> None:
        """Store ``tree`` (replacing the document's earlier tree) after validating it.

        Raises:
            TreeInvariantError: the tree is broken; nothing is written.
        """
        check(tree)
        payload = json.dumps(tree.to_dict(), ensure_ascii=False)
        with self._connect() as db:
            db.execute(
                "INSERT INTO trees (doc_id, fingerprint, params, built_at, tree) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(doc_id) DO UPDATE SET fingerprint=excluded.fingerprint, params=excluded.params, "
                "built_at=excluded.built_at, tree=excluded.tree",
                (tree.doc_id, tree.fingerprint, json.dumps(params, sort_keys=True), time.time(), payload),
            )
            db.execute("DELETE FROM summaries WHERE doc_id = ?", (tree.doc_id,))
            db.executemany(
                "INSERT INTO summaries (doc_id, key, summary) VALUES (?, ?, ?)",
                [(tree.doc_id, key, text) for key, text in tree.memo.items()],
            )

    def memo(self, doc_id: str) -> dict[str, str]:
        """The node summaries the model wrote for the last tree of ``doc_id``, by what they were
        written from (kept when the document is replaced, so its next build reuses them)."""
        with self._connect() as db:
            return dict(db.execute("SELECT key, summary FROM summaries WHERE doc_id = ?", (doc_id,)).fetchall())

    def get(self, doc_id: str) -> KnowledgeTree | None:
        """The stored tree of ``doc_id``, if any."""
        with self._connect() as db:
            row = db.execute("SELECT tree FROM trees WHERE doc_id = ?", (doc_id,)).fetchone()
        return KnowledgeTree.from_dict(json.loads(row[0])) if row else None

    def is_current(self, doc_id: str, fingerprint: str, params: dict[str, Any]) -> bool:
        """Whether the stored tree was built from this document version with these parameters."""
        with self._connect() as db:
            row = db.execute("SELECT fingerprint, params FROM trees WHERE doc_id = ?", (doc_id,)).fetchone()
        return bool(row) and row[0] == fingerprint and json.loads(row[1]) == params

    def fingerprint(self, doc_id: str) -> str | None:
        """Fingerprint of the document version the stored tree was built from, if there is a tree."""
        with self._connect() as db:
            row = db.execute("SELECT fingerprint FROM trees WHERE doc_id = ?", (doc_id,)).fetchone()
        return row[0] if row else None

    def doc_ids(self) -> list[str]:
        """Ids of the documents that have a tree."""
        with self._connect() as db:
            return [r[0] for r in db.execute("SELECT doc_id FROM trees ORDER BY doc_id")]

    def delete(self, doc_ids: Iterable[str], keep_summaries: bool = False) -> list[str]:
        """Remove the trees of ``doc_ids`` (and their node summaries unless ``keep_summaries``:
        a replaced document's next tree reuses them); returns the ids that had a tree."""
        ids = list(doc_ids)
        with self._connect() as db:
            gone = [i for i in ids if db.execute("DELETE FROM trees WHERE doc_id = ?", (i,)).rowcount]
            if not keep_summaries:
                db.executemany("DELETE FROM summaries WHERE doc_id = ?", [(i,) for i in ids])
        return gone

    def prune(self, live_ids: Iterable[str]) -> list[str]:
        """Remove the trees and summaries of documents no longer in the collection; returns the ids that had a tree."""
        live = set(live_ids)
        with self._connect() as db:
            remembered = [r[0] for r in db.execute("SELECT DISTINCT doc_id FROM summaries")]
        gone = self.delete([i for i in self.doc_ids() if i not in live])
        self.delete([i for i in remembered if i not in live])
        return gone

    def rows(self) -> list[tuple[Any, ...]]:
        """Every row with its SQLite rowid, for checks that writes touch only what they should."""
        with self._connect() as db:
            return list(db.execute("SELECT rowid, doc_id, fingerprint, params, built_at, tree FROM trees ORDER BY doc_id"))
