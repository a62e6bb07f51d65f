"""Keywords of a question: the data every MPR stage after analysis works from.

Both analysis paths (the LLM's and the statistical fallback) produce an
:class:`Analysis`; the portfolio builder only ever reads this shape.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

#: Words that name a kind of answer rather than its subject. A keyword made only of
#: these would pull in every "review" or "overview" paper, so they are removed.
GENERIC_WORDS: frozenset[str] = frozenset(
    {
        # English
        "summary", "summaries", "summarize", "summarise", "overview", "overviews", "introduction",
        "explain", "explanation", "describe", "description", "details", "detail", "information",
        "info", "general", "tell", "question", "answer", "about", "topic",
        # Korean: summary, overview, organisation/summing-up, explanation, introduction,
        # content, information, related, "tell me", "please explain"
        "요약", "개요", "정리", "설명", "소개", "내용", "정보", "관련", "알려줘", "알려주세요", "설명해줘",
        "설명해주세요", "요약해줘", "요약해주세요",
    }
)

_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """Case-folded, NFKC-normalised text with single spaces: the key for comparing keywords."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


def is_generic(term: str) -> bool:
    """True when every word of ``term`` is a generic word (see :data:`GENERIC_WORDS`)."""
    words = normalise(term).split()
    return bool(words) and all(w in GENERIC_WORDS for w in words)


@dataclass(frozen=True)
class Keyword:
    """A search term with its synonyms; ``reason`` says why the statistical fallback added an expansion.

    The LLM path leaves ``reason`` empty: asking the model for it cost tokens and nothing but the display read it.
    """

    term: str
    synonyms: tuple[str, ...] = ()
    reason: str = ""

    def variants(self) -> list[str]:
        """The term then its synonyms, without case-insensitive repeats or empty strings."""
        return unique_terms([self.term, *self.synonyms])


def unique_terms(terms: list[str]) -> list[str]:
    """Drop empty strings and case-insensitive repeats, keeping first occurrences in order."""
    seen: set[str] = set()
    out: list[str] = []
    for term in terms:
        key = normalise(term)
        if key and key not in seen:
            seen.add(key)
            out.append(_SPACE.sub(" ", term).strip())
    return out


@dataclass
class Analysis:
    """Result of query analysis.

    Attributes:
        primary: up to 5 ranked anchor keywords.
        expanded: up to 3 keywords the question does not contain but relevant documents would.
        language: ISO 639-1 code of the question's language.
        path: ``"llm"`` or ``"fallback"`` (statistical).
        fallback_reason: why the fallback ran, when it did.
        dropped: generic terms that were removed.
    """

    primary: list[Keyword]
    expanded: list[Keyword]
    language: str
    path: Literal["llm", "fallback"]
    fallback_reason: str | None = None
    dropped: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def clean_keywords(keywords: list[Keyword], limit: int, dropped: list[str]) -> list[Keyword]:
    """Remove generic terms and synonyms, merge repeats, keep at most ``limit`` keywords.

    A keyword whose term is generic but which has a specific synonym is kept with that
    synonym promoted to term, so the model's intent is not lost. Removed terms are
    appended to ``dropped``.
    """
    out: list[Keyword] = []
    seen: set[str] = set()
    for kw in keywords:
        variants = []
        for term in kw.variants():
            if is_generic(term):
                dropped.append(term)
            else:
                variants.append(term)
        variants = [t for t in variants if normalise(t) not in seen]
        if not variants:
            continue
        seen.update(normalise(t) for t in variants)
        out.append(Keyword(variants[0], tuple(variants[1:]), kw.reason))
        if len(out) == limit:
            break
    return out
