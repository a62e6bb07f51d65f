"""The offline default reranker: embedding cosine fused with BM25 and portfolio agreement.

No cross-encoder weights can be installed offline (docs/models.md), so this backend
combines three signals that are available: the cosine between the question's
and the candidate's MiniLM embeddings, the candidate's BM25 score for the flat
question, and how many portfolio queries found it. Each is min-max scaled over
the candidate set and the weighted sum is the score; a signal no candidate has
(e.g. agreement for a flat BM25 list) simply drops out, and so does the cosine for a
question in a language the embedding model does not read (a Korean question with the
English-only MiniLM: its cosine lowered KorQuAD rankings below flat BM25; git show f4b0ade:bench/README.md, "Korean retrieval").
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

import numpy as np

from navicite.embed import Embedder, reads
from navicite.rerank.base import RerankItem, Scored, min_max, top
from navicite.vectors import VectorStore, text_key

#: Most passage vectors kept in memory between calls.
CACHE_LIMIT = 50_000


class HybridReranker:
    """Weighted sum of scaled signals ``dense``, ``bm25`` and ``agreement``.

    Args:
        embedder: the embedding model (unit-length rows).
        weights: weight per signal name.
        known_vectors: precomputed passage vectors by document id (e.g. an evaluation
            corpus already embedded); other texts are embedded on demand and cached.
        store: the collection's on-disk vectors, read before embedding and filled after; the
            reranker owns it and :meth:`close` closes it.
    """

    name = "hybrid"

    def __init__(
        self,
        embedder: Embedder,
        weights: Mapping[str, float],
        known_vectors: Mapping[str, np.ndarray] | None = None,
        store: VectorStore | None = None,
    ) -> None:
        self.embedder = embedder
        self.weights = dict(weights)
        self.known_vectors = known_vectors or {}
        self.store = store
        self._cache: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def _vectors(self, items: Sequence[RerankItem]) -> np.ndarray:
        keys = [text_key(it.text) for it in items]
        rows: list[np.ndarray | None] = []
        missing: dict[str, str] = {}
        with self._lock:
            for it, key in zip(items, keys):
                vec = self.known_vectors.get(it.doc_id)
                if vec is None:
                    vec = self._cache.get(key)
                if vec is None:
                    missing[key] = it.text
                rows.append(vec)
        found: dict[str, np.ndarray] = {}
        if missing and self.store is not None:
            found = self.store.get_many(missing)
            missing = {key: text for key, text in missing.items() if key not in found}
        if missing:
            fresh = dict(zip(missing.keys(), self.embedder.embed(list(missing.values()))))
            if self.store is not None:
                self.store.put_many(fresh)
            found.update(fresh)
        self._remember(found)
        return np.vstack([row if row is not None else found[key] for row, key in zip(rows, keys)])

    def _remember(self, vectors: Mapping[str, np.ndarray]) -> None:
        with self._lock:
            if len(self._cache) + len(vectors) > CACHE_LIMIT:
                self._cache.clear()
            self._cache.update(vectors)

    def close(self) -> None:
        """Close the vector store (if any); the reranker cannot run after."""
        if self.store is not None:
            self.store.close()

    def rerank(self, question: str, items: Sequence[RerankItem], top_n: int) -> list[Scored]:
        if not items:
            return []
        columns: dict[str, np.ndarray] = {}
        if reads(self.embedder, question):
            columns["dense"] = self._vectors(items) @ self.embedder.embed([question], query=True)[0]
        for name in self.weights:
            if name != "dense" and any(name in it.signals for it in items):
                columns[name] = np.array([it.signals.get(name, 0.0) for it in items], dtype=np.float64)
        total = np.zeros(len(items), dtype=np.float64)
        for name, values in columns.items():
            total += self.weights.get(name, 0.0) * min_max(values.astype(np.float64))
        signals = [
            {**dict(it.signals), **{name: float(values[i]) for name, values in columns.items()}} for i, it in enumerate(items)
        ]
        return top([it.doc_id for it in items], total, signals, top_n)
