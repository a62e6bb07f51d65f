"""The ``none`` backend: no model, candidates keep their fused (RRF) order."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from navicite.rerank.base import RerankItem, Scored, top


class FusionReranker:
    """Orders by the ``rrf`` signal of the pool; items without it keep their input order."""

    name = "none"

    def rerank(self, question: str, items: Sequence[RerankItem], top_n: int) -> list[Scored]:
        # Falling back to 1/(60 + position) keeps a flat list's own order.
        scores = np.array([it.signals.get("rrf", 1.0 / (61 + i)) for i, it in enumerate(items)], dtype=np.float64)
        return top([it.doc_id for it in items], scores, [dict(it.signals) for it in items], top_n)
