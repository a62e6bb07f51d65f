"""MPR and its comparisons as evaluation methods: a question is embedded once per method run."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from navicite.config import load_settings
from navicite.embed.bert_onnx import OnnxBertEmbedder
from navicite.eval.datasets import load_dataset
from navicite.eval.registry import create_method
from navicite.eval.resources import EvalResources

CORPUS = [
    {"_id": "d1", "title": "Photosynthesis", "text": "Plants turn sunlight, water and carbon dioxide into sugar."},
    {"_id": "d2", "title": "Volcano", "text": "A volcano erupts molten rock called lava from the mantle."},
    {"_id": "d3", "title": "Tides", "text": "The moon's gravity pulls the oceans and causes the tides."},
]
QUESTION = "How do plants make sugar from sunlight?"


@pytest.fixture
def resources(tmp_path: Path) -> EvalResources:
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in CORPUS), encoding="utf-8")
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": QUESTION}) + "\n", encoding="utf-8")
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n", encoding="utf-8")
    data = load_dataset(f"beir:{folder}", "test")
    home = tmp_path / "home"
    home.mkdir()  # a data directory, so the hybrid scorer opens a vector store there
    return EvalResources(data, load_settings(home, ["llm.backend=none", "rerank.backend=hybrid"]))


@pytest.mark.parametrize("name", ["mpr-rerank-fallback", "hybrid"])
def test_the_question_is_embedded_once_per_run(name: str, resources: EvalResources, monkeypatch: pytest.MonkeyPatch) -> None:
    _ = resources.dense  # the corpus embeddings, built before counting
    embedded: list[list[str]] = []
    original = OnnxBertEmbedder.embed

    def counting(self: OnnxBertEmbedder, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        embedded.append(list(texts))
        return original(self, texts, query=query)

    monkeypatch.setattr(OnnxBertEmbedder, "embed", counting)
    method = create_method(name, resources)
    [question] = resources.dataset.questions
    result = method.run(question, 3)
    assert result.ranking[0][0] == "d1"
    assert embedded.count([QUESTION]) == 1  # portfolio D (or the flat dense search) and the reranker share it
    method.close()  # type: ignore[attr-defined]
    store = method.retriever.reranker.store if name.startswith("mpr") else method.reranker.store  # type: ignore[attr-defined]
    with pytest.raises(sqlite3.ProgrammingError):
        store.get_many(["x"])
