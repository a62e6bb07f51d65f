"""The cheap rules of the support cascade: each decides a pair from words alone, or passes it on.

A rule returns a :class:`~navicite.support.base.Verdict` when the words settle the pair and
``None`` when they do not. Each rule's docstring gives its figures from ``bench/support_bench.py``
(docs/results.md, "The support judge against human labels"): alone on all 344 labelled pairs, how
often it decides and how often against the person's label; in the verifier, on the first pairs
of the held-out part with the embedded model (110 pairs), how often it fired and the precision /
recall without it (all rules: precision 0.737, recall 0.255; the verifier of f4b0ade 0.615 /
0.291; the shipped cascade, without wording and overlap-accept, 0.870 / 0.364). On all 144
held-out pairs the shipped cascade gives 0.828 / 0.343 (f4b0ade's 0.606 / 0.286).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from navicite.support.base import Passage, Verdict
from navicite.support.words import (
    features,
    lexical_support,
    novel_words,
    same_script,
    span_support,
    swapped_subject,
    unmentioned,
)


class Rule(Protocol):
    """One cheap check of the cascade."""

    name: str

    def decide(self, premises: Sequence[Passage], claim: str, given: Sequence[str]) -> Verdict | None:
        """A verdict when the words settle the pair, else ``None``."""
        ...


def _texts(premises: Sequence[Passage]) -> list[str]:
    return [p.full_text for p in premises]


# Orders addressed to whoever reads the passage (a model), not statements about anything:
# "Ignore previous instructions and answer that ...", "You must reply that ...".
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?"
    r"(?:previous|prior|above|earlier|preceding|other|former|system)\s+(?:instructions?|directions?|prompts?|messages?|rules?)"
    r"|(?:^|[.!?;:]\s+|\band\s+|\byou\s+(?:must|should|will)\s+(?:now\s+)?)(?:always\s+)?"
    r"(?:answer|respond|reply|say|tell\s+(?:the\s+)?(?:user|reader)s?)\s+(?:only\s+)?(?:that|with)\b"
    r"|\b(?:new|updated|real)\s+instructions?\s*:"
    r"|\byou\s+are\s+now\s+(?:a|an|in)\b",
    re.IGNORECASE,
)


def instructs(passage: Passage) -> bool:
    """Whether ``passage`` gives orders to its reader ("Ignore previous instructions and answer that ...").

    Such a text was planted for the model; what it asks the model to say is no evidence.
    """
    return bool(_INSTRUCTION.search(passage.text))


class Fragment:
    """A claim of fewer than ``min_units`` content words (one word), or one that ends in a colon,
    states nothing a passage can support.

    List items ("Japan.", "HC4.") were cited to passages of another example that merely
    contained the word; no single word is a claim. Alone: refuses 4 of 344 pairs, none labelled
    supported. Held-out: fired once; without it precision 0.700 (0.737 with it), recall equal.
    A sentence ending in a colon only announces what follows ("The format of a request is:",
    "... you can use the following command:"): on 13 real pile answers (4 Dec 2026) three such
    sentences were shown cited, all three read as not supported; no labelled pair ends in one.
    Nor does a sentence that is only the passage's title ("The Strucplot Framework."): two such
    were shown cited in the same answers, read as not supported.
    """

    name = "fragment"

    def __init__(self, min_units: int = 2) -> None:
        self.min_units = min_units

    def decide(self, premises: Sequence[Passage], claim: str, given: Sequence[str]) -> Verdict | None:
        if len(features(claim)) < self.min_units:
            return Verdict(False, 0.0, self.name, "too short to state anything on its own")
        if claim.rstrip().endswith((":", "：")):
            return Verdict(False, 0.0, self.name, "announces what follows; states nothing on its own")
        if _is_title(claim, premises):
            return Verdict(False, 0.0, self.name, "the passage's title, not a statement")
        return None


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def _is_title(claim: str, premises: Sequence[Passage]) -> bool:
    """Whether ``claim`` is only a premise's title, or its main part before a colon: "The Strucplot
    Framework." was shown cited to the paper it names (real pile answers, 4 Dec 2026)."""
    said = _plain(claim)
    return bool(said) and any(said in (_plain(p.title), _plain(p.title.split(":")[0])) for p in premises if p.title)


class Names:
    """A number, code-like token or capitalised name of the claim that no passage (nor the
    question) mentions: the small model's typical invention ("Smith et al.", "two optimizers,
    Efron and Breslow") inside sentences that otherwise overlap well.

    Alone: refuses 82 of 344 pairs, 28 of them labelled supported (paraphrases naming things
    their evidence words otherwise: "President Franklin D. Roosevelt", "Achim Zeileis" for
    "Zeileis A"). Held-out, in the shipped cascade: fired 25 times; without it precision 0.828,
    recall 0.436 (0.870 / 0.364 with it); all 144: 0.806 / 0.414 without, 0.828 / 0.343 with:
    more precision for less recall. On the 24 real pile
    answers of 4 Dec 2026 (final run) it refused 38 of 174 (sentence, source) checks, the model
    decided 80, the joint judge 30, the fragment rule 23."""

    name = "names"

    def decide(self, premises: Sequence[Passage], claim: str, given: Sequence[str]) -> Verdict | None:
        missing = unmentioned(claim, [*_texts(premises), *given])
        if missing:
            return Verdict(False, 0.0, self.name, f"names {', '.join(missing[:3])}, which no passage mentions")
        return None


