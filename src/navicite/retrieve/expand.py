"""Query analysis: one LLM call turns a question into ranked keywords (docs/method.md §1.1).

The model's reply is validated against :class:`AnalysisReply`; generic words are
removed in code afterwards (a small model does not reliably obey "no generic
words"). When there is no LLM, the settings ask for the statistical analysis (the default
with the embedded model, :func:`analysis_by_llm`), or the model's reply is unusable even after
the LLM layer's repair, the statistical path runs and the result says why.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, field_validator

from navicite import prompts
from navicite.config import Settings
from navicite.llm.base import LLM, CallOptions, LLMError, Message
from navicite.retrieve.fallback import StatisticalAnalyzer
from navicite.retrieve.keywords import Analysis, Keyword, clean_keywords, normalise
from navicite.text.language import question_language

PRIMARY_COUNT = 5
EXPANDED_COUNT = 3

#: A keyword as the model writes it: a short phrase, never a sentence.
Term = Annotated[str, Field(min_length=1, max_length=60)]
#: Synonyms are bounded as terms are, so the longest possible reply stays within the token budget
#: (an empty one is tolerated: it is dropped in code rather than worth a repair call).
Synonym = Annotated[str, Field(max_length=60)]


# The docstrings of these reply models are part of the JSON schema, which backends that cannot
# constrain their output read in the prompt: they address the model, the comments address us.


class KeywordReply(BaseModel):
    """A primary keyword as the model writes it."""

    term: Term
    synonyms: list[Synonym] = Field(default_factory=list, json_schema_extra={"maxItems": 2})


# Only what the portfolios read: a CPU model spends tens of milliseconds on every token it
# writes, and the language label (detected in code), the expansions' reasons and synonyms
# (portfolios use an expansion's term alone) were 40% of the reply, read by nothing.
class AnalysisReply(BaseModel):
    """The JSON the analysis prompt asks for."""

    # The schema sent to the model asks for exact counts, so a constrained backend can neither
    # stop early nor ramble on; validation accepts any count and the extra ones are cut in code.
    primary: list[KeywordReply] = Field(
        min_length=1, json_schema_extra={"minItems": PRIMARY_COUNT, "maxItems": PRIMARY_COUNT}
    )
    expanded: list[Term] = Field(
        default_factory=list, json_schema_extra={"minItems": EXPANDED_COUNT, "maxItems": EXPANDED_COUNT}
    )

    @field_validator("expanded", mode="before")
    @classmethod
    def _terms_of_objects(cls, value: Any) -> Any:
        # A backend that is not held to the schema may still write expansions as keyword objects.
        if isinstance(value, list):
            return [item.get("term", "") if isinstance(item, dict) else item for item in value]
        return value


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
        [Keyword(term) for term in reply.expanded if normalise(term) not in taken],
        EXPANDED_COUNT,
        dropped,
    )
    if not primary:
        raise ValueError("the model's primary keywords were all generic words")
    # Detection in code: the model's own language label is not reliable for mixed text.
    return Analysis(primary, expanded, question_language(question), "llm", dropped=dropped)


def analysis_by_llm(settings: Settings) -> bool:
    """Whether the question's keywords come from the model (``retrieve.analysis``, or its profile's default).

    Under the 'small' profile (the embedded model's) the model does not analyse: its analysis
    call took 25-65 s per question on a 2-core CPU, and on SciFact the statistical keywords
    reranked as well (docs/decisions/analysis.md), so the call only delayed the first draft token.
    """
    return settings.resolved("retrieve.analysis") == "llm"


class QueryAnalyzer:
    """Stage 1 of MPR: question -> :class:`Analysis`.

    Args:
        llm: the chat model, or None to use the statistical path only.
        fallback: the statistical analyzer (needs the index).
        max_tokens: budget for the model's reply.
        by_llm: whether ``llm`` analyses (:func:`analysis_by_llm`); when not, it is not called.
    """

    def __init__(self, llm: LLM | None, fallback: StatisticalAnalyzer, max_tokens: int = 256, by_llm: bool = True) -> None:
        self.llm = llm if by_llm else None
        self.fallback = fallback
        self.max_tokens = max_tokens
        if llm is None:
            self.no_llm = "no LLM configured (llm.backend = none)"
        else:
            self.no_llm = "retrieve.analysis=statistical (as set, or the profile's default)"

    def _messages(self, question: str) -> list[Message]:
        return prompts.render("analyze_question", question=question)

    def _options(self) -> CallOptions:
        return CallOptions(stage="analyze", max_tokens=self.max_tokens, temperature=0.0)

    def run(self, question: str) -> Analysis:
        """Analyse ``question``; never raises on a bad model answer (falls back instead)."""
        if self.llm is None:
            return self.fallback.run(question, self.no_llm)
        try:
            reply = self.llm.complete_json(self._messages(question), AnalysisReply, self._options())
            return analysis_from_reply(reply, question)
        except (LLMError, ValueError) as exc:
            return self.fallback.run(question, f"LLM analysis unusable: {exc}")
