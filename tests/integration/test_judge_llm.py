"""The LLM entailment judge with the real embedded model, on clear-cut claims (one source, and two read together)."""

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


def test_real_model_reads_two_sources_together_for_a_claim_that_needs_both(real_llm: LLM) -> None:
    from navicite.generate.answer import Source
    from navicite.generate.sources import ContextEntry
    from navicite.generate.verify import JudgeScorer

    def entry(n: int, title: str, text: str) -> ContextEntry:
        return ContextEntry(n, Source(f"d{n}", title, text), text, False)

    pair = [entry(1, "Scott Derrickson", "Scott Derrickson (born July 16, 1966) is an American director, screenwriter and producer."),
            entry(2, "Ed Wood", "Edward Davis Wood Jr. (1924–1978) was an American filmmaker, actor and writer.")]
    judge = JudgeScorer(real_llm)
    assert judge.score_together("Scott Derrickson and Ed Wood were both American.", pair) == 1.0
    assert judge.score_together("Scott Derrickson and Ed Wood were both born in France in 1950.", pair) == 0.0
    assert judge.failures == 0
