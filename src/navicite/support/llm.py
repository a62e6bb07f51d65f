"""The chat model as the support judge: one schema-constrained yes/no question per claim.

The one support question of the project: the verifier and the evaluation's citation judge both
ask it through :class:`LLMJudge`, so the metric cannot drift from what the verifier checks (and
an evaluation that uses it must say that it grades with the verifier's own judge).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel

from navicite import prompts
from navicite.llm.base import LLM, CallOptions, LLMError
from navicite.messages import Message
from navicite.support.base import Passage, Verdict
from navicite.text.quote import defuse, source_block


T = TypeVar("T", bound=BaseModel)


class Reply(BaseModel):
    """The judge's reply."""

    supported: bool


class AnswerReply(BaseModel):
    """The reply to "does this text contain the answer?"."""

    answers: bool


#: How a passage's title opens it where several passages are read as one text.
TITLE_LINE = "Title: "


def titled(title: str, text: str) -> str:
    """``text`` under a ``Title: ...`` line (ALCE's layout), or bare when it has no title."""
    return f"{TITLE_LINE}{title}\n{text}" if title else text


# Markdown marks around code and emphasis: formatting, not content. The 1.5B judge refused
# "... is `finegray`." on the passage "The data set can be created using the finegray command."
# and accepted the same sentence without the backticks.
_MARKUP = re.compile(r"`+|\*\*")


def plain_claim(claim: str) -> str:
    """``claim`` as the judge reads it: without Markdown code and emphasis marks."""
    return " ".join(_MARKUP.sub("", claim).split())


def ask_support(llm: LLM, title: str, text: str, claim: str, stage: str = "verify") -> bool:
    """The LLM's yes/no verdict: does the source (``title``, ``text``) support all of ``claim``?

    The one support question of the project: CiteG's verifier and the evaluation's citation
    judge both ask it, so the metric cannot drift from what the verifier checks.

    Raises:
        LLMError: the model gave no usable verdict, even after a repair attempt.
    """
    return ask_support_together(llm, [(title, text)], claim, stage)


def ask_support_together(llm: LLM, sources: Sequence[tuple[str, str]], claim: str, stage: str = "verify") -> bool:
    """The LLM's yes/no verdict: do ``sources`` (``(title, text)`` pairs), read together, support ``claim``?

    With one source this is :func:`ask_support`. Several sources are shown as separate
    numbered blocks, for the verifier's check of a claim two sources make together and the
    evaluation's judge of a sentence cited on several passages alike.

    Raises:
        LLMError: the model gave no usable verdict, even after a repair attempt.
    """
    return support_probability(llm, sources, claim, stage)[0]


#: How many alternatives of each reply token the judge asks for: enough to hold both verdict words.
ALTERNATIVES = 8


def support_probability(llm: LLM, sources: Sequence[tuple[str, str]], claim: str,
                        stage: str = "verify") -> tuple[bool, float | None]:
    """:func:`ask_support_together`'s verdict and the model's probability of "yes" at the verdict word.

    The probability is p(true) / (p(true) + p(false)) at the reply token that says true or false,
    read from the backend's log-probabilities before the schema constrains the choice; ``None``
    where the backend gives none (then only the verdict is known).

    Raises:
        LLMError: the model gave no usable verdict, even after a repair attempt.
    """
    reply, probability = _scored(llm, support_messages(sources, claim), Reply, stage)
    return reply.supported, probability


#: How the judge's reply opens, up to its verdict word (the :class:`Reply` schema's JSON).
VERDICT_START = '{"supported": '


def support_messages(sources: Sequence[tuple[str, str]], claim: str) -> list[Message]:
    """The support question put to the model: ``judge_support`` for one source, else ``judge_support_together``."""
    if len(sources) == 1:
        (title, text), = sources
        return prompts.render("cite_system") + prompts.render(
            "judge_support", title=defuse(title), text=defuse(text), claim=plain_claim(claim))
    blocks = "\n".join(source_block(n, title, text) for n, (title, text) in enumerate(sources, start=1))
    return prompts.render("cite_system") + prompts.render("judge_support_together", sources=blocks, claim=plain_claim(claim))


