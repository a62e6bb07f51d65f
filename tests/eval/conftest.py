"""Tiny data sets written into a temporary folder, in each supported layout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CORPUS = [
    {"_id": "d1", "title": "Photosynthesis", "text": "Plants turn sunlight, water and carbon dioxide into sugar and oxygen."},
    {"_id": "d2", "title": "Volcano", "text": "A volcano erupts molten rock called lava from the mantle of the earth."},
    {"_id": "d3", "title": "Honey bees", "text": "Bees collect nectar from flowers and make honey in the hive."},
    {"_id": "d4", "title": "Glaciers", "text": "Glaciers are slow rivers of ice that carve valleys in mountains."},
    {"_id": "d5", "title": "Tides", "text": "The moon's gravity pulls the oceans and causes the tides."},
]
QUERIES = [
    {"_id": "q1", "text": "How do plants make sugar from sunlight?"},
    {"_id": "q2", "text": "What causes ocean tides?"},
    {"_id": "q3", "text": "Where does lava come from when a volcano erupts?"},
]
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td5\t1\nq3\td2\t1\nq3\td4\t0\n"


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def beir_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "tiny"
    (folder / "qrels").mkdir(parents=True)
    write_jsonl(folder / "corpus.jsonl", CORPUS)
    write_jsonl(folder / "queries.jsonl", QUERIES)
    (folder / "qrels" / "test.tsv").write_text(QRELS, encoding="utf-8")
    return folder


@pytest.fixture
def hotpot_files(tmp_path: Path) -> Path:
    """A HippoRAG-style pair: questions file plus the shared title -> sentences corpus."""
    corpus = {
        "Ada Lovelace": ["Ada Lovelace wrote the first computer program.", " She worked with Charles Babbage."],
        "Charles Babbage": ["Charles Babbage designed the Analytical Engine.", " He was born in London."],
        "London": ["London is the capital of England."],
        "Paris": ["Paris is the capital of France."],
    }
    questions = [
        {
            "_id": "h1",
            "question": "Where was the man Ada Lovelace worked with born?",
            "answer": "London",
            "type": "bridge",
            "supporting_facts": [["Ada Lovelace", 1], ["Charles Babbage", 1]],
            "context": [],
        }
    ]
    (tmp_path / "mini-corpus.json").write_text(json.dumps(corpus), encoding="utf-8")
    path = tmp_path / "mini-1.json"
    path.write_text(json.dumps(questions), encoding="utf-8")
    return path
