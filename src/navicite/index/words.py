"""The index's own terms of a text, for code that scores or compares words outside it.

One analysis for every lexical comparison navicite makes: the collection index (tantivy's
word chain and CJK character pairs), the in-memory BM25 of ``navicite.lexical``, the
statistical keyword analysis and the verifier's stems all read words this way, so a word
that matches in one matches in the others. (Which words to leave out is each user's own
choice: BM25 drops the usual few, keyword selection many more.)
"""

from __future__ import annotations

from functools import lru_cache

import tantivy

from navicite.index import cjk
from navicite.index.tantivy_schema import word_analyzer


@lru_cache(maxsize=2)
def _analyzer(stemming: bool) -> tantivy.TextAnalyzer:
    return word_analyzer(stemming)


def terms(text: str, stemming: bool = True) -> list[str]:
    """The terms a collection index makes of ``text`` (a bag: BM25 reads no order).

    Words are split on non-alphanumerics, lower-cased and (by default) English-stemmed,
    as the ``en_stem`` field does; CJK runs become their character pairs, as the bigram
    field does, and the letters and digits glued to them ("BERT를") stay words. Text
    without CJK keeps its word order; with CJK, its words come first, then the pairs.
    """
    words = _analyzer(stemming).analyze(text)
    if not cjk.has_cjk(text):
        return words
    pairs = [pair for run in cjk.cjk_runs(text) for pair in cjk.bigrams(run)]
    # tantivy's word tokenizer keeps a mixed word whole; the index finds its glued part instead
    kept = [w for w in words if not cjk.has_cjk(w)]
    glued = [w for part in cjk.glued_words(text) for w in _analyzer(stemming).analyze(part)]
    return kept + glued + pairs


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """English stem of one word, lower-cased, as the index stores it ("Reduces" -> "reduc").

    A word the analyzer would split or drop (empty, over 40 bytes) comes back lower-cased.
    """
    analysed = _analyzer(True).analyze(word)
    return analysed[0] if len(analysed) == 1 else word.lower()
