"""Storage under faults: a delete killed part-way, a full disk.

Real processes, real kills, a real full file system: what a user's data directory goes through.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from navicite.collection import CollectionStore
from navicite.config import load_settings
from navicite.documents import Passage

KILLER = Path(__file__).with_name("kill_at_commit.py")
WORDS = "folic acid homocysteine protein gene cell tissue river mountain city bridge vitamin".split()
DOCS, DELETED = 3000, 2000


def _navicite(home: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "navicite", "--home", str(home), *args]


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``navicite --home HOME args...`` in a process of its own."""
    return subprocess.run(_navicite(home, *args), capture_output=True, text=True, timeout=600)


def _ingest(home: Path, corpus: Path) -> None:
    done = _run(home, "ingest", str(corpus))
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory of 3,000 documents: short records (one passage) and long ones (several)."""
    root = tmp_path_factory.mktemp("kill")
    rng = random.Random(7)
    corpus = root / "docs.jsonl"
    with corpus.open("w") as handle:
        for i in range(DOCS):
            text = " ".join(rng.choice(WORDS) for _ in range(rng.choice((30, 500))))
            handle.write(json.dumps({"id": f"d{i}", "title": f"document {i}", "text": text}) + "\n")
    home = root / "home"
    _ingest(home, corpus)
    return home


def _out_of_step(home: Path) -> tuple[int, int, int]:
    """(documents, ghost passages, documents missing passages) as a fresh process reads them (repair included)."""
    store = CollectionStore(load_settings(home, []))
    try:
        passages = store.passages
        doc_ids = set(store.documents.ids())
        owners: dict[str, int] = {}
        for passage_id in passages.ids():
            entry = passages.get(passage_id)
            assert entry is not None
            owner = Passage.from_document(entry).doc_id
            owners[owner] = owners.get(owner, 0) + 1
        ghosts = sum(n for owner, n in owners.items() if owner not in doc_ids)
        missing = sum(1 for doc_id in doc_ids if doc_id not in owners)
        return len(doc_ids), ghosts, missing
    finally:
        store.close()


def _ghosts_found_by_search(home: Path) -> int:
    """Search hits whose document is unknown (what a user would be shown)."""
    from navicite.api import Collection

    with Collection(home) as papers:
        return sum(1 for word in WORDS[:4] for hit in papers.search(word, k=1000) if papers.get(hit.doc_id) is None)


@pytest.mark.slow
@pytest.mark.parametrize("when,nth", [("before", 1), ("after", 1), ("before", 2), ("after", 2)])
def test_delete_killed_at_each_commit_leaves_no_ghost_passages(collection: Path, tmp_path: Path, when: str, nth: int) -> None:
    home = tmp_path / "home"
    shutil.copytree(collection, home)
    ids = [f"d{i}" for i in range(DELETED)]
    run = subprocess.run([sys.executable, str(KILLER), when, str(nth), "--home", str(home), "docs", "delete", *ids],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == -signal.SIGKILL, run.stderr[-2000:]
    documents, ghosts, missing = _out_of_step(home)
    print(f"kill {when} commit {nth}: documents {documents}, ghost passages {ghosts}, documents without passages {missing}")
    assert documents in (DOCS, DOCS - DELETED)  # each index write is all or nothing
    assert (ghosts, missing) == (0, 0)
    assert _ghosts_found_by_search(home) == 0
    # And the interrupted delete can simply be run again.
    if documents == DOCS:
        assert _run(home, "docs", "delete", *ids).returncode == 0
    assert _out_of_step(home) == (DOCS - DELETED, 0, 0)


@pytest.mark.slow
def test_delete_killed_at_random_moments_leaves_no_ghost_passages(collection: Path, tmp_path: Path) -> None:
    ids = [f"d{i}" for i in range(DELETED)]
    whole = tmp_path / "whole"
    shutil.copytree(collection, whole)
    started = time.monotonic()
    assert _run(whole, "docs", "delete", *ids).returncode == 0
    seconds = time.monotonic() - started
    for share in (0.55, 0.7, 0.8, 0.9):
        home = tmp_path / f"at{share}"
        shutil.copytree(collection, home)
        process = subprocess.Popen(_navicite(home, "docs", "delete", *ids), stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        time.sleep(seconds * share)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
        documents, ghosts, missing = _out_of_step(home)
        print(f"kill at {share:.0%} of {seconds:.2f} s: documents {documents}, ghost passages {ghosts}, "
              f"documents without passages {missing}")
        assert (ghosts, missing) == (0, 0)


# -- a full disk ---------------------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 3 MB file system (tmpfs) mounted for the test; skipped where mounting is not allowed."""
    where = tmp_path / "disk"
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(where)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small file system here ({mounted.stderr.decode().strip()})")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _fill(disk: Path) -> None:
    """Write a filler file until the file system refuses more."""
    with (disk / "filler").open("wb") as handle:
        try:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        except OSError:
            pass


