"""Sentences of a draft that only restate the question: they add no word the question lacks.

The 1.5B model sometimes opens with the question turned into a statement ("The sandwich vignette
illustrates clustered covariances with the Aghion et al. (2013) data.") or answers with nothing
else; such a sentence is cited to the passage the question was written from, and looks like an
answer while it says nothing new. :func:`restates` tells them apart by words: a sentence restates
when every content word of it (numbers included) stands in the question, compared by their first
letters, a plural "s" aside, so "covers" matches "cover". A yes/no question or one offering a choice ("A or B?") is
answered by its own words, so no sentence restates those.
"""

from __future__ import annotations

import re
from collections import Counter

_WORD = re.compile(r"\w+(?:[.'’-]\w+)*")
#: Letters of a word compared: enough to tell words apart, few enough that "institution" matches "institutional".
_STEM = 6
# Words that carry no fact of their own: function words, and the ones a restatement wraps the question in.
_EMPTY = frozenset(
    """a an and are as at be been by can could did do does for from had has have how in into is it its of on or
    that the their them there these this those to was were what when where which who whom whose why will with
    would also both each other such than then they we you your our one ones about between over under
    source sources document documents text texts paper vignette manual article passage passages question asks
    asked answer describe describes described mention mentions mentioned state states stated say says said
    provide provides provided give gives given discuss discusses explain explains according following
    illustrate illustrates illustrated use uses used""".split()
)
# Questions answered by their own words: yes/no questions (an auxiliary first) and choices.
_YES_NO = re.compile(
    r"^\W*(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should|shall|may|might|must)\b", re.IGNORECASE
)
_CHOICE = re.compile(r"\bor\b|\bwhether\b", re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[.!?])\s+(?=\S)")


def _stems(text: str) -> Counter[str]:
    words = (w.casefold() for w in _WORD.findall(text))
    return Counter((w[:-1] if w.endswith("s") and len(w) > 3 else w)[:_STEM] for w in words if w not in _EMPTY and (len(w) > 2 or w.isdigit()))


def can_restate(question: str) -> bool:
    """Whether an answer to ``question`` could say nothing new (not a yes/no or either/or question).

    The question proper is its last sentence: the ones before it set the scene.
    """
    asked = _SENTENCES.split(question.strip())[-1]
    return bool(_stems(question)) and not (_YES_NO.match(asked) or _CHOICE.search(asked))


def restates(sentence: str, question: str) -> bool:
    """Whether ``sentence`` adds no content word to ``question`` (it only repeats it).

    A word the sentence uses more often than the question counts as its own: "Honey bees make
    honey from nectar." answers "What do honey bees make from nectar?" with its second "honey".
    A sentence with no content word at all ("It does.") restates too.
    """
    return can_restate(question) and not (_stems(sentence) - _stems(question))


def without_restatements(sentences: list[str], question: str) -> list[str]:
    """``sentences`` less those that only restate ``question`` (all of them may go)."""
    return [s for s in sentences if not restates(s, question)]


#: Share of the question's content words a later cited sentence must hold to be taken for the answer
#: ("the seat of the government of France is Paris" holds half of "What is the capital of France?": not enough).
ADDRESSES_SHARE = 2 / 3


def addresses(sentence: str, question: str) -> bool:
    """Whether ``sentence`` speaks to ``question``: it holds two thirds of the question's content
    words (compared as in :func:`restates`) and adds a word of its own.

    Used where the draft's first sentence was refused but a later cited one answers: "The
    default is 50 [1]." after a refused opening must not sit below "the sources do not answer".
    """
    asked = _stems(question)
    said = _stems(sentence)
    if not asked or not said:
        return False
    held = sum(1 for stem in asked if stem in said) / len(asked)
    return held >= ADDRESSES_SHARE and any(stem not in asked for stem in said)
