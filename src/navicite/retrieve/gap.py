"""What a retrieval round left out: one LLM call between rounds of multi-hop retrieval.

A multi-hop question ("Which county was the director of X born in?") names only its first
hop; the second hop's words (the director's name) are known once the first hop's passage
is read. After a round, :class:`GapFinder` shows the model the best passages (title and
opening words, to keep the prompt small) and asks, as validated JSON, whether they are
enough or what the next search must look up: the *bridge* name found so far, a
sub-question and its keywords. :func:`round_analysis` turns those into the keywords the
portfolio builder reads, so the next round's Q and S portfolios are built as round 1's are.

A reply that does not validate, or asks for nothing searchable, ends the rounds (the caller
records why); it never raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Annotated, Any

from pydantic import BaseModel, Field

from navicite import prompts
from navicite.llm.base import LLM, CallOptions, LLMError
from navicite.retrieve.fallback import words
from navicite.retrieve.keywords import Analysis, Keyword, clean_keywords, normalise, unique_terms
from navicite.text.language import question_language

KEYWORD_COUNT = 4

#: A search term as the model writes it: a short phrase, never a sentence.
Term = Annotated[str, Field(max_length=60)]


# The docstring and field descriptions are part of the JSON schema that backends which cannot
# constrain their output read in the prompt: they address the model.
class GapReply(BaseModel):
    """The JSON the missing-information prompt asks for."""

    enough: bool
    bridge: str = Field("", max_length=80)
    missing: str = Field("", max_length=80)
    sub_question: str = Field("", max_length=200)
    keywords: list[Term] = Field(default_factory=list, json_schema_extra={"maxItems": KEYWORD_COUNT})


@dataclass(frozen=True)
class Gap:
    """The model's verdict on a round: enough, or what the next round searches for."""

    enough: bool
    bridge: str = ""
    missing: str = ""
    sub_question: str = ""
    keywords: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "keywords": list(self.keywords)}


@dataclass(frozen=True)
class Glimpse:
    """What the model reads of one passage: its title and opening words."""

    doc_id: str
    title: str
    opening: str

    def line(self, number: int) -> str:
        return f"[{number}] {self.title}: {self.opening}" if self.title else f"[{number}] {self.opening}"


def opening(text: str, chars: int) -> str:
    """The first ``chars`` characters of ``text`` on one line, cut at a word boundary (``...`` when cut)."""
    flat = " ".join(text.split())
    if len(flat) <= chars:
        return flat
    cut = flat[:chars]
    space = cut.rfind(" ")
    return (cut[:space] if space > chars // 2 else cut) + " ..."


def gap_from_reply(reply: GapReply, searched: Sequence[str]) -> Gap:
    """Clean a validated reply into a :class:`Gap`.

    Raises:
        ValueError: the model says something is missing but gives nothing new to search for.
    """
    if reply.enough:
        return Gap(True)
    bridge = " ".join(reply.bridge.split())
    keywords = tuple(k.term for k in clean_keywords([Keyword(t) for t in reply.keywords], KEYWORD_COUNT, []))
    sub_question = " ".join(reply.sub_question.split()) or " ".join(unique_terms([bridge, *keywords]))
    if not sub_question:
        raise ValueError("the model says something is missing but names nothing to search for")
    if normalise(sub_question) in {normalise(s) for s in searched}:
        raise ValueError(f"the model asked again for a search already made: {sub_question!r}")
    return Gap(False, bridge, " ".join(reply.missing.split()), sub_question, keywords)


def round_analysis(gap: Gap, searched: Sequence[str]) -> Analysis:
    """The keywords a later round's portfolios are built from.

    The primary keywords are the gap's *new* names: the bridge and keywords with a word no
    earlier search had (a small model often repeats the question's own subject as the bridge);
    the expansions are the sub-question's other words. Portfolio Q becomes
    ``"American Psychological Association" AND (first OR president)`` and S its prefix form:
    passages about the bridge that also hold what is missing. With nothing new, the gap's
    terms stand as they are.
    """
    terms = unique_terms([gap.bridge, *gap.keywords])
    seen = {w for s in searched for w in words(s)}
    new = [t for t in terms if not set(words(t)) <= seen] or terms
    named = {w for t in new for w in words(t)}
    others = [w for w in dict.fromkeys(words(gap.sub_question)) if w not in named]
    language = question_language(gap.sub_question)
    if not new:
        return Analysis([], [], language, "llm", "no keywords: the sub-question's flat and dense searches only")
    return Analysis([Keyword(t) for t in new[:3]], [Keyword(w) for w in others[:3]], language, "llm")


class GapFinder:
    """The missing-information call: ``run(question, passages, searched) -> (Gap | None, problem)``.

    Args:
        llm: the chat model.
        max_tokens: budget of the reply.
    """

    def __init__(self, llm: LLM, max_tokens: int = 128) -> None:
        self.llm = llm
        self.max_tokens = max_tokens

    def run(self, question: str, passages: Sequence[Glimpse], searched: Sequence[str]) -> tuple[Gap | None, str]:
        """The verdict on ``passages``; ``(None, why)`` when the reply is unusable (never raises on one)."""
        messages = prompts.render(
            "missing_info",
            question=question,
            searched="\n".join(f"- {s}" for s in searched),
            passages="\n".join(p.line(i) for i, p in enumerate(passages, start=1)) or "(none found)",
        )
        options = CallOptions(stage="gap", max_tokens=self.max_tokens, temperature=0.0)
        try:
            reply = self.llm.complete_json(messages, GapReply, options)
            return gap_from_reply(reply, searched), ""
        except (LLMError, ValueError) as exc:
            return None, f"missing-information reply unusable: {exc}"
