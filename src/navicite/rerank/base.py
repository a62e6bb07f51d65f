"""The reranker seam: score (question, candidate text) pairs, keep the best.

A candidate arrives as a :class:`RerankItem`: its id, the text a model reads
(title + abstract, or a segment) and the signals earlier stages measured
(``bm25`` for the flat question, ``agreement`` across portfolios, ``rrf``).
Backends use what they need and ignore the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from navicite.documents import Document

#: Characters of a candidate's text handed to a reranker (models cut further by tokens).
RERANK_TEXT_CHARS = 2000


def candidate_text(doc: Document) -> str:
    """What a reranker reads of a document: its title and abstract (or the start of its text).

    One definition for every caller, so vectors stored at ingest match the texts re-ranked later.
    """
    return f"{doc.title}\n{doc.abstract or doc.text}"[:RERANK_TEXT_CHARS]


@dataclass(frozen=True)
class RerankItem:
    """One candidate to score."""

    doc_id: str
    text: str
    signals: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Scored:
    """A candidate's final score and the per-signal values behind it (for the trace)."""

    doc_id: str
    score: float
    signals: dict[str, float] = field(default_factory=dict)


@runtime_checkable
class Reranker(Protocol):
    """Orders candidates for a question.

    A backend that holds files open (the hybrid scorer's vector store) also has ``close()``;
    whoever created the reranker calls :func:`release` on it when done.
    """

    name: str

    def rerank(self, question: str, items: Sequence[RerankItem], top_n: int) -> list[Scored]:
        """The best ``top_n`` of ``items``, best first."""
        ...


def release(part: object) -> None:
    """Close ``part`` if it holds anything open (it has ``close()``); parts without one hold nothing."""
    close = getattr(part, "close", None)
    if callable(close):
        close()


def top(doc_ids: Sequence[str], scores: np.ndarray, signals: Sequence[dict[str, float]], top_n: int) -> list[Scored]:
    """The ``top_n`` highest scores as :class:`Scored`; ties keep the input order."""
    order = np.argsort(-scores, kind="stable")[: max(top_n, 0)]
    return [Scored(doc_ids[i], float(scores[i]), signals[i]) for i in order]


def min_max(values: np.ndarray) -> np.ndarray:
    """Scale to [0, 1]; a constant column carries no information and becomes all zeros."""
    low, high = float(values.min()), float(values.max())
    if high - low <= 1e-12:
        return np.zeros_like(values, dtype=np.float64)
    return (values - low) / (high - low)


class HeadReranker:
    """A costly scorer on the head of a cheap prior order: the frame the ``navicite`` and ``llm`` backends share.

    The prior orders every candidate; a subclass re-scores the first ``depth`` of
    that order in :meth:`rescore`, and owns how the tail is kept below the head.

    Args:
        prior: orders every candidate cheaply (the hybrid scorer).
        depth: candidates of the prior order the costly scorer reads.
    """

    name = "head"

    def __init__(self, prior: Reranker, depth: int) -> None:
        self.prior = prior
        self.depth = depth

    def close(self) -> None:
        """Release what the prior order holds open (the hybrid scorer's vector store)."""
        release(self.prior)

    def rerank(self, question: str, items: Sequence[RerankItem], top_n: int) -> list[Scored]:
        if not items:
            return []
        ordered = self.prior.rerank(question, items, len(items))
        if not ordered[: self.depth]:
            return ordered[: max(top_n, 0)]
        text = {it.doc_id: it.text for it in items}
        return self.rescore(question, ordered, [text[s.doc_id] for s in ordered[: self.depth]], top_n)

    def rescore(self, question: str, ordered: list[Scored], head_texts: list[str], top_n: int) -> list[Scored]:
        """The final ``top_n`` from the prior ``ordered`` list and the texts of its head (``ordered[:len(head_texts)]``)."""
        raise NotImplementedError
