"""The support cascade: cheap rules first, the model only for what they cannot decide.

A passage that gives orders to its reader (:func:`~navicite.support.rules.instructs`) is no
premise at all: it is set aside before anything else, and a claim left with no passage is not
supported. Then each rule may refuse or accept; what none decides goes to the model judge, or,
without a model (or when the per-answer call budget is spent), it is not supported: only a rule
(overlap within one span of a passage) can accept without the model.
"""

from __future__ import annotations

from collections.abc import Sequence

from navicite.support.base import Passage, SupportJudge, Verdict
from navicite.support.rules import Fragment, Names, OverlapAccept, OverlapFloor, Rule, SectionNumber, Subject, Wording, instructs
from navicite.support.words import span_support

#: The name a verdict carries when an instructing passage was set aside and nothing was left.
INSTRUCTIONS = "instructions"
#: The name a verdict carries when no rule decided and no model could be asked.
UNDECIDED = "undecided"


class Cascade:
    """A :class:`~navicite.support.base.SupportJudge` of rules in order, then ``model``.

    ``max_calls``: most model calls (None: no limit); past it, overlap decides. ``calls``
    counts the calls made and ``fired`` how often each rule decided.
    """

    name = "cascade"

    def __init__(self, rules: Sequence[Rule], model: SupportJudge | None = None, max_calls: int | None = None,
                 screen_instructions: bool = True) -> None:
        self.rules = list(rules)
        self.model = model
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
        # Without the model only the rules can accept: what they leave open is not shown as supported.
        score = max(span_support(claim, p.text, p.title) for p in premises)
        return Verdict(False, score, UNDECIDED, "no rule decided and no model was asked")

    def _fire(self, verdict: Verdict) -> Verdict:
        self.fired[verdict.by] = self.fired.get(verdict.by, 0) + 1
        return verdict

    def without(self, name: str) -> Cascade:
        """The same cascade with the rule ``name`` left out (for measuring what it adds)."""
        return Cascade([r for r in self.rules if r.name != name], self.model, self.max_calls,
                       self.screen_instructions and name != INSTRUCTIONS)


def default_rules(novel_words: int = 0, accept: float = 0.8) -> list[Rule]:
    """The rules kept after measurement, cheapest first (``novel_words`` 0, the default: the wording rule is off)."""
    rules: list[Rule] = [Fragment(), Names(), SectionNumber(), Subject()]
    if novel_words:
        rules.append(Wording(novel_words))
    rules += [OverlapFloor(), OverlapAccept(accept)]
    return rules
