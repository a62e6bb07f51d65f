"""Keep evaluation questions out of the training data.

navicite is scored on the first :data:`SCIFACT_EVAL_CLAIMS` SciFact train claims
(in the order of ``qrels/train.tsv``, the order ``navicite eval`` reads them) and
on the HotpotQA closed-corpus questions; the remaining SciFact train claims are
training data (the issue lists SciFact train as a training source). A reranker that saw those questions (or near copies of them) during
training would report figures it cannot reproduce on unseen data. The guard
compares every candidate training query with every evaluation question after
normalising both, and rejects exact matches and near matches (high word
overlap), so a paraphrase-by-punctuation or an LLM-written query that happens
to copy a claim is dropped too.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from navicite.eval.datasets import EvalQuestion, load_beir, read_json

_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)

#: The SciFact train claims navicite is scored on: the first this many of the split.
SCIFACT_EVAL_CLAIMS = 200

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


@lru_cache(maxsize=4)
def scifact_train_split(data_dir: Path, eval_claims: int = SCIFACT_EVAL_CLAIMS) -> tuple[tuple[EvalQuestion, ...], tuple[EvalQuestion, ...]]:
    """SciFact train claims cut into (evaluation, training), in the evaluation harness's order.

    Reading through :func:`navicite.eval.datasets.load_beir` keeps the cut where
    ``navicite eval ... --limit N`` starts: the first ``eval_claims`` are scored, never trained on.
    Cached: the guard and the claim source both ask, and each read parses the whole corpus.

    Raises:
        UserInputError: the SciFact folder is missing or malformed.
    """
    questions = load_beir(data_dir / "scifact", "train").questions
    return tuple(questions[:eval_claims]), tuple(questions[eval_claims:])


def hotpot_questions(path: Path) -> list[str]:
    """Every ``question`` of a HotpotQA-style JSON list."""
    return [item["question"] for item in read_json(path)]


def evaluation_questions(data_dir: Path) -> list[str]:
    """The questions navicite is scored on that training must never see.

    The evaluation part of :func:`scifact_train_split` and the HotpotQA
    closed-corpus questions (``hotpotqa/hipporag-train-100.json``).

    Raises:
        UserInputError: a file is missing, so the guard could not be built.
    """
    scored, _ = scifact_train_split(data_dir)
    return [q.text for q in scored] + hotpot_questions(data_dir / "hotpotqa" / "hipporag-train-100.json")


def default_guard(data_dir: Path, max_jaccard: float = DEFAULT_MAX_JACCARD) -> EvalGuard:
    """An :class:`EvalGuard` over :func:`evaluation_questions` of ``data_dir``."""
    return EvalGuard(evaluation_questions(data_dir), max_jaccard)
