"""The support cascade: cheap rules first, the model only for what they cannot decide.

A passage that gives orders to its reader (:func:`~navicite.support.rules.instructs`) is no
premise at all: it is set aside before anything else, and a claim left with no passage is not
supported. Then each rule may refuse or accept; what none decides goes to the model judge, or,
without a model (or when the per-answer call budget is spent), to word overlap against
``threshold``.
"""

from __future__ import annotations

from collections.abc import Sequence

from navicite.support.base import Passage, SupportJudge, Verdict
from navicite.support.rules import Fragment, Names, OverlapAccept, OverlapFloor, Rule, Subject, Wording, instructs
from navicite.support.words import lexical_support, same_script

#: The name a verdict carries when an instructing passage was set aside and nothing was left.
INSTRUCTIONS = "instructions"


class Cascade:
    """A :class:`~navicite.support.base.SupportJudge` of rules in order, then ``model``.

    ``max_calls``: most model calls (None: no limit); past it, overlap decides. ``calls``
    counts the calls made and ``fired`` how often each rule decided.
    """

    name = "cascade"

    def __init__(self, rules: Sequence[Rule], model: SupportJudge | None = None, threshold: float = 0.5,
                 max_calls: int | None = None, screen_instructions: bool = True) -> None:
        self.rules = list(rules)
        self.model = model
        self.threshold = threshold
        self.max_calls = max_calls
        self.screen_instructions = screen_instructions
        self.calls = 0
        self.fired: dict[str, int] = {}

    def entails(self, premises: Sequence[Passage], claim: str, given: Sequence[str] = ()) -> Verdict:
        if self.screen_instructions:
            kept = [p for p in premises if not instructs(p)]
            if len(kept) < len(premises) and not kept:
                return self._fire(Verdict(False, 0.0, INSTRUCTIONS, "the passage gives orders to its reader; it states nothing"))
            premises = kept
        if not premises or not claim.strip():
            return Verdict(False, 0.0, self.name, "nothing to judge")
        for rule in self.rules:
            verdict = rule.decide(premises, claim, given)
            if verdict is not None:
                return self._fire(verdict)
        if self.model is not None and (self.max_calls is None or self.calls < self.max_calls):
            self.calls += 1
            return self.model.entails(premises, claim, given)
        score = lexical_support(claim, "\n".join(p.full_text for p in premises))
        return Verdict(score >= self.threshold, score, "lexical")

    def _fire(self, verdict: Verdict) -> Verdict:
        self.fired[verdict.by] = self.fired.get(verdict.by, 0) + 1
        return verdict

    def without(self, name: str) -> Cascade:
        """The same cascade with the rule ``name`` left out (for measuring what it adds)."""
        return Cascade([r for r in self.rules if r.name != name], self.model, self.threshold, self.max_calls,
                       self.screen_instructions and name != INSTRUCTIONS)


def cross_script(claim: str, premises: Sequence[Passage]) -> bool:
    """Whether the claim and a passage are in different scripts (a Korean answer on English sources)."""
    return not all(same_script(claim, p.full_text) for p in premises)


def default_rules(novel_words: int = 0, accept: float = 0.8) -> list[Rule]:
    """The rules kept after measurement, cheapest first (``novel_words`` 0: the wording rule is off)."""
    rules: list[Rule] = [Fragment(), Names(), Subject()]
    if novel_words:
        rules.append(Wording(novel_words))
    rules += [OverlapFloor(), OverlapAccept(accept)]
    return rules
