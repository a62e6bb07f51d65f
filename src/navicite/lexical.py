"""BM25 over a handful of texts held in memory: one document's segments, a training pool.

The collection index (tantivy) answers questions over the whole collection; this is for
ranking a small list on the spot, with English stemming and stop words, no files.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class LocalBM25:
    """BM25 scores of ``texts`` for any query."""

    def __init__(self, texts: Sequence[str]) -> None:
        import bm25s
        import Stemmer

        self.size = len(texts)
        self._stemmer = Stemmer.Stemmer("english")
        self._bm25 = bm25s.BM25()
        if self.size:
            tokens = bm25s.tokenize(list(texts), stopwords="en", stemmer=self._stemmer, show_progress=False)
            self._bm25.index(tokens, show_progress=False)

    def scores(self, query: str) -> np.ndarray:
        """One score per text, in order; all zero when the query has no word the texts could match."""
        import bm25s

        out = np.zeros(self.size, dtype=np.float32)
        if not self.size:
            return out
        tokens = bm25s.tokenize([query], stopwords="en", stemmer=self._stemmer, show_progress=False)
        if not tokens.ids or not tokens.ids[0]:
            return out
        ids, scores = self._bm25.retrieve(tokens, k=self.size, show_progress=False, n_threads=1)
        out[ids[0].astype(int)] = scores[0]
        return out

    def ranking(self, query: str) -> list[int]:
        """Positions of the texts, best first; ties (and a query matching nothing) keep their order."""
        return [int(i) for i in np.argsort(-self.scores(query), kind="stable")]
