"""The answering step of the evidence evaluation: the model reads a method's evidence and answers.

Answer-in-context recall says whether the evidence *contains* the answer; this step says
whether the model can *use* it. Every method's evidence (already cut to the same token
budget) goes through the same prompt and the same model:

- a multiple-choice question (QuALITY) asks for one option letter, constrained by a JSON
  schema, and scores accuracy against the gold letter;
- an open question (scientific_qa) asks for a short answer and scores EM and token F1
  against the reference answers (HotpotQA's normalisation, eval/metrics.py).

A reply the model derails (bad JSON, a letter that names no option, an empty answer) is
recorded with its error and scores 0; it never stops the run.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from navicite import prompts
from navicite.eval.datasets import EvalQuestion
from navicite.eval.metrics import best_em_f1, choice_accuracy
from navicite.llm.base import LLM, CallOptions, LLMError, Message
from navicite.stages import StageRecorder

#: Reply budgets: a letter in JSON is a handful of tokens, a short answer a few dozen.
CHOICE_MAX_TOKENS = 16
SHORT_ANSWER_MAX_TOKENS = 64


class ChoiceReply(BaseModel):
    """Reply to a multiple-choice question."""

    choice: Literal["A", "B", "C", "D", "E", "F", "G", "H"]


class ShortAnswerReply(BaseModel):
    """Reply to an open question."""

    answer: str = Field(max_length=400)


@dataclass
class ReadingRecord:
    """One method's answer to one question from its evidence, with its score.

    The fields ``method``, ``question_id`` and ``answer`` make the file readable by
    ``navicite eval qa --answers`` too (a chosen option is written ``(B)``).
    """

    method: str
    question_id: str
    budget: int
    answer: str
    kind: Literal["choice", "open"]
    accuracy: float | None = None
    em: float | None = None
    f1: float | None = None
    error: str | None = None
    seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def numbered_evidence(evidence: list[str]) -> str:
    """The evidence texts as the answering prompts show them."""
    if not evidence:
        return "(no excerpts were found)"
    return "\n".join(f'<evidence n="{k}">\n{text}\n</evidence>' for k, text in enumerate(evidence, 1))


def is_choice(question: EvalQuestion) -> bool:
    """Whether ``question`` is multiple choice with a known gold letter."""
    return bool(question.metadata.get("choices")) and bool(question.metadata.get("gold_choice"))


class EvidenceReader:
    """Stage: answer a question from a method's evidence with the model, and score the answer."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    def run(self, method: str, question: EvalQuestion, evidence: list[str], budget: int) -> ReadingRecord:
        """Ask, parse and score; a failed call yields a record with ``error`` set and score 0."""
        choice = is_choice(question)
        recorder = StageRecorder()
        with recorder.stage("read"):
            answer, error = self._choose(question, evidence) if choice else self._answer(question, evidence)
        usage = recorder.usage()
        record = ReadingRecord(
            method=method,
            question_id=question.id,
            budget=budget,
            answer=answer,
            kind="choice" if choice else "open",
            error=error,
            seconds=round(recorder.last.seconds, 3),
            prompt_tokens=usage["prompt_tokens"],
            completion_tokens=usage["completion_tokens"],
        )
        if choice:
            record.accuracy = choice_accuracy(answer, question.metadata["gold_choice"]) if answer else 0.0
        else:
            record.em, record.f1 = best_em_f1(answer, question.answers) if answer else (0.0, 0.0)
        return record

    def _choose(self, question: EvalQuestion, evidence: list[str]) -> tuple[str, str | None]:
        choices: dict[str, str] = question.metadata["choices"]
        options = "\n".join(f"({letter}) {text}" for letter, text in choices.items())
        messages = prompts.render("eval_choose_option", evidence=numbered_evidence(evidence), question=question.text,
                                  options=options)
        reply, error = self._ask(messages, ChoiceReply, CHOICE_MAX_TOKENS, "eval_choose_option")
        if reply is None:
            return "", error
        if reply.choice not in choices:
            return "", f"the model chose {reply.choice}, which names no option"
        return f"({reply.choice}) {choices[reply.choice]}", None

    def _answer(self, question: EvalQuestion, evidence: list[str]) -> tuple[str, str | None]:
        messages = prompts.render("eval_short_answer", evidence=numbered_evidence(evidence), question=question.text)
        reply, error = self._ask(messages, ShortAnswerReply, SHORT_ANSWER_MAX_TOKENS, "eval_short_answer")
        if reply is None:
            return "", error
        answer = " ".join(reply.answer.split())
        return (answer, None) if answer else ("", "the model gave an empty answer")

    def _ask(self, messages: list[Message], schema: type[BaseModel], max_tokens: int, stage: str) -> tuple[Any, str | None]:
        options = CallOptions(stage=stage, max_tokens=max_tokens, temperature=0.0)
        try:
            return self.llm.complete_json(messages, schema, options), None
        except LLMError as exc:
            return None, str(exc)


def summarise_reading(records: list[ReadingRecord]) -> dict[str, float]:
    """Mean accuracy (choice questions) and EM/F1 (open questions), with counts and failures."""
    figures: dict[str, float] = {"answered": len(records), "answer_failures": sum(1 for r in records if r.error)}
    chosen = [r.accuracy for r in records if r.accuracy is not None]
    opened = [r for r in records if r.f1 is not None]
    if chosen:
        figures["choice_accuracy"] = sum(chosen) / len(chosen)
    if opened:
        figures["em"] = sum(r.em or 0.0 for r in opened) / len(opened)
        figures["f1"] = sum(r.f1 or 0.0 for r in opened) / len(opened)
    if records:
        figures["answer_seconds"] = sum(r.seconds for r in records) / len(records)
    return figures
