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
    subprocess.run(_navicite(home, "ingest", str(corpus)), check=True, capture_output=True, timeout=300)
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
        subprocess.run(_navicite(home, "docs", "delete", *ids), check=True, capture_output=True, timeout=300)
    assert _out_of_step(home) == (DOCS - DELETED, 0, 0)


@pytest.mark.slow
def test_delete_killed_at_random_moments_leaves_no_ghost_passages(collection: Path, tmp_path: Path) -> None:
    ids = [f"d{i}" for i in range(DELETED)]
    whole = tmp_path / "whole"
    shutil.copytree(collection, whole)
    started = time.monotonic()
    subprocess.run(_navicite(whole, "docs", "delete", *ids), check=True, capture_output=True, timeout=300)
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
