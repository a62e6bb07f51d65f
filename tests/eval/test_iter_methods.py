"""``mpr-iter``, ``mpr-iter-rerank`` and ``mpr-iter-rerank-fallback``: MPR with retrieval rounds, their LLM cost in each question's trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from navicite.config import load_settings
from navicite.eval.datasets import load_dataset
from navicite.eval.registry import create_method, method_names
from navicite.eval.resources import EvalResources
from navicite.llm.scripted import ScriptedLLM

CORPUS = [
    {"_id": "d1", "title": "Ouse farm", "text": "The Ouse farm was sold to Mary Hale in 1931."},
    {"_id": "d2", "title": "Mary Hale", "text": "Mary Hale was born in the village of Selby."},
    {"_id": "d3", "title": "Tides", "text": "The moon's gravity pulls the oceans and causes the tides."},
]
QUESTION = "Where was the buyer of the Ouse farm born?"
ANALYSIS = {"primary": [{"term": "Ouse farm", "synonyms": []}, {"term": "buyer", "synonyms": []}], "expanded": ["sold"]}
GAP = {"enough": False, "bridge": "Mary Hale", "missing": "her birthplace", "sub_question": "Where was Mary Hale born?",
       "keywords": ["Mary Hale", "born"]}


def resources(tmp_path: Path, *extra: str) -> EvalResources:
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in CORPUS), encoding="utf-8")
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": QUESTION}) + "\n", encoding="utf-8")
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t1\n", encoding="utf-8")
    settings = load_settings(tmp_path / "home", ["llm.backend=embedded", "rerank.backend=none",
                                                 "retrieve.dense_portfolio=false", "retrieve.flat_portfolio=false", *extra])
    found = EvalResources(load_dataset(f"beir:{folder}", "test"), settings)
    found.__dict__["llm"] = ScriptedLLM([ANALYSIS, GAP, {"enough": True}])  # stands in for the embedded model
    return found


def test_the_methods_are_registered() -> None:
    assert {"mpr-iter", "mpr-iter-rerank", "mpr-iter-rerank-fallback"} <= set(method_names())


@pytest.mark.parametrize("name", ["mpr-iter", "mpr-iter-rerank"])
def test_a_second_round_finds_the_bridge_and_its_cost_is_in_the_trace(name: str, tmp_path: Path) -> None:
    method = create_method(name, resources(tmp_path, "retrieve.bridge=llm"))
    assert method.retriever.rounds == 3  # type: ignore[attr-defined]  # retrieve.rounds is 1 (off)
    [question] = method.resources.dataset.questions  # type: ignore[attr-defined]
    result = method.run(question, 3)
    assert {doc_id for doc_id, _ in result.ranking[:2]} == {"d1", "d2"}
    assert result.trace.llm_calls == 3 and result.trace.prompt_tokens > 0 and result.trace.completion_tokens > 0
    assert {"analyze", "gap", "round2"} <= set(result.trace.stage_seconds)
    assert "round3" not in result.trace.stage_seconds  # the second call said enough


def test_retrieve_rounds_sets_their_number(tmp_path: Path) -> None:
    method = create_method("mpr-iter", resources(tmp_path, "retrieve.rounds=2"))
    assert method.retriever.rounds == 2  # type: ignore[attr-defined]


def test_the_names_round_needs_no_model_call(tmp_path: Path) -> None:
    # The round runs (its searches are tested in tests/retrieve/test_bridge.py) and asks the model nothing.
    method = create_method("mpr-iter-rerank-fallback", resources(tmp_path))
    [question] = method.resources.dataset.questions  # type: ignore[attr-defined]
    result = method.run(question, 3)
    assert {doc_id for doc_id, _ in result.ranking[:2]} == {"d1", "d2"}
    assert result.trace.llm_calls == 0 and "round2" in result.trace.stage_seconds and "gap" not in result.trace.stage_seconds
