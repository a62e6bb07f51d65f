"""BM25 over a handful of texts held in memory: one document's segments, a training pool.

The collection index (tantivy) answers questions over the whole collection; this is for
ranking a small list on the spot, no files. Texts and queries are read into the index's
own terms (:func:`navicite.index.words.terms`), so a word matches here as it does there,
less the 33 English stop words of Lucene's (and bm25s's) list on both sides: a text sharing
only "the" with a question shares nothing, and pronouns, which a story's questions need, stay.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from navicite.index.words import terms


class LocalBM25:
    """BM25 scores of ``texts`` for any query."""

    def __init__(self, texts: Sequence[str]) -> None:
        import bm25s
        from bm25s.stopwords import STOPWORDS_EN

        self.size = len(texts)
        self._stopwords = frozenset(STOPWORDS_EN)
        self._bm25 = bm25s.BM25()
        if self.size:
            self._bm25.index([self._words(t) for t in texts], show_progress=False)

    def scores(self, query: str) -> np.ndarray:
        """One score per text, in order; all zero when the query has no word the texts could match."""
        out = np.zeros(self.size, dtype=np.float32)
        words = [w for w in dict.fromkeys(self._words(query)) if w in self._bm25.vocab_dict] if self.size else []
        if not words:
            return out
        ids, scores = self._bm25.retrieve([words], k=self.size, show_progress=False, n_threads=1)
        out[ids[0].astype(int)] = scores[0]
        return out

    def ranking(self, query: str) -> list[int]:
        """Positions of the texts, best first; ties (and a query matching nothing) keep their order."""
        return [int(i) for i in np.argsort(-self.scores(query), kind="stable")]

    def _words(self, text: str) -> list[str]:
        # The stop words' stems are the words themselves, so the list applies to stemmed terms as it is.
        return [t for t in terms(text) if t not in self._stopwords]
