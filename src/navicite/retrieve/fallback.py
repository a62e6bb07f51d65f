"""Statistical keyword analysis, used when no LLM is configured or its answer is unusable.

Primary keywords are the question's own words ranked by inverse document
frequency in the collection (rare words carry the topic). Expansions come from
pseudo-relevance feedback: words frequent among the top BM25 documents for the
question, weighted by their rarity in the collection, that the question lacks.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from navicite.index.base import LexicalIndex
from navicite.index.query import Or, Query, Term
from navicite.index.words import stem
from navicite.retrieve.keywords import GENERIC_WORDS, Analysis, Keyword, normalise
from navicite.text.language import question_language

_WORD = re.compile(r"[^\W_][\w\-']*[^\W_]|[^\W_]", re.UNICODE)

#: Function words that never make useful search terms (English; Korean particles are
#: attached to words, so Korean questions lose only the generic words).
STOPWORDS: frozenset[str] = frozenset(
    """a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers him his how i if in into is it its itself just
    may me might more most must my no nor not now of off on once only or other our out over own
    same she should so some such than that the their them then there these they this those
    through to too under until up very was we were what when where which while who whom why
    will with would you your yours whether there's it's does doesn't don't isn't aren't can't
    cannot vs via per e.g i.e et al""".split()
)


def words(text: str) -> list[str]:
    """Lower-cased words of ``text`` without stop words, generic words or bare numbers."""
    out = []
    for raw in _WORD.findall(text):
        word = normalise(raw)
        if word in STOPWORDS or word in GENERIC_WORDS or word.isdigit() or len(word) < 2:
            continue
        out.append(word)
    return out


def document_frequency(index: LexicalIndex, word: str) -> int:
    """How many documents contain ``word`` (exact; ``doc_freq`` when the backend offers it)."""
    exact = getattr(index, "doc_freq", None)
    if callable(exact):
        return int(exact(word))
    return len(index.search(Term(word), k=max(index.count(), 1)))


class StatisticalAnalyzer:
    """Builds an :class:`Analysis` from the index alone (no LLM).

    Args:
        index: the collection to weigh words against.
        feedback_docs: how many top BM25 documents feed the expansions.
        primaries, expansions: how many keywords of each kind to return.
    """

    #: Most words whose IDF is remembered between questions.
    IDF_CACHE_LIMIT = 100_000

    def __init__(self, index: LexicalIndex, feedback_docs: int = 10, primaries: int = 5, expansions: int = 3) -> None:
        self.index = index
        self.feedback_docs = feedback_docs
        self.primaries = primaries
        self.expansions = expansions
        self._idf: dict[str, float] = {}

    def idf(self, word: str) -> float:
        """BM25's inverse document frequency of ``word`` in the collection; 0 for an unknown word."""
        if word not in self._idf:
            if len(self._idf) >= self.IDF_CACHE_LIMIT:
                self._idf.clear()
            total = max(self.index.count(), 1)
            df = document_frequency(self.index, word)
            self._idf[word] = math.log(1 + (total - df + 0.5) / (df + 0.5)) if df else 0.0
        return self._idf[word]

    def run(self, question: str, reason: str) -> Analysis:
        """Keywords for ``question``; ``reason`` (why the LLM path was not taken) goes into the result."""
        question_words = list(dict.fromkeys(words(question)))
        counts, feedback = self._feedback(question_words)
        known = [w for w in question_words if self.idf(w) > 0] or question_words
        # Rare words carry the topic, but a rare word absent from every top document
        # ("happen", "lack") is phrasing, not topic: feedback presence lifts the rest.
        def weight(word: str) -> float:
            return self.idf(word) * (1 + counts[word] / max(feedback, 1))

        # Stable sort keeps the question's order among equal weights.
        ranked = sorted(known, key=weight, reverse=True)[: self.primaries]
        return Analysis(
            primary=[Keyword(w) for w in ranked],
            expanded=self._expansions(question_words, counts, feedback),
            language=question_language(question),
            path="fallback",
            fallback_reason=reason,
        )

    def _feedback(self, question_words: list[str]) -> tuple[Counter[str], int]:
        """In how many of the top BM25 documents each word occurs, and how many documents were read."""
        counts: Counter[str] = Counter()
        if not question_words:
            return counts, 0
        query: Query = Or(tuple(Term(w) for w in question_words))
        hits = self.index.search(query, k=self.feedback_docs)
        for hit in hits:
            doc = self.index.get(hit.doc_id)
            text = f"{doc.title} {doc.abstract or doc.text[:3000]}" if doc else hit.title
            # Each word once per document, in text order: a set's order changes with the process's
            # hash seed, and so would the ties of most_common below (the same question drew other
            # expansions from one run to the next).
            counts.update(list(dict.fromkeys(words(text))))
        return counts, len(hits)

    def _expansions(self, question_words: list[str], counts: Counter[str], feedback: int) -> list[Keyword]:
        asked = {_stem(w) for w in question_words}
        # Words in a single feedback document are as likely noise as signal.
        candidates = [(w, n) for w, n in counts.most_common(40) if n >= 2 and _stem(w) not in asked]
        scored = sorted(candidates, key=lambda wn: (-wn[1] * self.idf(wn[0]), wn[0]))
        out: list[Keyword] = []
        stems: set[str] = set()
        for word, n in scored:
            if _stem(word) in stems:
                continue
            stems.add(_stem(word))
            out.append(Keyword(word, reason=f"in {n} of the top {feedback} BM25 documents"))
            if len(out) == self.expansions:
                break
        return out


def _stem(word: str) -> str:
    """English stem, so that 'reduces' and 'reduced' count as one word."""
    return stem(word) if word.isascii() else word

