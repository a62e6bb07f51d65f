"""Scoring saved answers against a data set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from navicite.eval.answers import read_answers, score_citations, score_qa
from navicite.eval.citations import CitationScorer
from navicite.eval.datasets import DatasetError, EvalQuestion
from navicite.eval.judge import LexicalJudge

QUESTIONS = [
    EvalQuestion("h1", "Where was Charles Babbage born?", {"x": 1}, answers=("London",)),
    EvalQuestion(
        "m1", "Who guarded the prisoner in the story?", {"y": 1}, answers=("(B) a dog",),
        metadata={"choices": {"A": "a cat", "B": "a dog"}, "gold_choice": "B"},
    ),
]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_score_qa_per_method(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "answers.jsonl",
        [
            {"method": "a", "question_id": "h1", "answer": "He was born in London.", "evidence": ["Babbage was born in London."]},
            {"method": "a", "question_id": "m1", "answer": "(B) a dog guarded him.", "evidence": ["A dog stood guard."]},
            {"method": "b", "question_id": "h1", "answer": "London", "evidence": ["Nothing useful."]},
        ],
    )
    results = score_qa(read_answers(path), QUESTIONS)
    a, b = results["a"]["metrics"], results["b"]["metrics"]
    assert results["a"]["questions"] == 2
    assert a["em"] == 0.0 and a["f1"] == pytest.approx(2 * (1 / 5) / (1 + 1 / 5))  # 1 of 5 predicted tokens
    assert a["choice_accuracy"] == 1.0 and a["language_match"] == 1.0
    assert a["answer_in_context_recall"] == 1.0  # "London" and the option text "dog" are in the evidence
    assert b["em"] == 1.0 and b["answer_in_context_recall"] == 0.0


def test_unknown_question_id_names_the_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "answers.jsonl", [{"question_id": "h1", "answer": "x"}, {"question_id": "zz", "answer": "y"}])
    with pytest.raises(DatasetError, match=rf"{path}:2: question id 'zz'"):
        score_qa(read_answers(path), QUESTIONS)


def test_citation_answers_need_sources(tmp_path: Path) -> None:
    path = _write(tmp_path / "cited.jsonl", [{"answer": "Babbage was born in London [1]."}])
    with pytest.raises(DatasetError, match=rf"{path}:1: missing field 'sources'"):
        read_answers(path, need_sources=True)
    path = _write(tmp_path / "cited.jsonl", [{"answer": "Babbage was born in London [1].", "sources": ["Babbage was born in London."]}])
    results = score_citations(read_answers(path, need_sources=True), CitationScorer(LexicalJudge()))
    assert results["answers"]["metrics"]["citation_recall"] == 1.0
