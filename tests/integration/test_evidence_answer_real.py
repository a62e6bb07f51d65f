"""The evidence evaluation's answering step with the real embedded model: one option letter, one short answer."""

from __future__ import annotations

import pytest

from navicite.eval.datasets import EvalQuestion
from navicite.eval.reading import EvidenceReader
from navicite.llm.base import LLM

pytestmark = pytest.mark.llm

EVIDENCE = [
    (
        "The lighthouse keeper, Ada Brenn, buried the chest of silver under the old lighthouse on the cliff, "
        "because nobody would dig beside a building the town still used every night."
    ),
    "The fishing fleet left the harbour at dawn and came back with a poor catch.",
]


def test_the_model_picks_the_supported_option_and_answers_briefly(real_llm: LLM) -> None:
    reader = EvidenceReader(real_llm)
    choice = EvalQuestion(
        id="mc", text="Where was the silver buried?", gold={"d": 1}, answers=("(C) under the lighthouse",),
        metadata={"choices": {"A": "in the harbour", "B": "on the fishing boat", "C": "under the lighthouse",
                              "D": "in the town hall"}, "gold_choice": "C"},
    )
    picked = reader.run("bm25", choice, EVIDENCE, 200)
    assert picked.error is None and picked.answer.startswith("(") and picked.accuracy == 1.0

    open_question = EvalQuestion(id="open", text="Who buried the chest of silver?", gold={"d": 1}, answers=("Ada Brenn",))
    answered = reader.run("bm25", open_question, EVIDENCE, 200)
    assert answered.error is None and answered.f1 is not None and answered.f1 > 0.5
    assert len(answered.answer.split()) <= 12  # a short answer, not a paragraph
