"""navicite's support cross-encoder as a judge: the thresholds and the unsure band (scripted network),
and the shipped network itself (rebuilt offline from its delta) on labelled pairs."""

from __future__ import annotations

import numpy as np
import pytest

from navicite.support.base import Passage
from navicite.support.crossenc import CrossEncoderJudge, pair_text
from navicite.support.llm import LLMJudge

FRANCE = Passage("France", "France is a country in Western Europe. Its capital is Paris.")


class _Network:
    """A scripted network: the logit given for each claim, and what it was shown."""

    def __init__(self, logits: dict[str, float]) -> None:
        self.logits = logits
        self.shown: list[tuple[str, str]] = []

    def score(self, question, texts, max_length=256, batch_size=16):
        self.shown += [(question, t) for t in texts]
        return np.array([self.logits[question] for _ in texts], dtype=np.float32)


def _logit(p: float) -> float:
    return float(np.log(p / (1 - p)))


def test_the_network_accepts_above_accept_refuses_below_refuse_and_asks_the_model_between(scripted_llm) -> None:
    network = _Network({"sure": _logit(0.97), "unsure": _logit(0.6), "no": _logit(0.1)})
    llm = scripted_llm('{"supported": true}')
    judge = CrossEncoderJudge(network, accept=0.9, refuse=0.3, fallback=LLMJudge(llm))
    sure, unsure, no = (judge.entails([FRANCE], c) for c in ("sure", "unsure", "no"))
    assert sure.supported and sure.by == "cross-encoder" and sure.score == pytest.approx(0.97, abs=1e-4)
    assert unsure.supported and unsure.by == "cross-encoder+llm"
    assert not no.supported and no.by == "cross-encoder" and "0.10" in no.reason
    assert judge.fallback_calls == 1 and llm.remaining == 0


def test_without_a_fallback_the_unsure_band_is_refused() -> None:
    judge = CrossEncoderJudge(_Network({"unsure": _logit(0.6)}), accept=0.9, refuse=0.3)
    assert not judge.entails([FRANCE], "unsure").supported


def test_the_network_reads_the_claim_first_and_the_passages_together_under_their_titles() -> None:
    network = _Network({"Paris is the capital of France.": 3.0})
    other = Passage("", "Paris has about two million inhabitants.")
    CrossEncoderJudge(network, accept=0.9).entails([FRANCE, other, Passage("blank", "  ")], " Paris is the capital of France. ")
    assert network.shown == [("Paris is the capital of France.", pair_text([(FRANCE.title, FRANCE.text), ("", other.text)]))]
    assert network.shown[0][1] == f"France\n{FRANCE.text}\n\n{other.text}"


def test_nothing_to_judge_and_crossed_thresholds(scripted_llm) -> None:
    judge = CrossEncoderJudge(_Network({}), accept=0.9)
    assert not judge.entails([Passage("t", " ")], "claim").supported
    with pytest.raises(ValueError, match="above accept"):
        CrossEncoderJudge(_Network({}), accept=0.5, refuse=0.7, fallback=LLMJudge(scripted_llm()))