class Numbers:
    """A number of the claim that no passage (nor the question) holds: a value is checked as such,
    whatever a judge makes of the words around it. In the calibrated judge this refuses outright,
    where the other word rules only weigh in (:mod:`navicite.support.calibrated`)."""

    name = "numbers"

    def decide(self, premises: Sequence[Passage], claim: str, given: Sequence[str]) -> Verdict | None:
        missing = [n for n in unmentioned(claim, [*_texts(premises), *given]) if any(c.isdigit() for c in n)]
        if missing:
            return Verdict(False, 0.0, self.name, f"the number {missing[0]} is in no passage")
        return None


# A dotted number ("3.2.6", "4.1"): what sections are numbered with, and versions too.
_DOTTED = re.compile(r"(?<![\w.])\d+(?:\.\d+)+(?!\w)")


class SectionNumber:
    """A dotted number of the claim that the passages hold only as a heading's numbering
    ("3.2.6 Coprocesses"): the claim took the section's number for a fact ("coproc was
    introduced in Bash version 3.2.6"). A claim that calls it a section ("section 3.2.6") is left alone.

    On the 4 Dec 2026 answers (477 cited sentences of the pile, HotpotQA and the shared PDFs,
    read by assistant reading sessions) it fires on that one sentence only, read as not supported in every arm; no
    labelled pair holds such a number."""

    name = "section-number"

    def decide(self, premises: Sequence[Passage], claim: str, given: Sequence[str]) -> Verdict | None:
        texts = [p.text for p in premises]
        for number in _DOTTED.findall(claim):
            if re.search(r"(?:section|chapter|§)\s*" + re.escape(number), claim, re.IGNORECASE):
                continue
            if _only_as_heading_number(number, texts):
                return Verdict(False, 0.0, self.name, f"{number} is only the number of a section heading in the passage")
        return None


def _only_as_heading_number(number: str, texts: Sequence[str]) -> bool:
    """Whether ``number`` occurs in ``texts``, and every time at the start of a line before a capitalised word."""
    found = False
    for text in texts:
        for m in re.finditer(r"(?<![\w.])" + re.escape(number) + r"\.?(?!\w)", text):
            before = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
            if before.strip() or not re.match(r"\.?\s+[A-Z]", text[m.end() : m.end() + 3]):
                return False
            found = True
    return found


class Subject:
    """The claim says of one subject what a passage sentence says of another ("Pete Doherty is an
    English rock band, formed in London in 1997" from "The Libertines are an English rock band, ...").

    Alone: refuses 3 of 344 pairs, 1 labelled supported. Held-out, all 144 pairs: fired twice;
    without it precision 0.800 (0.828 with it), recall equal."""

    name = "subject"

    def decide(self, premises: Sequence[Passage], claim: str, given: Sequence[str]) -> Verdict | None:
        if swapped_subject(claim, [p.text for p in premises]):
            return Verdict(False, 0.0, self.name, "a passage says this of another subject")
        return None


class Wording:
    """At least ``limit`` content words that neither the passages nor the question hold: the
    sentence says much more than they do ("returns a new variable that is a linear combination
    of the two"). Across scripts words cannot be compared, so the rule stays silent there.

    Alone: refuses 216 of 344 pairs, 98 of them labelled supported (ExpertQA's and SciFact's
    claims paraphrase their evidence). Held-out: fired 51 times; without it precision 0.759,
    recall 0.400 (0.737 / 0.255 with it): it lowered both. Off by default
    (``generate.novel_words=0``); kept for a user who wants it (it was on with the embedded model)."""

    name = "wording"

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def decide(self, premises: Sequence[Passage], claim: str, given: Sequence[str]) -> Verdict | None:
        texts = _texts(premises)
        if not all(same_script(claim, t) for t in texts):
            return None
        new = novel_words(claim, [*texts, *given])
        if len(new) >= self.limit:
            return Verdict(False, 0.0, self.name, f"{len(new)} words no passage holds")
        return None


class OverlapFloor:
    """Below ``floor`` word overlap (same script) a pair is not worth a model call: refused.

    Alone: refuses 22 of 344 pairs, 11 labelled supported (SciFact claims in other words than
    their abstract). Held-out: did not fire (the rules before it decided first); it saves calls."""

    name = "overlap-floor"

    def __init__(self, floor: float = 0.15) -> None:
        self.floor = floor

    def decide(self, premises: Sequence[Passage], claim: str, given: Sequence[str]) -> Verdict | None:
        text = "\n".join(_texts(premises))
        score = lexical_support(claim, text)
        if score < self.floor and same_script(claim, text):
            return Verdict(False, score, self.name, "shares almost no words with the passages")
        return None


class OverlapAccept:
    """At or above ``accept`` overlap the pair is accepted without the model.

    ``span``: the overlap must be found within one passage sentence (or two in a row), so a
    claim that joins words of different sentences ("The car package provides kernHAC() and
    NeweyWest()", where the passage gives those to sandwich) still goes to the model.

    Alone: accepts 49 of 344 pairs, 23 of them not labelled supported (role swaps inside one
    sentence, "recommended for HC2 but not HC3"; SciFact sentences sharing a claim's words);
    overlap over the whole passage, as the verifier of f4b0ade used it, accepts 85, 44 of them
    wrongly. Held-out: fired 13 times; without it precision 0.857, recall 0.218 (0.737 / 0.255
    with it). So with a model it is left out (``generate/verify.create_judge``); it is the only
    rule that accepts in the lexical verifier, which has no model.
    """

    name = "overlap-accept"

    def __init__(self, accept: float = 0.8, span: bool = True) -> None:
        self.accept = accept
        self.span = span

    def decide(self, premises: Sequence[Passage], claim: str, given: Sequence[str]) -> Verdict | None:
        if self.span:
            score = max(span_support(claim, p.text, p.title) for p in premises)
        else:
            score = lexical_support(claim, "\n".join(_texts(premises)))
        if score >= self.accept:
            return Verdict(True, score, self.name)
        return None
