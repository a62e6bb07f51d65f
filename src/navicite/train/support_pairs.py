"""Support-judge training pairs made from a real document's sentences.

A pair is (claim, a window of one to three consecutive sentences under the document's title,
label). Every claim starts as a *base* made from the document's own sentences (the sentence, a
shortened form of it, two neighbouring sentences fused into one), and then is either kept with a
window that states it (label 1) or spoiled the way the support judge's real failures look
(label 0):

- ``number`` / ``name``: one number or name swapped for another of the same document;
- ``subject``: the sentence's predicate given to the subject of a sentence beside it in the
  window (the right value for the wrong subject);
- ``missing``: a claim fused from two sentences, read against a window that holds only one;
- ``neighbour``: a sentence just outside the window (same topic, not stated in it);
- ``list``: a list with an item of the same document added;
- ``negation``: a negation put in or taken out, or a word turned into its opposite.

Positive and spoiled claims go through the same base forms, so a claim's form (whole, shortened,
fused) says nothing of its label: only what the window states does. :func:`windows` is also how
the run-time judge cuts a passage, so training and use read the same kind of text.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from navicite.text.windows import WINDOW_WORDS, premise_text


_NUMBER = re.compile(r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?(?![\w])")
# A capitalised name (one to three words) not at the sentence start, or a code-like token.
_NAME = re.compile(r"(?<=\s)(?:[A-Z][a-zA-Z0-9\-]+(?:\s+[A-Z][a-zA-Z0-9\-]+){0,2})|`[^`\s]{2,}`|\b[a-z]+_[a-z_]+\b|\b\w+\(\)")
_WORD = re.compile(r"\w+")
_LIST = re.compile(r"(\w[\w\- ]{0,30}), (\w[\w\- ]{0,30}),? (and|or) (\w[\w\-]{0,30})")
# Verbs after which a sentence's subject ends (a subject swap needs to find it).
_VERBS = re.compile(
    r"\s(is|are|was|were|has|have|had|can|may|must|will|should|does|do|did|contains|uses|returns|provides|gives|"
    r"takes|shows|showed|sets|holds|stores|reads|writes|describes|requires|allows|specifies|defines|includes|"
    r"supports|increases|decreases|reduces|causes|affects|became|becomes|lies|lives|consists|depends|means|"
    r"refers|produces|creates|prints|starts|stops|runs)\s"
)
_FLIPS = {
    "increase": "decrease", "increases": "decreases", "increased": "decreased", "higher": "lower", "more": "less",
    "before": "after", "enabled": "disabled", "enable": "disable", "true": "false", "always": "never",
    "larger": "smaller", "maximum": "minimum", "first": "last", "positive": "positive", "required": "optional",
    "allowed": "forbidden", "inside": "outside", "above": "below", "earlier": "later", "older": "younger",
    "faster": "slower", "better": "worse", "success": "failure", "with": "without", "include": "exclude",
    "includes": "excludes", "same": "different", "all": "no",
}
_FLIPS.update({v: k for k, v in list(_FLIPS.items()) if v not in _FLIPS})
_AUX = re.compile(r"\b(is|are|was|were|can|will|should|does|do|did|must|has been|have been)\b")
_NEGATED = re.compile(r"\b(is|are|was|were|can|will|should|does|do|did|must) not\b|\bcannot\b|\bn't\b")
_OPENERS = re.compile(r"^(?:However|Thus|Therefore|Moreover|Furthermore|In addition|Also|Hence|Indeed|Finally|First|Second|Then|Here|Note that|In particular),?\s+", re.I)
_BRACKETS = re.compile(r"\s*\[[\d,\s\-–]+\]|\s*\((?:[^()]{0,60}(?:et al\.|\d{4})[^()]{0,20})\)")
_CLAUSE = re.compile(r",\s+(?:which|while|whereas|but|although|because|since|so that|and thus|thereby)\s|;\s|\s—\s")


@dataclass(frozen=True)
class SupportExample:
    """One training pair: does ``window`` (under ``title``) support ``claim``? ``kind`` says how it was made."""

    claim: str
    title: str
    window: str
    label: int
    kind: str
    doc: str

    def premise(self) -> str:
        """What the judge reads: the title on its own line, then the window (as :func:`premise_text`)."""
        return premise_text(self.title, self.window)


def usable(sentence: str) -> bool:
    """A sentence worth making a claim of: prose of 6 to 60 words, mostly letters, not a code line."""
    words = sentence.split()
    if not 6 <= len(words) <= 60:
        return False
    letters = sum(c.isalpha() for c in sentence)
    return letters >= 0.6 * len(sentence) and not sentence.rstrip().endswith((":", "{", ";", ","))


def _clean(sentence: str) -> str:
    text = _BRACKETS.sub("", sentence)
    text = _OPENERS.sub("", text).strip()
    # "pDCs" and "iOS" keep their case; an ordinary word that opened a clause is capitalised.
    return text[:1].upper() + text[1:] if text[:1].islower() and not re.match(r"^\w[a-z]*[A-Z0-9]", text) else text


def _end(text: str) -> str:
    text = text.rstrip()
    return text if text.endswith((".", "!", "?")) else text.rstrip(",;:") + "."


def shortened(sentence: str) -> str | None:
    """``sentence`` cut at its first subordinate clause, or without a parenthesis (None: nothing to cut)."""
    cut = _CLAUSE.search(sentence)
    if cut and len(sentence[: cut.start()].split()) >= 5:
        return _end(sentence[: cut.start()])
    bare = re.sub(r"\s*\([^()]{3,80}\)", "", sentence)
    return bare if bare != sentence and len(bare.split()) >= 5 else None


def fused(first: str, second: str) -> str:
    """Two sentences as one claim: ``first`` without its full stop, ``, and``, ``second`` (its first letter lowered)."""
    head = first.rstrip().rstrip(".!?;:")
    tail = second.strip()
    if tail[:2].isupper() or re.match(r"^[A-Z][a-z]*[A-Z0-9]", tail):
        pass  # an acronym or a code name keeps its case
    else:
        tail = tail[:1].lower() + tail[1:]
    return f"{head}, and {tail}"


def document_values(sentences: Sequence[str]) -> tuple[list[str], list[str]]:
    """The numbers and the names of a document's ``sentences``: the pools a spoiler swaps a value from."""
    text = " ".join(sentences)
    numbers = sorted({m.group() for m in _NUMBER.finditer(text)})
    names = sorted({m.group().strip() for s in sentences for m in _names(s)})
    return numbers, names


