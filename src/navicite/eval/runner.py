"""Run retrieval methods side by side on the same questions and score them.

With an output folder every answered question is appended to ``records.jsonl`` as
it finishes; a later run with the same folder skips what is already recorded, so an
interrupted evaluation resumes where it stopped.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from navicite.errors import UserInputError
from navicite.eval.datasets import EvalDataset, EvalQuestion
from navicite.eval.methods import MethodResult, Trace
from navicite.eval.registry import create_method
from navicite.eval.metrics import mean_scores, retrieval_scores
from navicite.eval.resources import EvalResources

RECORDS_FILE = "records.jsonl"
MANIFEST_FILE = "run.json"

#: Called with (method, questions done, questions total) after each question.
Progress = Callable[[str, int, int], None]


@dataclass
class QuestionRecord:
    """One method's ranking for one question, as saved in ``records.jsonl``."""

    method: str
    question_id: str
    ranking: list[tuple[str, float]]
    trace: Trace
    scores: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "question_id": self.question_id,
            "ranking": [[doc, score] for doc, score in self.ranking],
            "trace": self.trace.to_dict(),
            "scores": self.scores,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> QuestionRecord:
        return cls(
            method=str(data["method"]),
            question_id=str(data["question_id"]),
            ranking=[(str(doc), float(score)) for doc, score in data["ranking"]],
            trace=Trace.from_dict(data.get("trace") or {}),
            scores=dict(data.get("scores") or {}),
        )


@dataclass
class MethodSummary:
    """Aggregate figures of one method over the run's questions."""

    method: str
    questions: int
    metrics: dict[str, float]
    llm: dict[str, float]
    seconds: dict[str, dict[str, float]]

    def to_dict(self) -> dict[str, Any]:
        return {"questions": self.questions, "metrics": self.metrics, "llm": self.llm, "seconds": self.seconds}


@dataclass
class RetrievalReport:
    """Everything one ``eval retrieval`` call produced."""

    dataset: str
    split: str | None
    ks: list[int]
    summaries: list[MethodSummary]
    records: list[QuestionRecord]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "split": self.split,
            "k": self.ks,
            "methods": {s.method: s.to_dict() for s in self.summaries},
            "notes": self.notes,
        }


def percentile(values: list[float], share: float) -> float:
    """Linear-interpolated percentile (``share`` in [0, 1]) of a non-empty list."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    position = share * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarise(method: str, records: list[QuestionRecord]) -> MethodSummary:
    """Mean metrics, LLM totals and per-stage p50/p95 seconds of one method's records."""
    per_question = {r.question_id: r.scores for r in records}
    stages: dict[str, list[float]] = {}
    for r in records:
        for stage, seconds in r.trace.stage_seconds.items():
            stages.setdefault(stage, []).append(seconds)
        stages.setdefault("total", []).append(sum(r.trace.stage_seconds.values()))
    calls = sum(r.trace.llm_calls for r in records)
    n = max(1, len(records))
    llm = {
        "calls": calls,
        "prompt_tokens": sum(r.trace.prompt_tokens for r in records),
        "completion_tokens": sum(r.trace.completion_tokens for r in records),
        "calls_per_question": calls / n,
    }
    seconds = {stage: {"p50": percentile(v, 0.5), "p95": percentile(v, 0.95)} for stage, v in stages.items()}
    return MethodSummary(method, len(records), mean_scores(per_question), llm, seconds)


class RecordStore:
    """Per-question records of a run folder, appended one line at a time."""

    def __init__(self, folder: Path | None, manifest: dict[str, Any]) -> None:
        self.folder = folder
        self.done: dict[tuple[str, str], QuestionRecord] = {}
        if folder is None:
            return
        folder.mkdir(parents=True, exist_ok=True)
        manifest_path = folder / MANIFEST_FILE
        if manifest_path.is_file():
            previous = json.loads(manifest_path.read_text(encoding="utf-8"))
            if previous != manifest:
                raise UserInputError(
                    f"{folder} holds a run with different settings ({_differences(previous, manifest)}); "
                    "use another --out folder or delete this one"
                )
        else:
            manifest_path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        records_path = folder / RECORDS_FILE
        if records_path.is_file():
            for line in records_path.read_text(encoding="utf-8").splitlines():
                try:
                    record = QuestionRecord.from_dict(json.loads(line))
                except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                    continue  # the last line of an interrupted run may be cut short
                self.done[(record.method, record.question_id)] = record

    def get(self, method: str, question_id: str) -> QuestionRecord | None:
        return self.done.get((method, question_id))

    def add(self, record: QuestionRecord) -> None:
        self.done[(record.method, record.question_id)] = record
        if self.folder is not None:
            with (self.folder / RECORDS_FILE).open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(record.to_dict(), ensure_ascii=False) + "\n")


def _differences(old: dict[str, Any], new: dict[str, Any]) -> str:
    return ", ".join(f"{k}: {old.get(k)!r} then {new.get(k)!r}" for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k))


class RetrievalRunner:
    """Stage: run each method on each question, score, summarise."""

    def __init__(
        self,
        resources: EvalResources,
        methods: list[str],
        ks: list[int],
        out_dir: Path | None = None,
        progress: Progress | None = None,
    ) -> None:
        if not methods:
            raise UserInputError("name at least one --method")
        if not ks or any(k <= 0 for k in ks):
            raise UserInputError("--k needs positive cut-offs, e.g. 10,50,100")
        self.resources = resources
        self.method_names = list(dict.fromkeys(methods))
        self.ks = sorted(set(ks))
        self.out_dir = out_dir
        self.progress = progress or (lambda method, done, total: None)

    def run(self, questions: list[EvalQuestion], split: str | None = None) -> RetrievalReport:
        """Rank, score and summarise; records already in the output folder are reused."""
        dataset: EvalDataset = self.resources.dataset
        depth = max(self.ks)
        store = RecordStore(
            self.out_dir,
            {
                "dataset": dataset.name,
                "corpus": dataset.corpus_key(),
                "split": split,
                "depth": depth,
                "settings": self.resources.ranking_settings(),
            },
        )
        qrels = {q.id: q.gold for q in questions}
        all_records: list[QuestionRecord] = []
        summaries = []
        for name in self.method_names:
            todo = [q for q in questions if store.get(name, q.id) is None]
            method = create_method(name, self.resources) if todo else None
            if method is not None and hasattr(method, "prepare"):
                method.prepare(todo)
            records = []
            try:
                for done, question in enumerate(questions, start=1):
                    record = store.get(name, question.id)
                    if record is None:
                        result = self._ask(method, question, depth)
                        record = QuestionRecord(name, question.id, result.ranking, result.trace)
                        store.add(record)
                    records.append(record)
                    self.progress(name, done, len(questions))
            finally:
                if method is not None and hasattr(method, "close"):
                    method.close()  # e.g. the reranker's vector store
            by_id = {r.question_id: r for r in records}
            for qid, scores in retrieval_scores(qrels, {qid: dict(r.ranking) for qid, r in by_id.items()}, self.ks).items():
                by_id[qid].scores = scores
            summaries.append(summarise(name, records))
            all_records.extend(records)
        return RetrievalReport(dataset.name, split, self.ks, summaries, all_records, list(dataset.notes))

    @staticmethod
    def _ask(method: Any, question: EvalQuestion, k: int) -> MethodResult:
        started = time.perf_counter()
        result: MethodResult = method.run(question, k)
        if not result.trace.stage_seconds:
            result.trace.stage_seconds["run"] = time.perf_counter() - started
        return result
