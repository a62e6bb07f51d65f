"""The LLM entailment judge with the real embedded model, on clear-cut claims (one source, and two read together)."""

from __future__ import annotations

import pytest

from navicite.eval.judge import create_judge
from navicite.llm.base import LLM

pytestmark = pytest.mark.llm

PREMISE = (
    "Title: Eiffel Tower\nThe Eiffel Tower is a wrought-iron lattice tower in Paris, France. "
    "It was completed in 1889 as the entrance to the World's Fair and is 330 metres tall."
)


def test_real_model_judges_clear_support_and_clear_contradiction(real_llm: LLM) -> None:
    judge = create_judge("llm", lambda: real_llm, lambda: None)
    assert judge.entails(PREMISE, "The Eiffel Tower was completed in 1889.") is True
    assert judge.entails(PREMISE, "The Eiffel Tower stands in Berlin and was finished in 1920.") is False
    assert judge.failures == 0
    assert sum(1 for u in real_llm.usage.calls if u.stage == "judge") >= 2


def test_real_model_reads_two_sources_together_for_a_claim_that_needs_both(real_llm: LLM) -> None:
    from navicite.support.base import Passage
    from navicite.support.llm import LLMJudge

    pair = [Passage("Scott Derrickson", "Scott Derrickson (born July 16, 1966) is an American director, screenwriter and producer."),
            Passage("Ed Wood", "Edward Davis Wood Jr. (1924–1978) was an American filmmaker, actor and writer.")]
    judge = LLMJudge(real_llm)
    assert judge.entails(pair, "Scott Derrickson and Ed Wood were both American.").supported
    assert not judge.entails(pair, "Scott Derrickson and Ed Wood were both born in France in 1950.").supported
    assert judge.failures == 0


def test_the_calibrated_judge_with_the_real_model_and_the_shipped_network(real_llm: LLM, tmp_path) -> None:
    from navicite.support.base import Passage
    from navicite.support.calibrated import Calibration, CalibratedJudge, shipped_judge
    from navicite.support.llm import LLMJudge
    from navicite.support.trained import available

    if not available():
        pytest.skip("the trained judge's weights are not in this checkout")
    shipped = shipped_judge(tmp_path, LLMJudge(real_llm))
    tower = Passage("Eiffel Tower", PREMISE.split("\n", 1)[1])
    # A number no passage holds is refused before the network or the model is asked.
    assert shipped.entails([tower], "The Eiffel Tower was completed in 1887.").by == "numbers" and shipped.calls == 0
    # With the model's vote weighing most, the real network and the real model decide together.
    judge = CalibratedJudge(shipped.trained, Calibration(bias=0.0, trained=0.1, llm=2.0, threshold=0.0), [], LLMJudge(real_llm))
    assert judge.entails([tower], "The Eiffel Tower was completed in 1889.").supported
    assert not judge.entails([tower], "The Eiffel Tower is a stone church in Berlin.").supported
    assert judge.calls == 2 and judge.model.failures == 0


def test_the_real_model_gives_its_probability_of_yes_and_the_cache_keeps_it(real_llm: LLM) -> None:
    from navicite.support.base import Passage
    from navicite.support.llm import LLMJudge

    tower = [Passage("Eiffel Tower", PREMISE.split("\n", 1)[1])]
    judge = LLMJudge(real_llm)
    stated = judge.entails(tower, "The Eiffel Tower is 330 metres tall.")
    wrong = judge.entails(tower, "The Eiffel Tower is a stone church in Berlin.")
    # Probabilities read off the verdict token, not the 1.0 / 0.0 of a bare yes or no.
    assert stated.supported and 0.5 < stated.score < 1.0
    assert not wrong.supported and 0.0 < wrong.score < 0.5
    assert judge.entails(tower, "The Eiffel Tower is 330 metres tall.").score == stated.score  # served by the cache