def _swap(text: str, match: re.Match[str], new: str) -> str:
    return text[: match.start()] + new + text[match.end():]


class PairMaker:
    """Makes :class:`SupportExample` pairs from one document's sentences (see the module docstring).

    Args:
        rng: the source of every choice (seeded by the caller: the same seed, the same pairs).
        positive_share: the share of pairs labelled supported.
    """

    def __init__(self, rng: random.Random, positive_share: float = 0.5) -> None:
        self.rng = rng
        self.positive_share = positive_share
        self.counts: Counter[str] = Counter()

    def from_document(self, doc: str, title: str, sentences: Sequence[str], per_sentence: float = 1.0) -> Iterator[SupportExample]:
        """Pairs from ``sentences`` (a document in order): about ``per_sentence`` pairs per usable sentence."""
        sentences = [" ".join(s.split()) for s in sentences]
        good = [i for i, s in enumerate(sentences) if usable(s)]
        if len(good) < 2:
            return
        numbers, names = document_values(sentences)
        for i in good:
            if self.rng.random() >= per_sentence:
                continue
            example = self._one(doc, title, sentences, i, numbers, names)
            if example is not None:
                self.counts[f"{example.kind}:{example.label}"] += 1
                yield example

    def _window_around(self, sentences: Sequence[str], i: int, lo_limit: int = 0, hi_limit: int | None = None) -> tuple[int, int]:
        hi_limit = len(sentences) if hi_limit is None else hi_limit
        size = self.rng.choice((1, 2, 2, 3, 3))
        start = max(lo_limit, i - self.rng.randrange(size))
        end = min(hi_limit, start + size)
        while end - start > 1 and sum(len(s.split()) for s in sentences[start:end]) > WINDOW_WORDS:
            if end - 1 > i:
                end -= 1
            elif start < i:
                start += 1
            else:
                break
        return start, end

    def _base(self, sentences: Sequence[str], i: int) -> tuple[str, str, tuple[int, int]]:
        """A claim made from sentence ``i``: its form and the sentences it needs (as a span)."""
        sentence = _clean(sentences[i])
        roll = self.rng.random()
        if roll < 0.3:
            short = shortened(sentence)
            if short:
                return short, "short", (i, i + 1)
        if roll > 0.75 and i + 1 < len(sentences) and usable(sentences[i + 1]) \
                and len(sentence.split()) + len(sentences[i + 1].split()) <= 55:
            return fused(sentence, _clean(sentences[i + 1])), "fused", (i, i + 2)
        return sentence, "sentence", (i, i + 1)

    def _one(self, doc: str, title: str, sentences: Sequence[str], i: int,
             numbers: Sequence[str], names: Sequence[str]) -> SupportExample | None:
        claim, form, (lo, hi) = self._base(sentences, i)
        if self.rng.random() < self.positive_share:
            start, end = self._window_around(sentences, lo)
            start, end = min(start, lo), max(end, hi)
            return SupportExample(claim, title, " ".join(sentences[start:end]), 1, form, doc)
        return self.spoiled(doc, title, claim, form, sentences, lo, hi, numbers, names)

    def spoiled(self, doc: str, title: str, claim: str, form: str, sentences: Sequence[str], lo: int, hi: int,
                numbers: Sequence[str], names: Sequence[str]) -> SupportExample | None:
        """``claim`` (which ``sentences[lo:hi]`` state) spoiled by one spoiler that applies, drawn at random.

        ``numbers`` and ``names`` are the document's, the pool a swapped value is drawn from. The
        claim need not be in the sentences' own words: a reworded claim is spoiled the same way.
        None when no spoiler applies.
        """
        spoilers = [self._number, self._name, self._subject, self._list, self._negation, self._missing, self._neighbour]
        self.rng.shuffle(spoilers)
        for spoil in spoilers:
            made = spoil(claim, form, sentences, lo, hi, numbers, names)
            if made is not None:
                new_claim, kind, (start, end) = made
                return SupportExample(new_claim, title, " ".join(sentences[start:end]), 0, kind, doc)
        return None

    # Each spoiler returns (claim, kind, window) or None when it does not apply.

    def _stating_window(self, sentences: Sequence[str], lo: int, hi: int) -> tuple[int, int]:
        start, end = self._window_around(sentences, lo)
        return min(start, lo), max(end, hi)

    def _number(self, claim, form, sentences, lo, hi, numbers, names):
        found = list(_NUMBER.finditer(claim))
        if not found:
            return None
        target = self.rng.choice(found)
        others = [n for n in numbers if n != target.group() and n not in claim]
        if others and self.rng.random() < 0.7:
            new = self.rng.choice(others)
        else:
            digits = target.group().rstrip("%").replace(",", "")
            try:
                value = float(digits)
            except ValueError:
                return None
            changed = value + self.rng.choice((1, -1, 2, 10)) if "." not in digits else value * self.rng.choice((0.5, 2, 1.1))
            if changed == value or changed < 0:
                return None
            new = (f"{changed:g}" if "." in digits else str(int(changed))) + ("%" if target.group().endswith("%") else "")
        window = self._stating_window(sentences, lo, hi)
        return _swap(claim, target, new), "number", window

    def _name(self, claim, form, sentences, lo, hi, numbers, names):
        found = _names(claim)
        if not found:
            return None
        target = self.rng.choice(found)
        window = self._stating_window(sentences, lo, hi)
        shown = " ".join(sentences[window[0]:window[1]])
        others = [n for n in names if n not in shown and n.lower() != target.group().strip().lower()]
        if not others:
            return None
        spoiled = _swap(claim, target, self.rng.choice(others))
        return spoiled, "name", window

    def _subject(self, claim, form, sentences, lo, hi, numbers, names):
        if form == "fused":
            return None
        own = _VERBS.search(claim)
        if not own or not 1 <= len(claim[: own.start()].split()) <= 8:
            return None
        for j in self.rng.sample(range(max(0, lo - 2), min(len(sentences), hi + 2)), min(len(sentences), hi + 2) - max(0, lo - 2)):
            if lo <= j < hi:
                continue
            other = _VERBS.search(_clean(sentences[j]))
            if not other:
                continue
            subject = _clean(sentences[j])[: other.start()]
            if not 1 <= len(subject.split()) <= 8 or subject.lower() == claim[: own.start()].lower():
                continue
            spoiled = subject + claim[own.start():]
            start, end = min(lo, j), max(hi, j + 1)
            if sum(len(s.split()) for s in sentences[start:end]) > WINDOW_WORDS + 20:
                continue
            return spoiled, "subject", (start, end)
        return None

    def _list(self, claim, form, sentences, lo, hi, numbers, names):
        found = _LIST.search(claim)
        if not found:
            return None
        window = self._stating_window(sentences, lo, hi)
        shown = " ".join(sentences[window[0]:window[1]]).lower()
        pool = [n for n in names if n.lower() not in shown] or [
            w for w in _WORD.findall(" ".join(sentences)) if len(w) > 4 and w.lower() not in shown]
        if not pool:
            return None
        added = self.rng.choice(pool)
        spoiled = claim[: found.start(3)] + f"{added}, " + claim[found.start(3):] if found.group(2) else None
        if spoiled is None:
            return None
        return spoiled, "list", window

    def _negation(self, claim, form, sentences, lo, hi, numbers, names):
        window = self._stating_window(sentences, lo, hi)
        negated = _NEGATED.search(claim)
        if negated:
            spoiled = claim[: negated.start()] + negated.group().replace(" not", "").replace("cannot", "can").replace("n't", "") + claim[negated.end():]
            return spoiled, "negation", window
        words = list(re.finditer(r"\b\w+\b", claim))
        flips = [m for m in words if m.group().lower() in _FLIPS and _FLIPS[m.group().lower()] != m.group().lower()]
        if flips and self.rng.random() < 0.5:
            m = self.rng.choice(flips)
            new = _FLIPS[m.group().lower()]
            new = new.capitalize() if m.group()[0].isupper() else new
            return _swap(claim, m, new), "negation", window
        aux = _AUX.search(claim)
        if not aux:
            return None
        word = aux.group()
        new = "cannot" if word == "can" else (word.replace(" been", " not been") if " been" in word else f"{word} not")
        return _swap(claim, aux, new), "negation", window

    def _missing(self, claim, form, sentences, lo, hi, numbers, names):
        if form != "fused":
            return None
        # Only one of the two sentences the claim needs is shown.
        keep = self.rng.choice((lo, hi - 1))
        start, end = self._window_around(sentences, keep, hi_limit=hi - 1 if keep == lo else None)
        start = max(start, lo + 1) if keep == hi - 1 else start
        if start <= lo < end and start <= hi - 1 < end:
            return None
        return claim, "missing", (start, end)

    def _neighbour(self, claim, form, sentences, lo, hi, numbers, names):
        # A window just before or after the claim's sentences: the same topic, the claim not stated.
        if self.rng.random() < 0.5 and lo >= 1:
            end = lo
            start = max(0, end - self.rng.choice((1, 2, 3)))
        elif hi < len(sentences):
            start = hi
            end = min(len(sentences), start + self.rng.choice((1, 2, 3)))
        else:
            return None
        shown = " ".join(sentences[start:end])
        if not shown or _overlap(claim, shown) > 0.8:
            return None  # the neighbour says the same thing: not a fair negative
        return claim, "neighbour", (start, end)


def _names(sentence: str) -> list[re.Match[str]]:
    """The names and code-like tokens of ``sentence`` after its first word (a capital there only opens the sentence)."""
    first = re.match(r"\S+", sentence)
    after = first.end() if first else 0
    return [m for m in _NAME.finditer(sentence) if m.start() >= after and m.group().strip()]


def _overlap(claim: str, text: str) -> float:
    want = {w.lower() for w in _WORD.findall(claim) if len(w) > 2}
    have = {w.lower() for w in _WORD.findall(text)}
    return len(want & have) / len(want) if want else 1.0
