"""A small copy of the shared development data, built from the real files.

The real evaluation-question files are copied whole (the guard must see all of
them); corpora and training questions are cut to a few dozen entries so a
training run takes seconds. The SciFact corpus keeps the judged abstracts of a
few training claims (past the scored ones) and of the first scored claim, so
the claim source has work and a leak would show. One MuSiQue question is replaced by a SciFact claim
and one HotpotQA distractor question by a closed-corpus evaluation question,
each written slightly differently, so the guard has something to catch.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"

#: The disguised evaluation questions planted in the tiny data (see the module docs).
PLANTED_SCIFACT = 0
PLANTED_HOTPOT = 3
#: qrels rows whose abstracts the tiny corpus keeps: the first scored claim's and a few training claims'.
TRAINING_CLAIM_ROWS = [1, *range(240, 252)]


def _require_shared() -> None:
    if not (SHARED / "scifact" / "corpus.jsonl").is_file():
        pytest.skip(f"shared development data not found at {SHARED}")


def disguise(text: str) -> str:
    """The same question as a careless copy would write it: other case, other punctuation."""
    return text.upper().rstrip(".?") + " !"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    _require_shared()
    return SHARED


@pytest.fixture(scope="session")
def tiny_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _require_shared()
    root = tmp_path_factory.mktemp("tiny-data")
    for sub in ("scifact", "hotpotqa", "musique"):
        (root / sub).mkdir()
    shutil.copy(SHARED / "scifact" / "queries.jsonl", root / "scifact" / "queries.jsonl")
    shutil.copytree(SHARED / "scifact" / "qrels", root / "scifact" / "qrels")
    shutil.copy(SHARED / "hotpotqa" / "hipporag-train-100.json", root / "hotpotqa" / "hipporag-train-100.json")
    lines = (SHARED / "scifact" / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    judged = _judged_docs(SHARED / "scifact" / "qrels" / "train.tsv", TRAINING_CLAIM_ROWS)
    corpus = lines[:80] + [line for line in lines[80:] if json.loads(line)["_id"] in judged]
    (root / "scifact" / "corpus.jsonl").write_text("\n".join(corpus) + "\n", encoding="utf-8")
    claims = [json.loads(line)["text"] for line in (SHARED / "scifact" / "queries.jsonl").read_text(encoding="utf-8").splitlines()]
    hipporag = json.loads((SHARED / "hotpotqa" / "hipporag-train-100.json").read_text(encoding="utf-8"))

    musique = json.loads((SHARED / "musique" / "hipporag-train-100.json").read_text(encoding="utf-8"))[:6]
    musique[0]["question"] = disguise(claims[PLANTED_SCIFACT])
    _dump(root / "musique" / "hipporag-train-100.json", musique)
    _dump(root / "musique" / "hipporag-train-corpus.json", json.loads((SHARED / "musique" / "hipporag-train-corpus.json").read_text())[:60])

    distractor = json.loads((SHARED / "hotpotqa" / "distractor-dev-100.json").read_text(encoding="utf-8"))[:6]
    distractor[1]["question"] = disguise(hipporag[PLANTED_HOTPOT]["question"])
    _dump(root / "hotpotqa" / "distractor-dev-100.json", distractor)
    corpus_hp = json.loads((SHARED / "hotpotqa" / "hipporag-train-corpus.json").read_text(encoding="utf-8"))
    _dump(root / "hotpotqa" / "hipporag-train-corpus.json", dict(list(corpus_hp.items())[:60]))
    return root


def _judged_docs(qrels: Path, rows: list[int]) -> set[str]:
    table = qrels.read_text(encoding="utf-8").splitlines()
    return {table[row].split("\t")[1] for row in rows}


def _dump(path: Path, data: object) -> None:
    path.write_text(json.dumps(data), encoding="utf-8")
