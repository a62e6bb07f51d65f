"""The one token estimate: what budgets (CiteG's sources, navigation's trees, eval) count in.

A budget that adds a count from here to one from somewhere else would mix two units, so
every estimate of a text's tokens comes from :func:`estimate_tokens`; a backend that has
its model's tokenizer (``LLM.count_tokens``) may count exactly instead.
"""

from __future__ import annotations


def estimate_tokens(text: str) -> int:
    """Tokens a Qwen-style BPE tokenizer spends on ``text``, estimated without the tokenizer.

    About four characters of Latin text make a token; Hangul and other non-Latin
    characters cost close to one token each; and a word is at least one token (numbers,
    symbols, short words). The estimate errs on the high side. Blank text costs nothing.
    """
    if not text or text.isspace():
        return 0
    # The codec keeps exactly the ASCII characters: the count of a Python loop, at C speed.
    ascii_chars = len(text.encode("ascii", "ignore"))
    return max(len(text.split()), ascii_chars // 4 + (len(text) - ascii_chars) + 1)