def answer_probability(llm: LLM, title: str, sentence: str, question: str, stage: str = "verify") -> float:
    """The model's probability that a source's own ``sentence`` (under ``title``) answers ``question``.

    Not a support question: the sentence is quoted verbatim, so what is asked is whether it gives
    what was asked or only shares its subject. Without log-probabilities from the backend the
    verdict counts as 1.0 or 0.0.

    Raises:
        LLMError: the model gave no usable verdict, even after a repair attempt.
    """
    messages = prompts.render("cite_system") + prompts.render(
        "judge_answers", title=defuse(title), sentence=defuse(sentence), question=defuse(question))
    reply, probability = _scored(llm, messages, AnswerReply, stage)
    return (1.0 if reply.answers else 0.0) if probability is None else probability


def _scored(llm: LLM, messages: list[Message], schema: type[T], stage: str) -> tuple[T, float | None]:
    """A schema-constrained yes/no reply to ``messages`` and the model's p(yes) at its verdict word."""
    options = CallOptions(temperature=0.0, max_tokens=16, stage=stage, alternatives=ALTERNATIVES)
    reply, tokens = llm.complete_json_scored(messages, schema, options)
    return reply, yes_probability(tokens)


def yes_probability(tokens: Sequence[tuple[str, dict[str, float]]]) -> float | None:
    """p(true) / (p(true) + p(false)) at the first token that reads true or false, or ``None``."""
    for token, top in tokens:
        if token.strip().lower() not in ("true", "false"):
            continue
        mass = {"true": 0.0, "false": 0.0}
        for alternative, logprob in top.items():
            word = alternative.strip().lower()
            if word in mass:
                mass[word] += math.exp(logprob)
        total = mass["true"] + mass["false"]
        return mass["true"] / total if total > 0 else None
    return None


def bounded_sources(passages: Sequence[Passage], max_chars: int) -> list[tuple[str, str]]:
    """``(title, text)`` of each passage, the whole within about ``max_chars`` (each keeps its start:
    sources put their title and lead first)."""
    room = max_chars // max(1, len(passages))
    return [(p.title, p.text if len(p.text) <= room else p.text[:room] + " ...") for p in passages]


class LLMJudge:
    """The chat model as a :class:`~navicite.support.base.SupportJudge`; its score is the model's
    probability of "yes" where the backend gives one (:func:`support_probability`), else 1.0 for yes.

    A reply that cannot be used counts as "not supported" (and in ``failures``): a misbehaving
    model lowers support rather than crashing a run. ``max_chars`` bounds what one call reads
    (the start of each passage is kept: sources put their title and lead first).
    """

    name = "llm"

    def __init__(self, llm: LLM, stage: str = "verify", max_chars: int = 6000) -> None:
        self.llm = llm
        self.stage = stage
        self.max_chars = max_chars
        self.failures = 0

    @property
    def model(self) -> str:
        """Which model judges ("backend/model"), for reports."""
        return f"{getattr(self.llm, 'backend', '?')}/{getattr(self.llm, 'model', '?')}"

    def entails(self, premises: Sequence[Passage], claim: str, given: Sequence[str] = ()) -> Verdict:
        passages = [p for p in premises if p.text.strip()]
        if not passages or not claim.strip():
            return Verdict(False, 0.0, self.name, "nothing to judge")
        sources = bounded_sources(passages, self.max_chars)
        try:
            yes, probability = support_probability(self.llm, sources, claim.strip(), stage=self.stage)
        except LLMError as exc:
            self.failures += 1
            return Verdict(False, 0.0, self.name, f"the judge gave no verdict ({exc})")
        return Verdict(yes, (1.0 if yes else 0.0) if probability is None else round(probability, 4), self.name)
