"""A small end-to-end evaluation on a tiny corpus: real index, real embedding model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from navicite.config import load_settings
from navicite.errors import UserInputError
from navicite.eval.datasets import load_dataset
from navicite.eval.methods import MethodResult, Trace
from navicite.eval.registry import create_method, register_method
from navicite.eval.report import markdown_table, write_report
from navicite.eval.resources import EvalResources
from navicite.eval.runner import RECORDS_FILE, RetrievalRunner, percentile
from navicite.ingest.records import title_document_id


def _runner(beir_dir: Path, home: Path, methods: list[str], out: Path | None = None) -> tuple[RetrievalRunner, list]:
    data = load_dataset(f"beir:{beir_dir}", "test")
    resources = EvalResources(data, load_settings(home))
    return RetrievalRunner(resources, methods, [1, 3], out_dir=out), data.questions


def test_bm25_and_dense_side_by_side(beir_dir: Path, tmp_path: Path) -> None:
    runner, questions = _runner(beir_dir, tmp_path / "home", ["bm25", "dense"])
    report = runner.run(questions)
    by_method = {s.method: s for s in report.summaries}
    for name in ("bm25", "dense"):
        summary = by_method[name]
        assert summary.questions == 3
        # Each question names its one relevant document plainly: both methods find all.
        assert summary.metrics["recall@3"] == 1.0, name
        assert summary.metrics["recall@1"] >= 2 / 3, name
        assert summary.seconds["total"]["p95"] >= summary.seconds["total"]["p50"] > 0
    assert set(by_method["dense"].seconds) == {"embed", "search", "total"}
    table = markdown_table(report)
    assert "| bm25 | 3 |" in table and "recall@3" in table


def test_index_is_reused_from_the_cache(beir_dir: Path, tmp_path: Path) -> None:
    runner, questions = _runner(beir_dir, tmp_path / "home", ["bm25"])
    runner.run(questions)
    folder = runner.resources.index_folder
    stamp = (folder / "complete.json").stat().st_mtime_ns
    again, _ = _runner(beir_dir, tmp_path / "home", ["bm25"])
    assert again.resources.index_folder == folder
    again.run(questions)
    assert (folder / "complete.json").stat().st_mtime_ns == stamp


class _Counting:
    """A registered method that counts its calls, to see what a resumed run re-asks."""

    calls: list[str] = []

    def __init__(self, resources: EvalResources) -> None:
        self.resources = resources

    def run(self, question, k: int) -> MethodResult:  # noqa: ANN001
        _Counting.calls.append(question.id)
        return MethodResult([(next(iter(question.gold)), 1.0)], Trace(llm_calls=2, prompt_tokens=10, stage_seconds={"x": 0.1}))


def test_interrupted_run_resumes_from_records(beir_dir: Path, tmp_path: Path) -> None:
    register_method("counting-test", _Counting)
    out = tmp_path / "out"
    runner, questions = _runner(beir_dir, tmp_path / "home", ["counting-test"], out)
    runner.run(questions[:2])
    # Simulate a crash mid-write: a cut-off last line must not stop the resume.
    with (out / RECORDS_FILE).open("a") as handle:
        handle.write('{"method": "counting-test", "question_id": "q3", "rank')
    _Counting.calls.clear()
    report = runner.run(questions)
    assert _Counting.calls == ["q3"]
    summary = report.summaries[0]
    assert summary.metrics["recall@1"] == 1.0 and summary.llm["calls"] == 6 and summary.llm["calls_per_question"] == 2
    paths = write_report(report, out)
    assert all(p.is_file() and p.stat().st_size > 0 for p in paths)
    assert (out / "recall_at_k.png").read_bytes()[:4] == b"\x89PNG"
    rows = [json.loads(line) for line in (out / "per_question.jsonl").read_text().splitlines()]
    assert {r["question_id"] for r in rows} == {"q1", "q2", "q3"} and "recall@1" in rows[0]["scores"]


def test_out_folder_of_another_run_is_refused(beir_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    runner, questions = _runner(beir_dir, tmp_path / "home", ["bm25"], out)
    runner.run(questions)
    data = load_dataset(f"beir:{beir_dir}", "test")
    other = RetrievalRunner(EvalResources(data, load_settings(tmp_path / "home")), ["bm25"], [1, 30], out_dir=out)
    with pytest.raises(UserInputError, match="different settings"):
        other.run(questions)


def test_unknown_method_lists_known(beir_dir: Path, tmp_path: Path) -> None:
    runner, _ = _runner(beir_dir, tmp_path / "home", ["bm25"])
    with pytest.raises(UserInputError, match="available: .*bm25.*dense"):
        create_method("nope", runner.resources)


def test_distractor_questions_rank_only_their_paragraphs(tmp_path: Path) -> None:
    rec = {
        "id": "x1",
        "question": "Which volcano erupted lava?",
        "answer": "Etna",
        "supporting_facts": [["Etna", 0]],
        "context": [["Etna", ["Etna is a volcano that erupted lava."]], ["Alps", ["The Alps are mountains."]]],
    }
    other = {**rec, "id": "x2", "context": [["Vesuvius", ["Vesuvius is a volcano that erupted lava."]]], "supporting_facts": [["Vesuvius", 0]]}
    path = tmp_path / "dev.json"
    path.write_text(json.dumps([rec, other]))
    data = load_dataset(f"hotpotqa:{path}")
    runner = RetrievalRunner(EvalResources(data, load_settings(tmp_path / "home")), ["bm25", "dense"], [5])
    report = runner.run(data.questions)
    for record in report.records:
        allowed = {title_document_id(t) for t in (("Etna", "Alps") if record.question_id == "x1" else ("Vesuvius",))}
        assert {doc for doc, _ in record.ranking} <= allowed


def test_percentile() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([5.0], 0.95) == 5.0
    assert percentile([], 0.5) == 0.0


def test_dense_batch_prepare_ranks_like_one_by_one(beir_dir: Path, tmp_path: Path) -> None:
    data = load_dataset(f"beir:{beir_dir}", "test")
    resources = EvalResources(data, load_settings(tmp_path / "home"))
    single = create_method("dense", resources)
    batched = create_method("dense", resources)
    batched.prepare(data.questions)
    for question in data.questions:
        one, many = single.run(question, 3), batched.run(question, 3)
        assert [d for d, _ in one.ranking] == [d for d, _ in many.ranking]
        assert [s for _, s in one.ranking] == pytest.approx([s for _, s in many.ranking], abs=1e-5)
        assert "embed" in many.trace.stage_seconds


class _Closing(_Counting):
    """A method holding something open: the runner closes it once its questions are done."""

    closed = 0

    def close(self) -> None:
        _Closing.closed += 1


def test_a_method_is_closed_after_its_questions(beir_dir: Path, tmp_path: Path) -> None:
    register_method("closing-test", _Closing)
    runner, questions = _runner(beir_dir, tmp_path / "home", ["closing-test"])
    _Closing.closed = 0
    runner.run(questions)
    assert _Closing.closed == 1
