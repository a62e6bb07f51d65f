"""ALCE citation metrics over saved answers (Gao et al. 2023, see docs/eval.md).

An answer is text with markers ``[1]``, ``[2][3]`` or ``[1, 3]`` pointing at its numbered
sources (1-based). Per sentence:

- *recall*: 1 when it cites at least one existing source and the cited passages
  together entail it; a marker to a missing source counts as no citation.
- *precision*, per citation, following ALCE's counting: a single citation is precise when
  it entails the sentence; in a supported multi-citation sentence a citation is
  irrelevant when it does not entail the sentence alone while the other citations still
  do; citations of an unsupported multi-citation sentence are not precise.

Also the uncited-fact rate (factual-looking sentences with no valid citation, over
factual-looking sentences) and the broken-marker rate (markers naming no source, over
all markers). Figures are averaged over all sentences (citations, markers) of all answers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from navicite.eval.judge import EntailmentJudge
from navicite.support.llm import titled
from navicite.text.sentences import answer_units

_MARKER = re.compile(r"\[(\s*\d+(?:\s*[,;]\s*\d+)*\s*)\]")
# A marker with the space before it: "in 1820 [1]." is judged as "in 1820.", not "in 1820 ." (the
# stray space alone turns the 1.5B judge's verdict on some claims).
_SPACED_MARKER = re.compile(r"\s*" + _MARKER.pattern)
_REFUSALS = ("i don't know", "i do not know", "not in the sources", "no information", "cannot answer", "can't answer")


@dataclass(frozen=True)
class CitedSentence:
    """A sentence of an answer with the source numbers its markers name."""

    text: str
    markers: tuple[int, ...]

    @property
    def claim(self) -> str:
        """The sentence without its markers, as the judge sees it."""
        return without_markers(self.text)


def without_markers(sentence: str) -> str:
    """``sentence`` with its ``[n]`` markers and the spaces before them removed."""
    return " ".join(_SPACED_MARKER.sub("", sentence).split())


def split_cited(answer: str, language: str = "en") -> list[CitedSentence]:
    """Sentences of an answer (cut as the generator cuts its drafts) with their markers;
    a marker just after a full stop stays with its sentence."""
    sentences: list[CitedSentence] = []
    for unit in answer_units(answer, language):
        text = unit.text.strip()
        if not text:
            continue
        numbers = tuple(int(n) for group in _MARKER.findall(text) for n in re.split(r"[,;]", group))
        if sentences and not _MARKER.sub("", text).strip():
            # Markers split off as their own "sentence" belong to the one before.
            last = sentences.pop()
            sentences.append(CitedSentence(f"{last.text} {text}", last.markers + numbers))
            continue
        sentences.append(CitedSentence(text, numbers))
    return sentences


def looks_factual(sentence: str) -> bool:
    """Whether a sentence states something checkable: not a question, refusal or fragment.

    A heuristic (no model): at least four words, not a question, no refusal phrase.
    """
    claim = without_markers(sentence)
    lowered = claim.lower()
    return len(re.findall(r"\w+", claim)) >= 4 and not claim.rstrip(" .").endswith("?") and not any(r in lowered for r in _REFUSALS)


@dataclass
class CitationCounts:
    """Sums over sentences, from which the rates are computed."""

    sentences: int = 0
    supported: int = 0
    citations: int = 0
    precise_citations: int = 0
    factual: int = 0
    uncited_factual: int = 0
    markers: int = 0
    broken_markers: int = 0

    def add(self, other: CitationCounts) -> None:
        for name in ("sentences", "supported", "citations", "precise_citations", "factual", "uncited_factual", "markers", "broken_markers"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def rates(self) -> dict[str, float]:
        """Citation recall and precision, uncited-fact rate and broken-marker rate."""

        def share(a: int, b: int) -> float:
            return a / b if b else 0.0

        return {
            "citation_recall": share(self.supported, self.sentences),
            "citation_precision": share(self.precise_citations, self.citations),
            "uncited_fact_rate": share(self.uncited_factual, self.factual),
            "broken_marker_rate": share(self.broken_markers, self.markers),
            "sentences": self.sentences,
            "citations": self.citations,
            "markers": self.markers,
        }


def format_passage(source: dict[str, Any] | str) -> str:
    """A source as the judge reads it: ``Title: ...`` then the text (ALCE's layout)."""
    if isinstance(source, str):
        return source
    title = str(source.get("title") or "").strip()
    text = str(source.get("text") or source.get("snippet") or "").strip()
    return titled(title, text)


class CitationScorer:
    """Stage: score the citations of answers with an entailment judge."""

    def __init__(self, judge: EntailmentJudge) -> None:
        self.judge = judge

    def score_answer(self, answer: str, sources: list[dict[str, Any] | str]) -> CitationCounts:
        """Counts for one answer whose markers number ``sources`` from 1."""
        passages = [format_passage(s) for s in sources]
        counts = CitationCounts()
        for sentence in split_cited(answer):
            counts.sentences += 1
            counts.markers += len(sentence.markers)
            valid = list(dict.fromkeys(n for n in sentence.markers if 1 <= n <= len(passages)))
            counts.broken_markers += sum(1 for n in sentence.markers if not 1 <= n <= len(passages))
            if looks_factual(sentence.text):
                counts.factual += 1
                counts.uncited_factual += int(not valid)
            if not valid:
                continue
            counts.citations += len(valid)
            claim = sentence.claim
            supported = self._entails(passages, valid, claim)
            counts.supported += int(supported)
            if len(valid) == 1 or not supported:
                counts.precise_citations += int(supported)
                continue
            for number in valid:
                others = [n for n in valid if n != number]
                irrelevant = not self._entails(passages, [number], claim) and self._entails(passages, others, claim)
                counts.precise_citations += int(not irrelevant)
        return counts

    def _entails(self, passages: list[str], numbers: list[int], claim: str) -> bool:
        return self.judge.entails([passages[n - 1] for n in numbers], claim)
