"""navicite's support cross-encoder as a judge: MiniLM-L6 trained on labelled (claim, passages) pairs.

The network reads the claim and the passages together (:func:`pair_text`) and returns one logit;
its probability (sigmoid) is the verdict's score. Two thresholds make it a stage of the cascade:
at or above ``accept`` it accepts, at or below ``refuse`` it refuses, and between them it asks
``fallback`` (the LLM judge) when there is one, else refuses. The network is shipped as an int8
delta over MiniLM in ``weights/`` (see its MODEL_CARD.md); building the scorer from it
(ONNX Runtime) happens above this layer, in :func:`navicite.generate.verify.create_judge`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from navicite.support.base import Passage, SupportJudge, Verdict

#: The shipped network (as a delta over MiniLM), its tokenizer, model card and training record.
SUPPORT_WEIGHTS = Path(__file__).parent / "weights"
#: Probability at or above which the shipped network accepts (chosen on the tuning part, see the class).
SUPPORT_ACCEPT = 0.9
#: Probability at or below which it refuses when the LLM judges the band between.
SUPPORT_REFUSE = 0.3
#: Tokens per (claim, passages) pair, as trained.
SUPPORT_MAX_LENGTH = 256


class PairScorer(Protocol):
    """Scores (query, text) pairs: one logit per text (:class:`navicite.rerank.onnx.OnnxCrossEncoder`)."""

    def score(self, question: str, texts: Sequence[str], max_length: int = 256, batch_size: int = 16) -> np.ndarray:
        ...


def pair_text(passages: Sequence[tuple[str, str]]) -> str:
    """The passages ``(title, text)`` as the cross-encoder reads them: each under its title, a blank line between."""
    return "\n\n".join(f"{title}\n{text}" if title else text for title, text in passages)


class CrossEncoderJudge:
    """A :class:`~navicite.support.base.SupportJudge` from a trained cross-encoder, with a model for the unsure band.

    Args:
        scorer: the network (claim first, passages second, as trained).
        accept: probability at or above which it accepts.
        refuse: probability at or below which it refuses; between the two ``fallback`` decides.
        fallback: the judge of the unsure band (None: that band is refused).
        max_length: tokens per pair (as trained).
    """

    name = "cross-encoder"

    def __init__(self, scorer: PairScorer, accept: float, refuse: float | None = None,
                 fallback: SupportJudge | None = None, max_length: int = 256) -> None:
        if refuse is not None and refuse > accept:
            raise ValueError(f"refuse threshold {refuse} is above accept threshold {accept}")
        self.scorer = scorer
        self.accept = accept
        self.refuse = accept if refuse is None or fallback is None else refuse
        self.fallback = fallback
        self.max_length = max_length
        self.fallback_calls = 0

    def probability(self, premises: Sequence[Passage], claim: str) -> float:
        """The network's probability that ``premises`` support ``claim``."""
        text = pair_text([(p.title, p.text) for p in premises])
        [logit] = self.scorer.score(claim.strip(), [text], self.max_length, 1)
        return 1.0 / (1.0 + math.exp(-float(logit)))

    def entails(self, premises: Sequence[Passage], claim: str, given: Sequence[str] = ()) -> Verdict:
        passages = [p for p in premises if p.text.strip()]
        if not passages or not claim.strip():
            return Verdict(False, 0.0, self.name, "nothing to judge")
        p = self.probability(passages, claim)
        if p >= self.accept:
            return Verdict(True, p, self.name)
        if p <= self.refuse or self.fallback is None:
            return Verdict(False, p, self.name, f"support probability {p:.2f} below {self.accept:.2f}")
        self.fallback_calls += 1
        verdict = self.fallback.entails(passages, claim, given)
        return Verdict(verdict.supported, verdict.score, f"{self.name}+{verdict.by}", verdict.reason)
