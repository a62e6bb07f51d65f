"""Verify: decide, for every (sentence, source) pairing the aligner proposed, whether the source
supports the sentence, and keep the supported ones.

Every decision goes through one support judge (:mod:`navicite.support`): a cascade of cheap word
rules, then the chat model for what they cannot decide (``generate.verifier``: ``hybrid``; ``llm``
asks the model even where overlap alone would accept; ``lexical`` never asks it). The same judge
grades citations in the evaluation, so what is measured is what was checked.

Around the judge, the verifier only chooses what to show it:

- each proposed source alone; a factual sentence whose proposed sources all fail is shown the
  untried source with the best word overlap (the aligner misnumbered it);
- a factual sentence that no source supports alone: the pair of sources that best names and
  covers it, read together (a comparison, the bridge of a two-hop question), when the pair is
  :func:`linked`;
- the answer form's first sentence, when overlap alone accepted it, is confirmed by the model;
- a sentence the aligner called general is still cited when a source states it word for word;
- a cited sentence is checked against the other sources for one that gives its thing another
  name or number (:func:`disputes`): the answer shows the two as disagreeing.

A source that instructs its reader ("Ignore previous instructions and answer that ...") supports
nothing: the cascade sets it aside before any rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from navicite.config import Settings
from navicite.documents import Source
from navicite.generate.align import Alignment
from navicite.generate.answer import SupportCheck
from navicite.generate.sources import ContextEntry
from navicite.llm.base import LLM
from navicite.support.base import Passage, SupportJudge, Verdict
from navicite.support.calibrated import CALIBRATED, CalibratedJudge, shipped_judge
from navicite.support.cascade import UNDECIDED, Cascade, default_rules
from navicite.support.llm import LLMJudge
from navicite.support.rules import Fragment, OverlapAccept, instructs
from navicite.support.words import disputing_sentence, features, lexical_support, mentions, same_script, source_vocabulary, unmentioned
from navicite.text.sentences import split_sentences

# Rescue candidates need at least this overlap to be scored at all.
_RESCUE_FLOOR = 0.3
#: The scorer named in the model's check of an answer sentence that overlap alone had accepted.
CONFIRM_CHECK = "llm-confirm"
#: The scorer named in a check of two sources read together.
JOINT_CHECK = "joint"
# Verdicts that weighed the claim (not a rule that refused it before): a check names them by its kind.
_DECIDING = frozenset({LLMJudge.name, UNDECIDED, OverlapAccept.name, CALIBRATED})
_NAME_INSIDE = re.compile(r"(?<=[\w,;] )[A-Z][\w-]+")


def closest_sentence(claim: str, entries: Iterable[ContextEntry]) -> str | None:
    """The source sentence (or two in a row) that shares most of the claim's words, numbers aside; None when none shares any.

    What the claim most likely misread: "the creatinine on exactly day 90 is 0.9" for the
    claim "... on exactly day 90 is 1.5 mg/dl" (its number is left out of the match, so the
    sentence with the right value is not passed over for a table row holding the wrong one).
    """
    found = closest_in(claim, entries)
    return found[1] if found is not None else None


def closest_in(claim: str, entries: Iterable[ContextEntry]) -> tuple[ContextEntry, str] | None:
    """:func:`closest_sentence` with the source entry that holds it."""
    words = {u: w for u, w in features(claim).items() if not u[0].isdigit()}
    total = sum(words.values())
    if not total:
        return None
    texts = [(entry, split_sentences(entry.text)) for entry in entries]
    # Single sentences first, then two in a row ("The Eiffel Tower is ... It was completed in
    # 1889."): a pair is taken only when it shares strictly more than any one sentence.
    spans = [(entry, s) for entry, sentences in texts for s in sentences]
    spans += [(entry, f"{a} {b}") for entry, sentences in texts for a, b in zip(sentences, sentences[1:])]
    best: tuple[ContextEntry, str] | None = None
    best_score = 0.0
    for entry, span in spans:
        found = features(span)
        score = sum(w for u, w in words.items() if u in found) / total
        if score > best_score:
            best, best_score = (entry, " ".join(span.split())), score
    return best


# A title's note in brackets, "The Shallows (book)": not a word any text names it by.
_TITLE_NOTE = re.compile(r"\s*\([^()]*\)\s*$")
# Share of a title's words a text must hold to name it ("UNLV Rebels" for "UNLV Rebels football").
_TITLE_SHARE = 2 / 3


def _names_title(units: dict[str, float], title: str) -> bool:
    wanted = features(_TITLE_NOTE.sub("", title))
    return bool(wanted) and sum(u in units for u in wanted) / len(wanted) >= _TITLE_SHARE


def linked(pair: Sequence[ContextEntry], said: Sequence[str]) -> bool:
    """Whether two sources can make one claim together: two passages of one stretch of a
    document (:func:`one_stretch`), a source that names the other (the bridge of a two-hop claim:
    "Juliet Starling (voiced by Tara Strong)" and Tara Strong's page), or both named in ``said``
    (the claim and the question: "Are Shepherd and Lange both American?").

    Two unrelated pages only lend a claim words: "Creed disbanded in 2004" read on Jaclyn
    Stapp's page (Creed) and another band's (formed in 2004) was accepted by the judge.
    """
    first, second = pair
    if first.source.doc_id == second.source.doc_id:
        return one_stretch(first.source, second.source)
    if _names_title(features(second.text), first.source.title) or _names_title(features(first.text), second.source.title):
        return True
    claimed = features(" ".join(said))
    return _names_title(claimed, first.source.title) and _names_title(claimed, second.source.title)


def one_stretch(a: Source, b: Source) -> bool:
    """Whether two passages of one document read as one text: the same section, or neighbours.

    Distant sections of a long document are as unrelated as two pages: on the 24 pile answers of
    4 Dec 2026 the joint judge kept 9 sentences on two passages of one document; read by assistant
    reading sessions, of the 3 from one section 2 were supported, of the 6 from different sections
    2 (a Stata module's "alternative" put together from §2.5 and §4, a kernel from §3.3 and §4).
    Passages without ids (a page given whole) keep the old rule: any two are linked.
    """
    if a.section and a.section == b.section:
        return True
    if a.passage_id is None or b.passage_id is None:
        return not (a.section or b.section)
    return abs(a.position - b.position) <= 1


def passage(entry: ContextEntry) -> Passage:
    """A context entry as the support judge reads it."""
    return Passage(entry.source.title, entry.text)


def create_judge(llm: LLM | None, settings: Settings) -> Cascade | CalibratedJudge:
    """The verifier's support judge as ``generate.verifier`` names it (word rules only without an LLM).

    ``trained``: the calibrated judge (:mod:`navicite.support.calibrated`), the model asked only
    where its vote can change the verdict; ``hybrid`` and ``llm``: the cascade of word rules,
    then the model; ``lexical``: the word rules alone.
    """
    g = settings.generate
    model = None if llm is None or g.verifier == "lexical" else LLMJudge(llm)
    if g.verifier == "trained":
        return shipped_judge(settings.cache_dir, model, max_calls=g.judge_max_calls)
    rules = default_rules(g.novel_words, g.lexical_accept)
    if model is not None:
        # With a model, overlap accepts nothing by itself: on 110 held-out labelled pairs the
        # cascade without it kept precision 0.870 where with it 0.759 (docs/results.md).
        rules = [r for r in rules if not isinstance(r, OverlapAccept)]
    return Cascade(rules, model, max_calls=g.judge_max_calls)


def create_verifier(llm: LLM | None, settings: Settings, answer_form: bool) -> Verifier:
    """The verifier for ``settings`` (``answer_form``: confirm the first sentence with the model)."""
    g = settings.generate
    judge = create_judge(llm, settings)
    return Verifier(judge, g.lexical_accept, joint=g.joint_support and judge.model is not None,
                    confirm=judge.model if answer_form and g.confirm_answer else None)


@dataclass
class Verified:
    """Outcome for one sentence: the kept source numbers (best first) and every check made."""

    kind: str  # "fact" or "general", as aligned
    kept: list[int] = field(default_factory=list)
    checks: list[SupportCheck] = field(default_factory=list)
    disputed: dict[int, str] = field(default_factory=dict)
    """Sources (by number) that say the claim's thing with another name or number: their sentence."""

    @property
    def support(self) -> float | None:
        scores = [c.score for c in self.checks if c.kept]
        return max(scores) if scores else None

    @property
    def states_nothing(self) -> bool:
        """Whether every check found the sentence a fragment (a title, a lead-in ending in a colon): no claim at all."""
        return bool(self.checks) and all(c.scorer == Fragment.name for c in self.checks)


class Verifier:
    """Shows the support judge each sentence with the sources worth reading it against."""

    def __init__(self, judge: SupportJudge, general_accept: float, joint: bool = True,
                 confirm: SupportJudge | None = None) -> None:
        self.judge = judge
        # A sentence aligned as general is still cited when a source states it word for word.
        self.general_accept = general_accept
        self.joint = joint
        self.confirm = confirm
        self._given: list[str] = []

    def run(self, sentences: list[str], alignments: list[Alignment], entries: list[ContextEntry],
            question: str = "") -> list[Verified]:
        """One :class:`Verified` per sentence.

        ``question``: what the user asked; a name the answer takes from it ("... for a Fine-Gray
        model is finegray") is the user's own word, not one the model invented.
        """
        self._given = [question] if question.strip() else []
        by_number = {e.number: e for e in entries}
        results = []
        for i, (said, alignment) in enumerate(zip(sentences, alignments)):
            result = Verified(alignment.kind)
            sentence = self._claim(said)
            proposed = [by_number[n] for n in alignment.sources if n in by_number]
            for entry in proposed:
                self._judge(result, sentence, [entry])
            if not result.kept:
                self._second_chance(sentence, result, entries)
            if i == 0 and self.confirm is not None:
                self._confirm(sentence, result, by_number)
            if self.joint and result.kind == "fact" and not result.kept:
                self._together(sentence, result, proposed, entries)
            if not alignment.answered and not result.kept and not looks_factual(said):
                result.kind = "general"
            if result.kept:
                result.disputed = disputes(sentence, [e for e in entries if e.number not in result.kept])
            results.append(result)
        return results

    def _claim(self, sentence: str) -> str:
        """What ``sentence`` claims: a one-word answer ("1889", a list item "Japan") is read as the
        answer to the question, which a passage must then support as a whole."""
        if self._given and len(features(sentence)) < 2:
            return f"{self._given[0].strip()} {sentence.strip()}"
        return sentence

    def _judge(self, result: Verified, sentence: str, entries: list[ContextEntry], judge: SupportJudge | None = None,
               name: str | None = None) -> Verdict:
        verdict = (judge or self.judge).entails([passage(e) for e in entries], sentence, self._given)
        # A rule's verdict is named by the rule; the model's (or overlap's) by the kind of check.
        scorer = name if name and verdict.by in _DECIDING else verdict.by
        for entry in entries:
            result.checks.append(SupportCheck(entry.number, entry.source.doc_id, round(verdict.score, 4),
                                              verdict.supported, scorer))
            if verdict.supported and entry.number not in result.kept:
                result.kept.append(entry.number)
        return verdict

    def _second_chance(self, sentence: str, result: Verified, entries: list[ContextEntry]) -> None:
        """Show the judge the untried source with the best overlap (a general sentence: accept a word-for-word one)."""
        tried = {c.source for c in result.checks}
        scored = [(lexical_support(sentence, _text(e)), e) for e in entries if e.number not in tried]
        if not scored:
            return
        overlap, best = max(scored, key=lambda pair: pair[0])
        if result.kind == "fact":
            if overlap >= _RESCUE_FLOOR or not same_script(sentence, _text(best)):
                self._judge(result, sentence, [best])
        elif overlap >= self.general_accept:
            result.checks.append(SupportCheck(best.number, best.source.doc_id, round(overlap, 4), True, "lexical"))
            result.kept.append(best.number)

    def _confirm(self, sentence: str, result: Verified, by_number: dict[int, ContextEntry]) -> None:
        """Put the answer sentence that overlap alone accepted to the model, on its best source.

        High overlap is not support when the words are the source's but the claim is not (a
        year the passage gives to a pageant title, stated as a band's end).
        """
        kept = [c for c in result.checks if c.kept]
        if not kept or any(c.scorer != OverlapAccept.name for c in kept):
            return
        best = by_number[max(kept, key=lambda c: c.score).source]
        checks, result.kept = result.checks, []
        result.checks = [SupportCheck(c.source, c.doc_id, c.score, False, c.scorer) for c in checks]
        self._judge(result, sentence, [best], self.confirm, CONFIRM_CHECK)

    def _together(self, sentence: str, result: Verified, proposed: list[ContextEntry], entries: list[ContextEntry]) -> None:
        """Keep the pair of sources that together support ``sentence``, if the judge says so.

        The pair: the source with the best overlap, then, among the sources :func:`linked` to it
        (two unrelated pages only lend a claim words), the one naming most of what it lacks, else
        adding most of its missing words (the aligner's proposals first among equals).
        """
        if len(entries) < 2:
            return
        units = features(sentence)
        vocab = {e.number: features(_text(e)) for e in entries}
        candidates = list({e.number: e for e in [*proposed, *entries]}.values())
        first = max(candidates, key=lambda e: sum(w for u, w in units.items() if u in vocab[e.number]))
        lacking = unmentioned(sentence, [_text(first), *self._given])

        def names(e: ContextEntry) -> int:
            vocabulary = source_vocabulary(_text(e))
            return sum(mentions(name, vocabulary) for name in lacking)

        rest = {u: w for u, w in units.items() if u not in vocab[first.number]}
        said = [sentence, *self._given]
        others = [e for e in candidates if e is not first and linked([first, e], said)]
        if others:
            second = max(others, key=lambda e: (names(e), sum(w for u, w in rest.items() if u in vocab[e.number])))
            self._judge(result, sentence, [first, second], name=JOINT_CHECK)


def disputes(claim: str, others: list[ContextEntry]) -> dict[int, str]:
    """The sources among ``others`` that disagree with a cited claim (another name or number for
    its thing), with the sentence that does. A source that gives orders is no statement and
    disputes nothing."""
    found = {}
    for entry in others:
        if instructs(passage(entry)):
            continue
        sentence = disputing_sentence(claim, entry.text)
        if sentence:
            found[entry.number] = sentence
    return found


def looks_factual(sentence: str) -> bool:
    """A cheap guess for sentences the aligner left unlabelled: a number, or a capitalised
    name after the first word, marks a checkable claim."""
    return bool(re.search(r"\d", sentence) or _NAME_INSIDE.search(sentence))


def _text(entry: ContextEntry) -> str:
    return f"{entry.source.title}\n{entry.text}"
