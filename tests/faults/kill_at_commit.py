"""Run the ``navicite`` command line and SIGKILL it at a chosen index commit.

Usage: ``python kill_at_commit.py before|after N navicite-args...``: the process kills itself
inside its N-th index commit before tantivy commits (``before``: the write is lost) or right
after that commit (``after``). A real kill of a real process, placed exactly, so a test can
reach every step of a multi-commit write.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from navicite.index import tantivy_writer

WHEN, NTH = sys.argv[1], int(sys.argv[2])
_original = tantivy_writer.WriterSlot.commit
_count = 0


@contextmanager
def _commit(self: tantivy_writer.WriterSlot) -> Iterator[object]:
    global _count
    _count += 1
    with _original(self) as writer:
        yield writer
        if WHEN == "before" and _count == NTH:
            os.kill(os.getpid(), signal.SIGKILL)
    if WHEN == "after" and _count == NTH:
        os.kill(os.getpid(), signal.SIGKILL)


tantivy_writer.WriterSlot.commit = _commit  # type: ignore[method-assign]

from navicite.cli import main  # noqa: E402  (after the patch, so every writer goes through it)

main(sys.argv[3:])
