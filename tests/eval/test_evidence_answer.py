"""The answering step of the evidence evaluation: option letters, short answers, bad replies, resume."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from navicite.eval.answers import read_answers, score_qa
from navicite.eval.datasets import load_dataset
from navicite.eval.evidence import ANSWERS_FILE, EvidenceRunner
from navicite.eval.reading import EvidenceReader, summarise_reading
from navicite.llm.base import Message
from navicite.llm.scripted import ScriptedLLM

from . import test_evidence as base
from .test_evidence import PARAGRAPHS, small_settings

story = base.story  # the two-question QuALITY-style file, shared with the recall tests


@pytest.fixture
def paper(tmp_path: Path) -> Path:
    """An L-Eval file with open questions (scientific_qa's layout: no options)."""
    rec = {
        "input": "\n".join(PARAGRAPHS),
        "instructions": ["Who sailed north?", "What broke the mast?"],
        "outputs": ["Captain Mora", "a storm"],
        "evaluation": "f1",
    }
    path = tmp_path / "paper.jsonl"
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    return path


def by_question(letters: dict[str, str]) -> Any:
    """A model that answers each multiple-choice prompt with the letter given for a word in its question."""

    def reply(messages: list[Message]) -> Any:
        text = messages[-1].content
        word = next(w for w in letters if f"Question: {w}" in text)
        return {"choice": letters[word]}

    return reply


def test_choice_accuracy_per_method_from_the_same_evidence(story: Path, tmp_path: Path) -> None:
    data = load_dataset(f"leval:{story}")
    # Gold: treasure (B), mast (A). The model is right on the first, wrong on the second.
    llm = ScriptedLLM(default=by_question({"Where": "B", "What": "B"}), concurrency=1)
    report = EvidenceRunner(data, small_settings(tmp_path / "home"), ["bm25", "dense"], budget=40, llm=llm,
                            answer=True).run(data.questions)
    for method in ("bm25", "dense"):
        figures = report.methods[method]
        assert figures["choice_accuracy"] == 0.5 and figures["answered"] == 2 and figures["answer_failures"] == 0
    first = llm.calls[0]
    assert "(A) in the harbour" in first.prompt and "(B) under the lighthouse on the cliff" in first.prompt
    assert report.records[0].evidence[0] in first.prompt  # the method's evidence, cut to the budget
    assert first.json_schema is not None and first.max_tokens <= 16
    assert [r.answer for r in report.readings[:2]] == ["(B) under the lighthouse on the cliff", "(B) iron nails"]


@pytest.mark.parametrize("bad", ["I think it is the lighthouse", {"choice": "D"}, {"letter": "B"}])
def test_a_bad_reply_counts_as_wrong_and_the_run_goes_on(story: Path, tmp_path: Path, bad: Any) -> None:
    data = load_dataset(f"leval:{story}")
    reader = EvidenceReader(ScriptedLLM(default=bad, concurrency=1))
    record = reader.run("bm25", data.questions[0], ["The treasure lies under the lighthouse."], 40)
    assert record.accuracy == 0.0 and record.answer == "" and record.error
    assert summarise_reading([record]) == {"answered": 1, "answer_failures": 1, "choice_accuracy": 0.0,
                                           "answer_seconds": record.seconds}


def test_open_questions_score_em_and_token_f1(paper: Path, tmp_path: Path) -> None:
    data = load_dataset(f"leval:{paper}")
    llm = ScriptedLLM([{"answer": "Captain Mora"}, {"answer": "a big storm at sea"}], concurrency=1)
    report = EvidenceRunner(data, small_settings(tmp_path / "home"), ["bm25"], budget=40, llm=llm, answer=True).run(data.questions)
    figures = report.methods["bm25"]
    # "a big storm at sea" vs "a storm": normalised tokens {big, storm, at, sea} vs {storm} -> P 1/4, R 1, F1 0.4.
    assert figures["em"] == 0.5 and figures["f1"] == pytest.approx((1.0 + 0.4) / 2)
    assert "choice_accuracy" not in figures
    assert "as few words as possible" in llm.calls[0].prompt


def test_empty_answer_is_a_failure_scored_zero(paper: Path) -> None:
    data = load_dataset(f"leval:{paper}")
    record = EvidenceReader(ScriptedLLM([{"answer": "  "}], concurrency=1)).run("dense", data.questions[0], [], 40)
    assert record.f1 == 0.0 and record.em == 0.0 and record.error == "the model gave an empty answer"


def test_answers_resume_and_are_readable_by_eval_qa(story: Path, tmp_path: Path) -> None:
    data = load_dataset(f"leval:{story}")
    settings = small_settings(tmp_path / "home")
    out = tmp_path / "run"
    llm = ScriptedLLM(default=by_question({"Where": "B", "What": "A"}), concurrency=1)
    first = EvidenceRunner(data, settings, ["bm25"], budget=40, out_dir=out, llm=llm, answer=True).run(data.questions)
    assert first.methods["bm25"]["choice_accuracy"] == 1.0
    silent = ScriptedLLM(concurrency=1)  # any request fails the test
    again = EvidenceRunner(data, settings, ["bm25"], budget=40, out_dir=out, llm=silent, answer=True).run(data.questions)
    assert again.methods == first.methods and silent.calls == []
    scored = score_qa(read_answers(out / ANSWERS_FILE), data.questions)
    assert scored["bm25"]["metrics"]["choice_accuracy"] == 1.0
