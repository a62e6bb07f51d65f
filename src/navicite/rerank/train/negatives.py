"""Hard negatives: BM25 hits for a training query that are not its positive.

Lexical hits share the query's words without answering it, which is exactly
what a reranker placed after BM25 must learn to push down. bm25s keeps the
index in memory, so several corpora can be mined in one process without a
navicite data directory.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from navicite.rerank.train.corpora import Passage


class NegativeMiner:
    """BM25 over one list of passages, English stemming and stop words.

    Args:
        passages: the corpus negatives are drawn from.
        depth: how many top hits are candidates; negatives are sampled from them
            rather than taken strictly from the top, because the very best hits
            are the likeliest unlabelled positives.
    """

    def __init__(self, passages: Sequence[Passage], depth: int = 30) -> None:
        import bm25s
        import Stemmer

        self.passages = list(passages)
        self.depth = depth
        self._stemmer = Stemmer.Stemmer("english")
        self._bm25 = bm25s.BM25()
        tokens = bm25s.tokenize([p.as_text() for p in self.passages], stopwords="en", stemmer=self._stemmer, show_progress=False)
        self._bm25.index(tokens, show_progress=False)

    def hits(self, query: str, k: int) -> list[Passage]:
        """The ``k`` best BM25 passages for ``query`` (fewer when few share a word)."""
        import bm25s

        tokens = bm25s.tokenize([query], stopwords="en", stemmer=self._stemmer, show_progress=False)
        if not tokens.ids or not tokens.ids[0]:
            return []
        k = min(k, len(self.passages))
        ids, scores = self._bm25.retrieve(tokens, k=k, show_progress=False, n_threads=1)
        return [self.passages[int(i)] for i, s in zip(ids[0], scores[0]) if s > 0]

    def negatives(self, query: str, exclude: set[str], n: int, rng: random.Random) -> list[Passage]:
        """Up to ``n`` hard negatives for ``query``, never a passage whose id is in ``exclude``."""
        pool = [p for p in self.hits(query, self.depth + len(exclude)) if p.pid not in exclude]
        if len(pool) <= n:
            return pool
        # Half from the very top (hardest), the rest spread over the remaining depth.
        head = pool[: n // 2]
        tail = rng.sample(pool[n // 2 :], n - len(head))
        return head + tail
