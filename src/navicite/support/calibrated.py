"""The calibrated support judge: the trained judge, the chat model and the word rules as one score.

The score is a logistic model fitted on the labelled set's tuning part
(``bench/support_judge_measure.py calibrate``; its figures in ``weights/calibration.json``):

    z = bias + w_trained * logit(trained judge's probability) + w_llm * vote
        + sum of w_rule over the word rules that object (names, subject, overlap floor, ...)

where the model's vote is its log-odds of "yes" scaled into [-1, 1] (:func:`model_vote`: +1 for
a sure yes, -1 for a sure no, 0 when not asked; a backend without log-probabilities votes +-1)

and a claim is supported when z reaches ``threshold``, set on the tuning part for precision 0.95.
The word rules no longer refuse by themselves: each is a piece of evidence with the weight the
labels gave it. What still refuses outright is what states nothing (a fragment, a passage that
gives orders) and a number no passage holds (:class:`~navicite.support.rules.Numbers`).

The model is asked only when its answer can change the verdict: when z without it is within
``|w_llm|`` of the threshold. So most claims cost no model call, and the budget
(``max_calls``) is spent where the trained judge is unsure.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from navicite.support.base import Passage, SupportJudge, Verdict
from navicite.support.cascade import default_rules
from navicite.support.rules import Fragment, Numbers, Rule, instructs
from navicite.support.trained import SHIPPED, TrainedJudge, shipped_network

#: The shipped calibration, fitted with the shipped network.
CALIBRATION_FILE = "calibration.json"

#: The name a verdict carries when the calibrated score decided.
CALIBRATED = "calibrated"


@dataclass(frozen=True)
class Calibration:
    """The fitted weights of the combined score and its accept threshold."""

    bias: float
    trained: float
    llm: float
    rules: dict[str, float] = field(default_factory=dict)
    threshold: float = 0.0
    #: What the fit measured, for the record (pairs, precision and recall on the tuning part).
    fitted_on: dict[str, object] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Calibration:
        """Read a calibration written by :meth:`save`."""
        raw = json.loads(path.read_text(encoding="utf-8"))
        return cls(float(raw["bias"]), float(raw["trained"]), float(raw["llm"]),
                   {k: float(v) for k, v in raw.get("rules", {}).items()}, float(raw["threshold"]),
                   dict(raw.get("fitted_on", {})))

    def save(self, path: Path) -> None:
        """Write the calibration as JSON."""
        path.write_text(json.dumps({"bias": self.bias, "trained": self.trained, "llm": self.llm, "rules": self.rules,
                                    "threshold": self.threshold, "fitted_on": self.fitted_on}, indent=1) + "\n",
                        encoding="utf-8")

    def base(self, probability: float, objections: Sequence[str]) -> float:
        """The score without the model's vote."""
        p = min(max(probability, 1e-6), 1 - 1e-6)
        return self.bias + self.trained * math.log(p / (1 - p)) + sum(self.rules.get(r, 0.0) for r in objections)

    def probability(self, z: float) -> float:
        """``z`` as a probability of support (the logistic model's)."""
        return 1.0 / (1.0 + math.exp(-z))


#: Log-odds of "yes" at which the model's vote is full (+-1); beyond, it counts no more.
VOTE_SPAN = 6.0


def model_vote(score: float) -> float:
    """The model's verdict score (its probability of "yes", or 1.0 / 0.0) as a vote in [-1, 1]."""
    p = min(max(score, 1e-6), 1 - 1e-6)
    return max(-1.0, min(1.0, math.log(p / (1 - p)) / VOTE_SPAN))


class CalibratedJudge:
    """A :class:`~navicite.support.base.SupportJudge` of the trained judge, the word rules and the model.

    ``rules``: the word rules whose objections are features (each named in ``calibration.rules``);
    ``model``: the chat model's judge, asked only when it can change the verdict, at most
    ``max_calls`` times (``calls`` counts them).
    """

    name = CALIBRATED

    def __init__(self, trained: TrainedJudge, calibration: Calibration, rules: Sequence[Rule],
                 model: SupportJudge | None = None, max_calls: int | None = None) -> None:
        self.trained = trained
        self.calibration = calibration
        self.rules = list(rules)
        self.model = model
        self.max_calls = max_calls
        self.calls = 0
        self.fired: dict[str, int] = {}
        self._vetoes: list[Rule] = [Fragment(), Numbers()]

    def objections(self, premises: Sequence[Passage], claim: str, given: Sequence[str]) -> list[str]:
        """The word rules that would refuse the pair."""
        out = []
        for rule in self.rules:
            verdict = rule.decide(premises, claim, given)
            if verdict is not None and not verdict.supported:
                out.append(rule.name)
        return out

    def entails(self, premises: Sequence[Passage], claim: str, given: Sequence[str] = ()) -> Verdict:
        kept = [p for p in premises if p.text.strip() and not instructs(p)]
        if not kept or not claim.strip():
            reason = "the passage gives orders to its reader; it states nothing" if premises else "nothing to judge"
            return Verdict(False, 0.0, "instructions" if premises and not kept else self.name, reason)
        for veto in self._vetoes:
            refused = veto.decide(kept, claim, given)
            if refused is not None:
                self.fired[refused.by] = self.fired.get(refused.by, 0) + 1
                return refused
        cal = self.calibration
        probability = self.trained.probability(kept, claim)
        objections = self.objections(kept, claim, given)
        z = cal.base(probability, objections)
        vote = 0.0
        unsure = abs(z - cal.threshold) < abs(cal.llm)
        if unsure and self.model is not None and (self.max_calls is None or self.calls < self.max_calls):
            self.calls += 1
            vote = model_vote(self.model.entails(kept, claim, given).score)
            z += cal.llm * vote
        reason = f"trained {probability:.2f}" + (f", model vote {vote:+.2f}" if vote else "") + \
            (f", objections: {', '.join(objections)}" if objections else "")
        return Verdict(z >= cal.threshold, round(cal.probability(z), 4), self.name, reason)


def shipped_judge(cache_dir: Path, model: SupportJudge | None = None, max_calls: int | None = None,
                  threads: int = 1) -> CalibratedJudge:
    """The shipped trained judge and its calibration, with the word rules it was calibrated with.

    Raises:
        navicite.errors.ConfigError: the network cannot be rebuilt (the MiniLM weights are missing
            or are not the ones it was made on).
    """
    calibration = Calibration.load(SHIPPED / CALIBRATION_FILE)
    rules = [r for r in default_rules() if r.name in calibration.rules]
    return CalibratedJudge(TrainedJudge(shipped_network(cache_dir), threads=threads), calibration, rules, model, max_calls)
