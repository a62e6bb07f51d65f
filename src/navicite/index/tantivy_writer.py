"""The one tantivy writer of an index: acquired on demand, shared by consecutive writes, released when idle.

tantivy allows one writer per index (a lock file, freed by the OS even when
the process is killed). Creating a writer for every batch and waiting for its
merges made small batches slow, so a writer stays open for ``linger_s``
seconds after a commit; the next batch reuses it, and merges run in the
background meanwhile. When idle, at :meth:`WriterSlot.close` or at exit, the
merges are finished and the lock is released for other processes.

A write that fails (a full disk, say) is rolled back; whenever the writer is given up, the files
no commit uses (a failed write's, a failed merge's) are deleted, so a failed write leaves the
index as its last commit left it and takes no disk space.
"""

from __future__ import annotations

import atexit
import errno
import shutil
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

import tantivy

from navicite.errors import DiskFullError, IndexStoreError

_LOCK_RETRY_S = 0.1
#: Free bytes below which a failed write is taken for a full disk (tantivy does not always say so).
FULL_DISK_BYTES = 1 << 20
#: tantivy refuses a writer whose heap, split between its threads, leaves a thread less than this.
MIN_HEAP_PER_THREAD = 15_000_000
_OPEN_SLOTS: weakref.WeakSet[WriterSlot] = weakref.WeakSet()


class WriterSlot:
    """Holds at most one writer for ``index``; every write goes through :meth:`commit`."""

    def __init__(
        self, index: tantivy.Index, where: str, heap_bytes: int, threads: int, lock_wait_s: float, linger_s: float
    ) -> None:
        self._index = index
        self._where = where
        self._heap_bytes = heap_bytes
        # Fewer threads rather than a refused writer when a small heap is configured.
        self._threads = max(1, min(threads, heap_bytes // MIN_HEAP_PER_THREAD))
        self._lock_wait_s = lock_wait_s
        self._linger_s = linger_s
        self._lock = threading.RLock()
        self._writer: tantivy.IndexWriter | None = None
        self._timer: threading.Timer | None = None

    @contextmanager
    def commit(self) -> Iterator[tantivy.IndexWriter]:
        """The writer for one atomic change: committed when the block ends, rolled back if it raises."""
        with self._lock:
            self._cancel_timer()
            writer = self._writer if self._writer is not None else self._acquire()
            self._writer = writer
            try:
                yield writer
                writer.commit()
            except BaseException as exc:
                full = isinstance(exc, Exception) and out_of_space(exc, self._where)  # before the clean-up frees space
                self._give_up(writer)
                if full:
                    raise DiskFullError(self._where) from exc
                raise
            self._index.reload()
            if self._linger_s > 0:
                self._timer = threading.Timer(self._linger_s, self.close)
                self._timer.daemon = True
                self._timer.start()
            else:
                self._release()

    def close(self) -> None:
        """Finish merges and release the writer lock (no-op when no writer is open)."""
        with self._lock:
            self._cancel_timer()
            self._release()

    def _acquire(self) -> tantivy.IndexWriter:
        deadline = time.monotonic() + self._lock_wait_s
        while True:
            try:
                writer = self._index.writer(self._heap_bytes, self._threads)
            except ValueError as exc:
                if "LockBusy" not in str(exc):
                    if out_of_space(exc, self._where):
                        raise DiskFullError(self._where) from exc
                    raise IndexStoreError(f"cannot write to the index at {self._where}: {exc}") from exc
                if time.monotonic() >= deadline:
                    raise IndexStoreError(
                        f"another process is writing to the index at {self._where} (for example a running ingest); "
                        "wait for it to finish and try again"
                    ) from None
                time.sleep(_LOCK_RETRY_S)
            else:
                _OPEN_SLOTS.add(self)
                return writer

    def _give_up(self, writer: tantivy.IndexWriter) -> None:
        """Roll back and release the lock (which deletes the files of the uncommitted segments);
        each step tried even when the one before fails: a failed write must never leave the lock held."""
        for step in (writer.rollback, self._release):
            try:
                step()
            except Exception:  # noqa: S112 (the write's own error is the one to report)
                continue
        self._writer = None
        _OPEN_SLOTS.discard(self)

    def _release(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            _OPEN_SLOTS.discard(self)
            try:
                # Consumes the writer: merges finish, then the lock file is released.
                writer.wait_merging_threads()
            finally:
                self._collect_garbage()

    def _collect_garbage(self) -> None:
        """Delete the files no commit uses: a failed write's, or a merge's that failed (on a full disk).

        tantivy deletes them at its next commit, which a full disk may never allow; with the lock
        free again, a short-lived writer does it now. Another process holding the lock by then
        collects them at its own commits.
        """
        try:
            writer = self._index.writer(MIN_HEAP_PER_THREAD, 1)
        except ValueError:
            return
        try:
            writer.garbage_collect_files()
        except ValueError:
            pass  # nothing lost: the next commit collects them
        finally:
            writer.wait_merging_threads()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def out_of_space(exc: BaseException, where: str) -> bool:
    """Whether a failed write ran out of disk space: the OS said so, or the file system is full."""
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return True
    if "No space left" in str(exc) or "os error 28" in str(exc):
        return True
    try:
        return shutil.disk_usage(where).free < FULL_DISK_BYTES
    except OSError:
        return False


@atexit.register
def _close_open_writers() -> None:
    for slot in list(_OPEN_SLOTS):
        slot.close()
