"""Keep evaluation questions out of the training data.

navicite is scored on SciFact train claims and on the HotpotQA closed-corpus
questions; a reranker that saw those questions (or near copies of them) during
training would report figures it cannot reproduce on unseen data. The guard
compares every candidate training query with every evaluation question after
normalising both, and rejects exact matches and near matches (high word
overlap), so a paraphrase-by-punctuation or an LLM-written query that happens
to copy a claim is dropped too.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from navicite.rerank.train.corpora import read_json, read_text

_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)

#: Word-set overlap at or above which a training query counts as a copy of an evaluation question.
DEFAULT_MAX_JACCARD = 0.8


def normalise(text: str) -> str:
    """Lower-case, punctuation removed, whitespace collapsed (NFKC first, so look-alike characters match)."""
    folded = unicodedata.normalize("NFKC", text).lower()
    return " ".join(_NON_WORD.sub(" ", folded).split())


def word_set(text: str) -> frozenset[str]:
    """The distinct words of ``text`` after :func:`normalise`."""
    return frozenset(normalise(text).split())


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """Size of the intersection over size of the union (0 for two empty sets)."""
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


@dataclass
class EvalGuard:
    """Decides whether a training query is far enough from every evaluation question.

    Args:
        questions: the evaluation questions that must never be trained on.
        max_jaccard: reject a query whose word-set overlap with any question reaches this.
    """

    questions: list[str]
    max_jaccard: float = DEFAULT_MAX_JACCARD
    _exact: set[str] = field(init=False, repr=False)
    _sets: list[frozenset[str]] = field(init=False, repr=False)
    _by_word: dict[str, list[int]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._exact = {normalise(q) for q in self.questions}
        self._sets = [word_set(q) for q in self.questions]
        # An inverted index keeps the overlap check to the few questions sharing a word.
        self._by_word = {}
        for i, words in enumerate(self._sets):
            for word in words:
                self._by_word.setdefault(word, []).append(i)

    def allows(self, query: str) -> bool:
        """True when ``query`` is neither equal nor near-equal to an evaluation question."""
        if normalise(query) in self._exact:
            return False
        words = word_set(query)
        if not words:
            return True
        shared: dict[int, int] = {}
        for word in words:
            for i in self._by_word.get(word, ()):
                shared[i] = shared.get(i, 0) + 1
        for i, common in shared.items():
            union = len(words) + len(self._sets[i]) - common
            if union and common / union >= self.max_jaccard:
                return False
        return True

    def filter(self, queries: Iterable[str]) -> list[str]:
        """The queries that :meth:`allows`, in their order."""
        return [q for q in queries if self.allows(q)]


def scifact_claims(path: Path) -> list[str]:
    """Every claim text of a BEIR SciFact ``queries.jsonl``."""
    claims = []
    for line in read_text(path).splitlines():
        if line.strip():
            claims.append(json.loads(line)["text"])
    return claims


def hotpot_questions(path: Path) -> list[str]:
    """Every ``question`` of a HotpotQA-style JSON list."""
    return [item["question"] for item in read_json(path)]


def evaluation_questions(data_dir: Path) -> list[str]:
    """The questions navicite is scored on that training must never see.

    SciFact train claims (``scifact/queries.jsonl``, all of them: the train
    split is the scored one) and the HotpotQA closed-corpus questions
    (``hotpotqa/hipporag-train-100.json``).

    Raises:
        UserInputError: a file is missing, so the guard could not be built.
    """
    return scifact_claims(data_dir / "scifact" / "queries.jsonl") + hotpot_questions(
        data_dir / "hotpotqa" / "hipporag-train-100.json"
    )


def default_guard(data_dir: Path, max_jaccard: float = DEFAULT_MAX_JACCARD) -> EvalGuard:
    """An :class:`EvalGuard` over :func:`evaluation_questions` of ``data_dir``."""
    return EvalGuard(evaluation_questions(data_dir), max_jaccard)

