"""The LLM entailment judge with the real embedded model, on two clear-cut claims."""

from __future__ import annotations

import pytest

from navicite.eval.judge import LLMJudge
from navicite.llm.base import LLM

pytestmark = pytest.mark.llm

PREMISE = (
    "Title: Eiffel Tower\nThe Eiffel Tower is a wrought-iron lattice tower in Paris, France. "
    "It was completed in 1889 as the entrance to the World's Fair and is 330 metres tall."
)


def test_real_model_judges_clear_support_and_clear_contradiction(real_llm: LLM) -> None:
    judge = LLMJudge(real_llm)
    assert judge.entails(PREMISE, "The Eiffel Tower was completed in 1889.") is True
    assert judge.entails(PREMISE, "The Eiffel Tower stands in Berlin and was finished in 1920.") is False
    assert judge.failures == 0
    assert sum(1 for u in real_llm.usage.calls if u.stage == "judge") >= 2
