"""The one tantivy writer of an index: acquired on demand, shared by consecutive writes, released when idle.

tantivy allows one writer per index (a lock file, freed by the OS even when
the process is killed). Creating a writer for every batch and waiting for its
merges made small batches slow, so a writer stays open for ``linger_s``
seconds after a commit; the next batch reuses it, and merges run in the
background meanwhile. When idle, at :meth:`WriterSlot.close` or at exit, the
merges are finished and the lock is released for other processes.
"""

from __future__ import annotations

import atexit
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

import tantivy

from navicite.errors import IndexStoreError

_LOCK_RETRY_S = 0.1
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
            except BaseException:
                # Give the writer up: a failed write must never leave the lock held.
                try:
                    writer.rollback()
                finally:
                    self._release()
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

    def _release(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            # Consumes the writer: merges finish, then the lock file is released.
            writer.wait_merging_threads()
            _OPEN_SLOTS.discard(self)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


@atexit.register
def _close_open_writers() -> None:
    for slot in list(_OPEN_SLOTS):
        slot.close()
