"""``navicite eval`` through the real console entry: JSON output, reports and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from navicite.cli.eval_cmd import parse_ks
from navicite.errors import UserInputError


def run(*args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([sys.executable, "-m", "navicite", *args], capture_output=True, text=True, timeout=300)
    # The console wraps long messages at its width; join the lines to search them.
    result.stderr = result.stderr.replace("\n", "")
    return result


def _beir(folder: Path) -> Path:
    (folder / "qrels").mkdir(parents=True)
    docs = [("d1", "Volcano", "Lava comes out of an erupting volcano."), ("d2", "Tides", "The moon causes ocean tides.")]
    (folder / "corpus.jsonl").write_text("".join(json.dumps({"_id": i, "title": t, "text": x}) + "\n" for i, t, x in docs))
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "what makes the tides"}) + "\n")
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td2\t1\n")
    return folder


def test_retrieval_json_and_report_files(tmp_path: Path) -> None:
    data = _beir(tmp_path / "tiny")
    out = tmp_path / "out"
    args = ["--home", str(tmp_path / "home"), "eval", "retrieval", "--dataset", f"beir:{data}", "--method", "bm25", "--k", "1,2"]
    result = run(*args, "--json", "--out", str(out))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    bm25 = report["methods"]["bm25"]
    assert bm25["questions"] == 1 and bm25["metrics"]["recall@1"] == 1.0 and bm25["metrics"]["ndcg@10"] == 1.0
    assert {"p50", "p95"} <= set(bm25["seconds"]["total"])
    assert {p.name for p in out.iterdir()} >= {"report.md", "per_question.jsonl", "records.jsonl", "recall_at_k.png", "summary.json"}


def test_malformed_file_exits_2_naming_file_and_line(tmp_path: Path) -> None:
    data = _beir(tmp_path / "tiny")
    (data / "queries.jsonl").write_text('{"_id": "q1", "text": "ok"}\n{"_id": "q2", "text": \n')
    result = run("--home", str(tmp_path / "home"), "eval", "retrieval", "--dataset", f"beir:{data}")
    assert result.returncode == 2
    assert f"{data / 'queries.jsonl'}:2" in result.stderr and "Traceback" not in result.stderr


def test_bad_path_exits_2(tmp_path: Path) -> None:
    result = run("--home", str(tmp_path), "eval", "retrieval", "--dataset", f"hotpotqa:{tmp_path / 'missing.json'}")
    assert result.returncode == 2 and "missing.json: no such file" in result.stderr


def test_parse_ks() -> None:
    assert parse_ks("100,10,10") == [10, 100]
    with pytest.raises(UserInputError):
        parse_ks("10,x")
    with pytest.raises(UserInputError):
        parse_ks("0")


def test_evidence_json_with_bm25_and_a_doc_filter(tmp_path: Path) -> None:
    filler = "\n".join(f"Part {i}: " + " ".join(f"word{i}x{j}" for j in range(30)) for i in range(3))
    text = f"The key was hidden in the red boot, said Ann.\n{filler}"
    rec = {"input": text, "instructions": ["Where was the key?\n\n (A) in the red boot \n (B) in a drawer "], "outputs": ["(A) in the red boot"]}
    path = tmp_path / "quality.jsonl"
    path.write_text(json.dumps(rec) + "\n" + json.dumps(rec) + "\n")
    args = ["--home", str(tmp_path / "home"), "-s", "ingest.segment_words=20", "-s", "ingest.segment_overlap=0",
            "eval", "evidence", "--dataset", f"leval:{path}", "--method", "bm25", "--budget", "60", "--doc", "quality-2"]
    result = run(*args, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["budget_tokens"] == 60
    assert report["methods"]["bm25"]["questions"] == 1 and report["methods"]["bm25"]["answer_in_context_recall"] == 1.0
    result = run(*args[:-1], "quality-9")
    assert result.returncode == 2 and "quality-9" in result.stderr


def test_retrieval_warns_when_the_cross_encoder_trained_on_the_scored_claims(tmp_path: Path) -> None:
    data = _beir(tmp_path / "scifact")
    (data / "qrels" / "test.tsv").rename(data / "qrels" / "train.tsv")
    model = tmp_path / "model"
    model.mkdir()
    (model / "train_info.json").write_text(json.dumps({"data": {"scifact_eval_claims": 0}}))
    args = ["--home", str(tmp_path / "home"), "-s", "rerank.backend=navicite", "-s", f"rerank.model={model}",
            "eval", "retrieval", "--dataset", f"beir:{data}", "--split", "train", "--method", "bm25", "--json"]
    result = run(*args)
    assert result.returncode == 0, result.stderr
    assert "trained on SciFact train claims past the first 0" in result.stderr and "--limit 0" in result.stderr
    (model / "train_info.json").write_text(json.dumps({"data": {"scifact_eval_claims": 1}}))
    assert "warning" not in run(*args).stderr


def test_citations_report_the_judge_against_human_labels_first(tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"method": "a", "question_id": "q1", "answer": "Lava comes out of an erupting volcano [1].",
                                   "sources": [{"title": "Volcano", "text": "Lava comes out of an erupting volcano."}]}) + "\n")
    result = run("--home", str(tmp_path / "home"), "eval", "citations", "--answers", str(answers), "--judge", "lexical",
                 "--labelled", "30")
    assert result.returncode == 0, result.stderr
    first = result.stderr.index("Judge against human labels (labelled support set, held-out part, 30 pairs): precision=")
    assert first < result.stderr.index("Citations (judge: lexical (no model))")
    as_json = json.loads(run("--home", str(tmp_path / "home"), "eval", "citations", "--answers", str(answers), "--judge",
                             "lexical", "--labelled", "30", "--json").stdout)
    assert as_json["labelled_held_out"]["pairs"] == 30 and 0.0 <= as_json["labelled_held_out"]["precision"] <= 1.0


def test_a_model_judge_is_named_as_the_verifiers_own(tmp_path: Path) -> None:
    from navicite.config import load_settings
    from navicite.eval.support_set import judge_note

    note = judge_note("llm", load_settings(tmp_path))
    assert "qwen2.5-coder-1.5b" in note and "the verifier's own model" in note
