"""Hard negatives: top hits for a training query that are not its positive.

Lexical hits share the query's words without answering it, which is exactly
what a reranker placed after BM25 must learn to push down; embedding hits are
what the hybrid order puts in the head the cross-encoder re-scores at run
time. bm25s keeps the index in memory, so several corpora can be mined in one
process without a navicite data directory.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from navicite.embed import Embedder, embed_cached
from navicite.lexical import LocalBM25
from navicite.train.corpora import Passage


class Miner:
    """Turns a retriever's hits into sampled hard negatives; subclasses supply :meth:`hits`.

    Args:
        depth: how many top hits are candidates; negatives are sampled from them
            rather than taken strictly from the top, because the very best hits
            are the likeliest unlabelled positives.
    """

    def __init__(self, depth: int = 30) -> None:
        self.depth = depth

    def hits(self, query: str, k: int) -> list[Passage]:
        """The ``k`` best passages for ``query``, best first."""
        raise NotImplementedError

    def negatives(self, query: str, exclude: set[str], n: int, rng: random.Random) -> list[Passage]:
        """Up to ``n`` hard negatives for ``query``, never a passage whose id is in ``exclude``."""
        pool = [p for p in self.hits(query, self.depth + len(exclude)) if p.pid not in exclude]
        if len(pool) <= n:
            return pool
        # Half from the very top (hardest), the rest spread over the remaining depth.
        head = pool[: n // 2]
        tail = rng.sample(pool[n // 2 :], n - len(head))
        return head + tail


class NegativeMiner(Miner):
    """BM25 over one list of passages, English stemming and stop words (``depth``: see :class:`Miner`)."""

    def __init__(self, passages: Sequence[Passage], depth: int = 30) -> None:
        super().__init__(depth)
        self.passages = list(passages)
        self._bm25 = LocalBM25([p.as_text() for p in self.passages])

    def hits(self, query: str, k: int) -> list[Passage]:
        """The ``k`` best BM25 passages for ``query`` (fewer when few share a word)."""
        scores = self._bm25.scores(query)
        return [self.passages[int(i)] for i in np.argsort(-scores, kind="stable")[:k] if scores[i] > 0]


class DenseMiner(Miner):
    """Embedding cosine over one list of passages, embedded once here (kept in ``cache_dir`` when given)."""

    def __init__(self, passages: Sequence[Passage], embedder: Embedder, depth: int = 30, cache_dir: Path | None = None) -> None:
        super().__init__(depth)
        self.passages = list(passages)
        self.embedder = embedder
        texts = [p.as_text() for p in self.passages]
        self._vectors = _unit(embedder.embed(texts) if cache_dir is None else embed_cached(embedder, texts, cache_dir))

    def hits(self, query: str, k: int) -> list[Passage]:
        cosine = self._vectors @ _unit(self.embedder.embed([query], query=True))[0]
        k = min(k, len(self.passages))
        best = np.argpartition(-cosine, k - 1)[:k]
        return [self.passages[int(i)] for i in best[np.argsort(-cosine[best])]]


class FusedMiner(Miner):
    """Several miners' hits interleaved rank by rank (duplicates once), so each retriever's hard cases appear."""

    def __init__(self, miners: Sequence[Miner], depth: int = 30) -> None:
        super().__init__(depth)
        self.miners = list(miners)

    def hits(self, query: str, k: int) -> list[Passage]:
        lists = [m.hits(query, k) for m in self.miners]
        seen: set[str] = set()
        fused = []
        for rank in range(max((len(h) for h in lists), default=0)):
            for hits in lists:
                if rank < len(hits) and hits[rank].pid not in seen:
                    seen.add(hits[rank].pid)
                    fused.append(hits[rank])
        return fused[:k]


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)
