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


def has_cjk(text: str) -> bool:
    """Whether the text contains any CJK character."""
    # isascii is a C-speed scan; most text of English collections stops here.
    return not text.isascii() and _CJK_RUN.search(text) is not None


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
