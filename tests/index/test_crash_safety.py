"""A writer killed mid-batch leaves every committed batch readable."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from navicite.config import load_settings
from navicite.documents import Document
from navicite.index import create, parse_boolean

BATCH = 1500

_WRITER = """
import sys
from navicite.config import load_settings
from navicite.documents import Document
from navicite.index import create

index = create(load_settings(sys.argv[1]))
batch = int(sys.argv[2])
for b in range(1000):
    docs = [Document(f"b{b}-{i}", f"batch{b} title {i}", f"words of document {i} in batch{b} " * 20) for i in range(batch)]
    print(f"writing {b}", flush=True)
    index.upsert(docs)
    print(f"committed {b}", flush=True)
"""


def test_sigkill_mid_ingest_keeps_committed_batches(tmp_path: Path) -> None:
    home = tmp_path / "home"
    child = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(home), str(BATCH)], stdout=subprocess.PIPE, text=True
    )
    committed: list[int] = []
    assert child.stdout is not None
    try:
        for line in child.stdout:
            kind, number = line.split()
            if kind == "committed":
                committed.append(int(number))
            elif kind == "writing" and len(committed) >= 3:
                time.sleep(0.05)  # let it get into the batch
                break
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL
    assert committed == [0, 1, 2]

    index = create(load_settings(home))
    count = index.count()
    # Atomic commits: the killed batch is either wholly there or not at all.
    assert count in (3 * BATCH, 4 * BATCH)
    ids = set(index.ids())
    for b in committed:
        assert {f"b{b}-{i}" for i in range(BATCH)} <= ids
        assert len(index.search(parse_boolean(f"batch{b}"), k=BATCH)) == BATCH
    assert index.get("b1-7") is not None

    # The killed writer's lock is gone: the index takes new writes.
    report = index.upsert([Document("after", "written after the crash")])
    assert report.added == ["after"] and index.count() == count + 1
