import sqlite3
import threading
import time
from pathlib import Path

import pytest

from navicite.sqlite_wal import enable_wal


def _locked(path: Path) -> sqlite3.Connection:
    """A connection holding an exclusive lock on a rollback-journal database."""
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE IF NOT EXISTS t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    return holder


def test_waits_for_the_lock_then_switches(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    holder = _locked(path)
    threading.Timer(0.3, holder.rollback).start()
    conn = sqlite3.connect(path, timeout=0.0, isolation_level=None)
    start = time.monotonic()
    enable_wal(conn, wait_seconds=10)
    assert time.monotonic() - start >= 0.25
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_gives_up_after_the_wait(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    holder = _locked(path)
    conn = sqlite3.connect(path, timeout=0.0, isolation_level=None)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        enable_wal(conn, wait_seconds=0.2)
    holder.rollback()


def test_other_errors_are_not_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "shared.sqlite"
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.commit()
    pauses: list[float] = []
    monkeypatch.setattr("navicite.sqlite_wal.time.sleep", pauses.append)
    read_only = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        enable_wal(read_only, wait_seconds=10)
    assert pauses == []  # raised on the first attempt
    closed = sqlite3.connect(path)
    closed.close()
    with pytest.raises(sqlite3.ProgrammingError):
        enable_wal(closed, wait_seconds=10)
    assert pauses == []
