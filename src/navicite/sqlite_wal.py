"""Switching a shared SQLite file to WAL mode safely.

SQLite answers ``PRAGMA journal_mode = WAL`` with "database is locked" straight
away, without consulting the busy timeout, while another connection is creating
the same file or changing its journal mode. Every process that opens one of our
shared files (the LLM cache, the vector store) may race there on first use, so
the switch is retried for a while instead of failing the caller.
"""

from __future__ import annotations

import sqlite3
import time


def enable_wal(conn: sqlite3.Connection, *, wait_seconds: float = 30.0) -> None:
    """Put ``conn``'s database in WAL mode, retrying while another connection holds the lock.

    Raises the last ``sqlite3.OperationalError`` when the lock is still held after
    ``wait_seconds``, and any other error at once.
    """
    deadline = time.monotonic() + wait_seconds
    pause = 0.01
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            busy = "locked" in str(exc) or "busy" in str(exc)
            if not busy or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.5)
