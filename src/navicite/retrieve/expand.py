"""Query analysis: one LLM call turns a question into ranked keywords (METHOD.md §1.1).

The model's reply is validated against :class:`AnalysisReply`; generic words are
removed in code afterwards (a small model does not reliably obey "no generic
words"). When there is no LLM, or its reply is unusable even after the LLM
layer's repair, the statistical fallback runs and the result says so.
"""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field

from navicite import prompts
from navicite.llm.base import LLM, CallOptions, LLMError, Message
from navicite.retrieve.fallback import StatisticalAnalyzer
from navicite.retrieve.keywords import Analysis, Keyword, clean_keywords, normalise
from navicite.retrieve.language import detect_language

PRIMARY_COUNT = 5
EXPANDED_COUNT = 3


class KeywordReply(BaseModel):
    """One keyword as the model writes it."""

    term: str = Field(min_length=1, max_length=60)
    synonyms: list[str] = Field(default_factory=list, json_schema_extra={"maxItems": 2})


class ExpandedReply(KeywordReply):
    """An expansion keyword, with the model's reason for it."""

    reason: str = Field("", json_schema_extra={"maxLength": 48})


class AnalysisReply(BaseModel):
    """The JSON the analysis prompt asks for."""

    language: str = Field(max_length=12)
    # The schema sent to the model asks for exact counts, so a constrained backend can neither
    # stop early nor ramble on; validation accepts any count and the extra ones are cut in code.
    primary: list[KeywordReply] = Field(
        min_length=1, json_schema_extra={"minItems": PRIMARY_COUNT, "maxItems": PRIMARY_COUNT}
    )
    expanded: list[ExpandedReply] = Field(
        default_factory=list, json_schema_extra={"minItems": EXPANDED_COUNT, "maxItems": EXPANDED_COUNT}
    )


def analysis_from_reply(reply: AnalysisReply, question: str) -> Analysis:
    """Turn a validated reply into an :class:`Analysis`: trim counts, drop generic words.

    Raises:
        ValueError: nothing specific is left among the primary keywords.
    """
    dropped: list[str] = []
    primary = clean_keywords(
        [Keyword(k.term, tuple(k.synonyms)) for k in reply.primary], PRIMARY_COUNT, dropped
    )
    # An "expansion" that repeats a primary keyword widens nothing.
    taken = {normalise(t) for k in primary for t in k.variants()}
    expanded = clean_keywords(
        [Keyword(k.term, tuple(k.synonyms), k.reason) for k in reply.expanded if normalise(k.term) not in taken],
        EXPANDED_COUNT,
        dropped,
    )
    if not primary:
        raise ValueError("the model's primary keywords were all generic words")
    # Detection in code: the model's own language label is not reliable for mixed text.
    return Analysis(primary, expanded, detect_language(question), "llm", dropped=dropped)


class QueryAnalyzer:
    """Stage 1 of MPR: question -> :class:`Analysis`.

    Args:
        llm: the chat model, or None to use the statistical path only.
        fallback: the statistical analyzer (needs the index).
        max_tokens: budget for the model's reply.
    """

    def __init__(self, llm: LLM | None, fallback: StatisticalAnalyzer, max_tokens: int = 384) -> None:
        self.llm = llm
        self.fallback = fallback
        self.max_tokens = max_tokens

    def _messages(self, question: str) -> list[Message]:
        return prompts.render("analyze_question", question=question)

    def _options(self) -> CallOptions:
        return CallOptions(stage="analyze", max_tokens=self.max_tokens, temperature=0.0)

    def run(self, question: str) -> Analysis:
        """Analyse ``question``; never raises on a bad model answer (falls back instead)."""
        if self.llm is None:
            return self.fallback.run(question, "no LLM configured (llm.backend = none)")
        try:
            reply = self.llm.complete_json(self._messages(question), AnalysisReply, self._options())
            return analysis_from_reply(reply, question)
        except (LLMError, ValueError) as exc:
            return self.fallback.run(question, f"LLM analysis unusable: {exc}")

    async def arun(self, question: str) -> Analysis:
        """Async twin of :meth:`run`; the statistical path runs in a worker thread."""
        if self.llm is None:
            return await asyncio.to_thread(self.fallback.run, question, "no LLM configured (llm.backend = none)")
        try:
            reply = await self.llm.acomplete_json(self._messages(question), AnalysisReply, self._options())
            return analysis_from_reply(reply, question)
        except (LLMError, ValueError) as exc:
            return await asyncio.to_thread(self.fallback.run, question, f"LLM analysis unusable: {exc}")