def _unreferenced_files(index_dir: Path) -> list[str]:
    """Segment files of ``index_dir`` that its last commit does not use (what a failed write left)."""
    meta = json.loads((index_dir / "meta.json").read_text())
    live = {segment["segment_id"].replace("-", "") for segment in meta["segments"]}
    return [p.name for p in index_dir.iterdir()
            if p.name.startswith(".tmp") or len(p.name.split(".")[0]) == 32 and p.name.split(".")[0] not in live]


def _corpus(path: Path, records: int, prefix: str = "r", words: int = 120) -> Path:
    rng = random.Random(3)
    with path.open("w") as handle:
        for i in range(records):
            text = " ".join(rng.choice(WORDS) + str(rng.randrange(5000)) for _ in range(words))
            handle.write(json.dumps({"id": f"{prefix}{i}", "title": f"record {i} gene", "text": text}) + "\n")
    return path


def _search(home: Path) -> subprocess.CompletedProcess[str]:
    return _run(home, "search", "gene", "-k", "5", "--json")


@pytest.mark.slow
@pytest.mark.parametrize("batch", [200, 300])  # here the disk fills during the passages' write, there the documents'
def test_ingest_on_a_full_disk_says_so_in_one_line_and_leaves_nothing_behind(
    small_disk: Path, tmp_path: Path, batch: int
) -> None:
    home = small_disk / "home"
    _ingest(home, _corpus(tmp_path / "small.jsonl", 50))
    big = _corpus(tmp_path / "big.jsonl", 6000, prefix="b")  # about 6 MB of records: cannot fit in 3 MB
    done = _run(home, "-s", f"ingest.batch_size={batch}", "ingest", str(big))
    lines = done.stderr.strip().splitlines()
    documents = _out_of_step(home)[0]
    print(f"full-disk ingest: exit {done.returncode}, stderr {lines}, documents kept {documents}")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert len(lines) == 1 and lines[0].startswith(f"error: no space left in {home}"), lines
    for part in ("index", "passages"):
        assert _unreferenced_files(home / part) == []
    found = _search(home)
    assert found.returncode == 0 and json.loads(found.stdout), found.stderr
    assert "could not be repaired" not in found.stderr  # nothing was left half-written
    assert (documents - 50) % batch == 0  # whole batches only: the failed one was taken back
    assert _out_of_step(home)[1:] == (0, 0)


@pytest.mark.slow
def test_reads_work_on_a_full_disk_even_when_a_repair_is_due(small_disk: Path, tmp_path: Path) -> None:
    from navicite.collection import PENDING_FILE

    home = small_disk / "home"
    _ingest(home, _corpus(tmp_path / "small.jsonl", 200))
    # A write that died after its documents, before their passages: a repair that must write is due.
    store = CollectionStore(load_settings(home, []))
    store.passages.delete([f"r{i}" for i in range(100, 200)])
    store.close()
    (home / "passages" / PENDING_FILE).write_text("")
    _fill(small_disk)
    assert shutil.disk_usage(small_disk).free < 100_000
    for _ in range(2):
        found = _search(home)
        print(f"search on a full disk: exit {found.returncode}, {len(json.loads(found.stdout or '[]'))} hits, "
              f"stderr {found.stderr.strip()[:200]!r}")
        assert found.returncode == 0 and len(json.loads(found.stdout)) == 5, found.stderr
        assert "could not be repaired" in found.stderr and "Traceback" not in found.stderr
    shown = _run(home, "docs", "show", "r7", "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout)["id"] == "r7"
    # Space again: the next read repairs, and the marker goes.
    (small_disk / "filler").unlink()
    assert _search(home).returncode == 0 and not (home / "passages" / PENDING_FILE).exists()
    assert _out_of_step(home) == (200, 0, 0)
