"""Exact nearest-neighbour search over unit-length embeddings (cosine = dot product).

Brute force is exact and fast enough for evaluation corpora (thousands to a few
hundred thousand rows); an approximate index can sit behind the same ``search``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class DenseIndex:
    """Document ids with one embedding row each."""

    def __init__(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        if vectors.ndim != 2 or vectors.shape[0] != len(ids):
            raise ValueError(f"need one vector row per id: {len(ids)} ids, array of shape {vectors.shape}")
        self.ids = list(ids)
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self._position = {doc_id: i for i, doc_id in enumerate(self.ids)}

    def __len__(self) -> int:
        return len(self.ids)

    def search(self, query: np.ndarray, k: int = 10, within: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """The ``k`` ids most similar to ``query`` (a unit vector), best first, with cosines.

        ``within`` restricts the search to those ids (unknown ids are ignored).
        """
        if k <= 0 or not self.ids:
            return []
        if within is not None:
            rows = np.array([self._position[d] for d in within if d in self._position], dtype=np.int64)
        else:
            rows = np.arange(len(self.ids))
        if rows.size == 0:
            return []
        scores = self.vectors[rows] @ np.asarray(query, dtype=np.float32).reshape(-1)
        k = min(k, rows.size)
        top = np.argpartition(-scores, k - 1)[:k]
        # Stable order for equal scores: by id, so repeated runs rank identically.
        order = sorted(top.tolist(), key=lambda i: (-float(scores[i]), self.ids[rows[i]]))
        return [(self.ids[rows[i]], float(scores[i])) for i in order]
