"""Saved answers: reading them, and scoring answer quality and citations per method.

One JSON object per line. For ``eval qa``: ``question_id``, ``answer``, optionally
``method`` (default ``"answers"``) and ``evidence`` (the texts handed to the
generator, for answer-in-context recall). For ``eval citations``: ``answer`` with
``[n]`` markers and ``sources`` (list of ``{"title", "text"}`` or strings, numbered
from 1), optionally ``method`` and ``id``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from navicite.eval.citations import CitationCounts, CitationScorer
from navicite.eval.datasets import DatasetError, EvalQuestion, read_jsonl, require_field
from navicite.eval.metrics import answer_in_context_recall, best_em_f1, choice_accuracy, language_match, mean_scores

DEFAULT_METHOD = "answers"


@dataclass(frozen=True)
class SavedAnswer:
    """One line of a saved answers file."""

    method: str
    question_id: str
    answer: str
    evidence: tuple[str, ...] | None
    sources: tuple[Any, ...]
    where: str


def read_answers(path: Path, need_sources: bool = False) -> list[SavedAnswer]:
    """Parse an answers file; a bad line is a :class:`DatasetError` naming file and line."""
    answers = []
    for number, rec in read_jsonl(path):
        where = f"{path}:{number}"
        evidence = rec.get("evidence")
        if evidence is not None and not (isinstance(evidence, list) and all(isinstance(e, str) for e in evidence)):
            raise DatasetError(f"{where}: field 'evidence' should be a list of strings")
        sources = require_field(rec, "sources", where, list) if need_sources else rec.get("sources") or []
        question_id = rec.get("question_id", rec.get("id", number))
        answers.append(
            SavedAnswer(
                method=str(rec.get("method") or DEFAULT_METHOD),
                question_id=str(question_id),
                answer=require_field(rec, "answer", where),
                evidence=tuple(evidence) if evidence is not None else None,
                sources=tuple(sources),
                where=where,
            )
        )
    if not answers:
        raise DatasetError(f"{path}: no answers in the file")
    return answers


def score_answer(saved: SavedAnswer, question: EvalQuestion) -> dict[str, float]:
    """The answer measures that apply to this question."""
    scores: dict[str, float] = {}
    gold_choice = question.metadata.get("gold_choice")
    if gold_choice:
        scores["choice_accuracy"] = choice_accuracy(saved.answer, gold_choice)
    elif question.answers:
        scores["em"], scores["f1"] = best_em_f1(saved.answer, question.answers)
    scores["language_match"] = language_match(saved.answer, question.text)
    if saved.evidence is not None and question.answers:
        golds = question.answers
        if gold_choice:
            # The text of the right option is what the evidence has to contain.
            golds = (question.metadata["choices"].get(gold_choice, ""),)
        scores["answer_in_context_recall"] = answer_in_context_recall(golds, saved.evidence)
    return scores


def score_qa(answers: list[SavedAnswer], questions: list[EvalQuestion]) -> dict[str, dict[str, Any]]:
    """Per method: mean of each answer measure and the number of questions scored."""
    by_id = {q.id: q for q in questions}
    unknown = [a for a in answers if a.question_id not in by_id]
    if unknown:
        raise DatasetError(f"{unknown[0].where}: question id {unknown[0].question_id!r} is not in the data set")
    per_method: dict[str, dict[str, dict[str, float]]] = {}
    for saved in answers:
        per_method.setdefault(saved.method, {})[saved.question_id] = score_answer(saved, by_id[saved.question_id])
    out = {}
    for method, rows in per_method.items():
        names = sorted({name for row in rows.values() for name in row})
        # Each measure is averaged over the questions it applies to.
        means = {n: mean_scores({q: {n: r[n]} for q, r in rows.items() if n in r}).get(n, 0.0) for n in names}
        out[method] = {"questions": len(rows), "metrics": means}
    return out


def score_citations(
    answers: list[SavedAnswer], scorer: CitationScorer, progress: Callable[[int, int], None] | None = None
) -> dict[str, dict[str, Any]]:
    """Per method: ALCE citation figures over all its answers."""
    totals: dict[str, CitationCounts] = {}
    counted: dict[str, int] = {}
    for done, saved in enumerate(answers, start=1):
        counts = scorer.score_answer(saved.answer, list(saved.sources))
        totals.setdefault(saved.method, CitationCounts()).add(counts)
        counted[saved.method] = counted.get(saved.method, 0) + 1
        if progress:
            progress(done, len(answers))
    return {method: {"answers": counted[method], "metrics": counts.rates()} for method, counts in totals.items()}
