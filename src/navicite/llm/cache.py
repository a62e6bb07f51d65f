"""A persistent cache of model answers in SQLite.

Keys hash everything that can change an answer: backend, model, messages,
sampling options and the JSON schema. The database runs in WAL mode with a
busy timeout, and every operation opens its own short-lived connection, so
threads and several processes can share one file.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from navicite.sqlite_wal import enable_wal

CACHE_FILE_NAME = "llm.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY,
    backend TEXT NOT NULL,
    model TEXT NOT NULL,
    stage TEXT NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    created REAL NOT NULL,
    alternatives TEXT
)
"""

# Caches written before the column existed get it on first use; their rows read as having none.
_ADD_ALTERNATIVES = "ALTER TABLE answers ADD COLUMN alternatives TEXT"


@dataclass(frozen=True)
class CachedAnswer:
    """A stored answer and what it cost when it was made."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    #: The reply's tokens with their most likely alternatives, where the request asked for them
    #: (``[[token, {alternative: log-probability}], ...]``); empty otherwise.
    alternatives: tuple[tuple[str, dict[str, float]], ...] = ()


@dataclass(frozen=True)
class CacheStats:
    """Size of the cache."""

    path: str
    entries: int
    bytes: int
    by_model: dict[str, int]
    by_stage: dict[str, int]


def cache_key(backend: str, model: str, request: dict[str, Any]) -> str:
    """Stable key of one request (messages, options, schema) to one backend and model."""
    payload = json.dumps({"backend": backend, "model": model, "request": request}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class AnswerCache:
    """Answers by key in one SQLite file; created on first write."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._ready = False

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        conn.execute("PRAGMA busy_timeout = 30000")
        if not self._ready:
            enable_wal(conn)
            conn.execute(_SCHEMA)
            columns = {row[1] for row in conn.execute("PRAGMA table_info(answers)")}
            if "alternatives" not in columns:
                try:
                    conn.execute(_ADD_ALTERNATIVES)
                except sqlite3.OperationalError as exc:  # another process added it in between
                    if "duplicate column" not in str(exc):
                        raise
            self._ready = True
        return conn

    def get(self, key: str) -> CachedAnswer | None:
        """The stored answer for ``key``, if any."""
        if not self.path.exists():
            return None
        with closing(self._connect()) as conn:
            row = conn.execute(
                "SELECT text, prompt_tokens, completion_tokens, alternatives FROM answers WHERE key = ?", (key,)
            ).fetchone()
        if not row:
            return None
        alternatives = tuple((token, dict(top)) for token, top in json.loads(row[3])) if row[3] else ()
        return CachedAnswer(row[0], row[1], row[2], alternatives)

    def put(self, key: str, *, backend: str, model: str, stage: str, answer: CachedAnswer) -> None:
        """Store (or replace) the answer for ``key``."""
        with closing(self._connect()) as conn:
            conn.execute(
                "INSERT OR REPLACE INTO answers (key, backend, model, stage, text, prompt_tokens, completion_tokens, "
                "created, alternatives) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (key, backend, model, stage, answer.text, answer.prompt_tokens, answer.completion_tokens, time.time(),
                 json.dumps(answer.alternatives) if answer.alternatives else None),
            )

    def clear(self) -> int:
        """Delete every answer; returns how many there were."""
        if not self.path.exists():
            return 0
        with closing(self._connect()) as conn:
            count = conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
            conn.execute("DELETE FROM answers")
            conn.execute("VACUUM")
        return int(count)

    def stats(self) -> CacheStats:
        """Entry counts per model and stage, and the size on disk."""
        if not self.path.exists():
            return CacheStats(str(self.path), 0, 0, {}, {})
        with closing(self._connect()) as conn:
            entries = conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
            by_model = dict(conn.execute("SELECT backend || ':' || model, COUNT(*) FROM answers GROUP BY 1").fetchall())
            by_stage = dict(conn.execute("SELECT stage, COUNT(*) FROM answers GROUP BY 1").fetchall())
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())
        return CacheStats(str(self.path), int(entries), size, by_model, by_stage)
