"""Chinese, Japanese and Korean text as overlapping character pairs.

Word tokenizers split on spaces and punctuation, which finds nothing useful in
CJK text: Chinese and Japanese have no spaces, and Korean glues particles to
words ("서울은" = "서울" + "은"), so a query for "서울" never equals an indexed
word. Indexing every pair of neighbouring CJK characters (bigrams) instead
makes any CJK string of two or more characters findable as a phrase of pairs.
"""

from __future__ import annotations

import re

# Hangul (jamo, compatibility jamo, syllables), kana, CJK ideographs and their extensions.
_CJK_CLASS = (
    "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
    "\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff\uf900-\ufaff\U00020000-\U0002fa1f"
)
_CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")
# Letters and digits glued to a CJK character: "1989" of "1989년", "BERT" of "BERT를".
_GLUED = re.compile(f"(?<=[{_CJK_CLASS}])[^\\W_{_CJK_CLASS}]+|[^\\W_{_CJK_CLASS}]+(?=[{_CJK_CLASS}])")
# A word's CJK runs and the runs of other letters and digits between them.
_PIECE = re.compile(f"[{_CJK_CLASS}]+|[^\\W_{_CJK_CLASS}]+")
# First bytes of the UTF-8 form of every character in the class above (E1: U+1xxx,
# E3-ED: U+3xxx-U+Dxxx, EF: U+Fxxx, F0: U+10000-U+3FFFF), plus some neighbours.
_CJK_LEADS = {0xE1, *range(0xE3, 0xEE), 0xEF, 0xF0}
_NOT_CJK_LEADS = bytes(b for b in range(256) if b not in _CJK_LEADS)


def has_cjk(text: str) -> bool:
    """Whether the text contains any CJK character."""
    # isascii is a C-speed scan; most text of English collections stops here. Non-ASCII
    # Latin text (dashes, Greek letters, µ) rarely has a byte that can start a CJK
    # character, and deleting all other bytes also runs at C speed: about ten times
    # faster than the regex, which only sees the texts that keep a byte.
    if text.isascii() or not text.encode("utf-8", "surrogatepass").translate(None, _NOT_CJK_LEADS):
        return False
    return _CJK_RUN.search(text) is not None


def cjk_runs(text: str) -> list[str]:
    """Maximal stretches of CJK characters, in order."""
    return _CJK_RUN.findall(text)


def bigrams(run: str) -> list[str]:
    """Neighbouring character pairs of one run; a one-character run stands for itself."""
    if len(run) < 2:
        return [run] if run else []
    return [run[i : i + 2] for i in range(len(run) - 1)]


def bigram_text(text: str) -> str:
    """The text's CJK runs as space-separated bigrams, ready for a whitespace tokenizer.

    Returns an empty string for text without CJK characters. Pairs of
    consecutive runs follow each other, so phrase positions stay meaningful
    inside a run.
    """
    return " ".join(pair for run in cjk_runs(text) for pair in bigrams(run))


def glued_words(text: str) -> list[str]:
    """The non-CJK parts of words that mix CJK and other letters or digits, in order.

    A word tokenizer keeps "BERT를" or "1989년" whole, so neither "BERT" nor "1989" would
    find it; Korean glues particles to Latin names and numbers all the time.
    """
    return _GLUED.findall(text)


def word_pieces(word: str) -> list[str]:
    """A word's CJK runs and the letters and digits between them, in order ("1989년에" -> "1989", "년에")."""
    return _PIECE.findall(word)
