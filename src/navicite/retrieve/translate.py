"""Keyword translation for the cross-lingual portfolio G."""

from __future__ import annotations

import json

from pydantic import BaseModel, Field

from navicite import prompts
from navicite.llm.base import LLM, CallOptions, Message
from navicite.retrieve.keywords import Analysis
from navicite.retrieve.portfolio import Translation
from navicite.text.language import UNKNOWN

LANGUAGE_NAMES = {
    "en": "English", "ko": "Korean", "ja": "Japanese", "zh": "Chinese", "de": "German",
    "fr": "French", "es": "Spanish", "it": "Italian", "pt": "Portuguese", "ru": "Russian",
}


class TranslationReply(BaseModel):
    """The JSON the translation prompt asks for."""

    # Required: optional, the schema-constrained embedded model always left it out.
    question: str = Field(min_length=1, max_length=1000)
    primary: list[str] = Field(min_length=1, max_length=5)
    expanded: list[str] = Field(default_factory=list, max_length=5)


def target_language(
    question_language: str, collection_languages: dict[str, int], min_share: float = 0.05
) -> tuple[str | None, str]:
    """The collection's most common language other than the question's, and a reason when there is none.

    Languages holding less than ``min_share`` of the documents do not count: language
    detection labels a few English abstracts as Dutch or Swedish, and translating every
    question for them would cost an LLM call to find nothing.
    """
    total = sum(collection_languages.values())
    others = sorted(
        (
            (n, lang)
            for lang, n in collection_languages.items()
            if lang not in (question_language, UNKNOWN) and total and n / total >= min_share
        ),
        reverse=True,
    )
    if others:
        return others[0][1], ""
    if not collection_languages:
        return None, "the collection's languages are unknown"
    return None, f"no other language holds {min_share:.0%} of the collection (question in {question_language})"


class KeywordTranslator:
    """Translates the question and its top keywords with one LLM call (stage ``translate``).

    The whole question comes along: keywords read out of a Korean question by the statistical
    analysis keep their particles ("1939년에"), and translated alone they lose their sense;
    the translated question is also searched and reranked against (retrieve/mpr.py).
    """

    def __init__(self, llm: LLM, max_tokens: int = 256) -> None:
        self.llm = llm
        self.max_tokens = max_tokens

    def _messages(self, question: str, analysis: Analysis, target: str) -> list[Message]:
        return prompts.render(
            "translate_keywords",
            question=question.strip(),
            source_language=LANGUAGE_NAMES.get(analysis.language, analysis.language),
            target_language=LANGUAGE_NAMES.get(target, target),
            primary=json.dumps([k.term for k in analysis.primary[:3]], ensure_ascii=False),
            expanded=json.dumps([k.term for k in analysis.expanded[:3]], ensure_ascii=False),
        )

    def _options(self) -> CallOptions:
        return CallOptions(stage="translate", max_tokens=self.max_tokens, temperature=0.0)

    def run(self, question: str, analysis: Analysis, target: str) -> Translation:
        """The question and its keywords translated. Raises :class:`navicite.llm.base.LLMError` when the model fails."""
        reply = self.llm.complete_json(self._messages(question, analysis, target), TranslationReply, self._options())
        return Translation(tuple(reply.primary), tuple(reply.expanded), target, " ".join(reply.question.split()))
