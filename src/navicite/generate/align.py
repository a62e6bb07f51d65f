"""Align: which sources support each sentence of the draft.

Batched mode asks once for all sentences; per-sentence mode asks once per sentence
(the reference method's way, kept for comparison). Either way the model's reply is
schema-validated JSON, and whatever is still wrong in it (indices out of range,
repeated, missing, 0-based numbering) is repaired here rather than trusted or
allowed to crash the answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

from pydantic import BaseModel, Field

from navicite import prompts
from navicite.config import Settings
from navicite.errors import UserInputError
from navicite.generate.sources import ContextEntry, format_sources
from navicite.llm.base import LLM, CallOptions, LLMError

SentenceClass = Literal["fact", "general"]


class SentenceLinks(BaseModel):
    """The model's verdict on one sentence."""

    index: int = Field(description="The sentence's number, from 1.")
    kind: SentenceClass = "fact"
    sources: list[int] = Field(default_factory=list, description="Numbers of the supporting sources.")


class AlignReply(BaseModel):
    """The batched alignment reply."""

    sentences: list[SentenceLinks]


class SentenceReply(BaseModel):
    """The per-sentence alignment reply."""

    kind: SentenceClass = "fact"
    sources: list[int] = Field(default_factory=list)


@dataclass(frozen=True)
class Alignment:
    """Repaired alignment of one sentence; ``sources`` are valid 1-based context numbers.

    ``answered`` is false when the model gave nothing usable for this sentence.
    """

    kind: SentenceClass
    sources: tuple[int, ...]
    answered: bool = True


@dataclass
class AlignResult:
    """Alignments in sentence order, with the repairs that were needed."""

    alignments: list[Alignment]
    calls: int
    repairs: list[str] = field(default_factory=list)


def _clean_sources(numbers: list[int], n_sources: int, where: str, repairs: list[str]) -> tuple[int, ...]:
    kept: list[int] = []
    for n in numbers:
        if not 1 <= n <= n_sources:
            repairs.append(f"{where}: dropped source {n} (only 1..{n_sources} exist)")
        elif n in kept:
            repairs.append(f"{where}: dropped repeated source {n}")
        else:
            kept.append(n)
    return tuple(kept)


def _alignment(kind: SentenceClass, sources: tuple[int, ...]) -> Alignment:
    # A sentence the model gives sources for is a claim, whatever label it chose.
    return Alignment("fact" if sources else kind, sources)


def repair_reply(reply: AlignReply | None, n_sentences: int, n_sources: int) -> tuple[list[Alignment], list[str]]:
    """One :class:`Alignment` per sentence from a possibly faulty batched reply.

    Repairs: 0-based numbering is shifted; when the indices are unusable but the
    list has exactly one entry per sentence, position decides; entries for unknown or
    repeated sentence numbers are dropped; sentences left without an entry become
    unanswered facts; source numbers out of range or repeated are dropped.
    """
    repairs: list[str] = []
    unanswered = Alignment("fact", (), answered=False)
    if reply is None:
        return [unanswered] * n_sentences, ["no usable reply: every sentence unanswered"]
    entries = list(reply.sentences)
    indices = [e.index for e in entries]
    if indices and min(indices) == 0 and max(indices) <= n_sentences - 1:
        repairs.append("sentence numbers were 0-based: shifted by one")
        entries = [e.model_copy(update={"index": e.index + 1}) for e in entries]
        indices = [e.index for e in entries]
    valid = sorted(set(indices)) == list(range(1, n_sentences + 1)) and len(indices) == n_sentences
    if not valid and len(entries) == n_sentences:
        repairs.append("sentence numbers unusable: entries taken in order")
        entries = [e.model_copy(update={"index": i + 1}) for i, e in enumerate(entries)]
    by_index: dict[int, Alignment] = {}
    for e in entries:
        where = f"sentence {e.index}"
        if not 1 <= e.index <= n_sentences:
            repairs.append(f"dropped entry for sentence {e.index} (only 1..{n_sentences} exist)")
            continue
        if e.index in by_index:
            repairs.append(f"{where}: dropped a repeated entry")
            continue
        by_index[e.index] = _alignment(e.kind, _clean_sources(e.sources, n_sources, where, repairs))
    missing = [i for i in range(1, n_sentences + 1) if i not in by_index]
    if missing:
        repairs.append(f"no entry for sentences {missing}: left unanswered")
    return [by_index.get(i, unanswered) for i in range(1, n_sentences + 1)], repairs


class Aligner(Protocol):
    """Finds the supporting sources of each sentence."""

    mode: str

    def run(self, sentences: list[str], entries: list[ContextEntry], answer: str) -> AlignResult:
        """Alignments for ``sentences`` against the numbered ``entries``; ``answer`` is the whole draft."""
        ...


def _options(n_sentences: int) -> CallOptions:
    # Each entry is ~15 tokens of JSON; the floor covers short answers with long source lists.
    return CallOptions(temperature=0.0, max_tokens=48 + 24 * n_sentences, stage="align")


class BatchedAligner:
    """One call for all sentences."""

    mode = "batched"

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    def run(self, sentences: list[str], entries: list[ContextEntry], answer: str) -> AlignResult:
        if not sentences:
            return AlignResult([], 0)
        numbered = "\n".join(f"{i}. {s}" for i, s in enumerate(sentences, 1))
        messages = prompts.render("cite_system") + prompts.render(
            "align_citations", sources=format_sources(entries), sentences=numbered, count=len(sentences)
        )
        try:
            reply: AlignReply | None = self.llm.complete_json(messages, AlignReply, _options(len(sentences)))
            failure: list[str] = []
        except LLMError as exc:
            reply, failure = None, [f"alignment call failed: {exc}"]
        alignments, repairs = repair_reply(reply, len(sentences), len(entries))
        return AlignResult(alignments, 1, failure + repairs)


class PerSentenceAligner:
    """One call per sentence, as the reference method does."""

    mode = "per-sentence"

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    def run(self, sentences: list[str], entries: list[ContextEntry], answer: str) -> AlignResult:
        sources = format_sources(entries)
        system = prompts.render("cite_system")
        alignments: list[Alignment] = []
        repairs: list[str] = []
        for i, sentence in enumerate(sentences, 1):
            messages = system + prompts.render("align_sentence", sources=sources, answer=answer, sentence=sentence)
            try:
                reply = self.llm.complete_json(messages, SentenceReply, _options(1))
            except LLMError as exc:
                repairs.append(f"sentence {i}: alignment call failed: {exc}")
                alignments.append(Alignment("fact", (), answered=False))
                continue
            cleaned = _clean_sources(reply.sources, len(entries), f"sentence {i}", repairs)
            alignments.append(_alignment(reply.kind, cleaned))
        return AlignResult(alignments, len(sentences), repairs)


def create_aligner(llm: LLM, settings: Settings, mode: str | None = None) -> Aligner:
    """The aligner for ``mode`` (default: ``settings.generate.align``)."""
    chosen = mode or settings.generate.align
    if chosen == "batched":
        return BatchedAligner(llm)
    if chosen == "per-sentence":
        return PerSentenceAligner(llm)
    raise UserInputError(f"unknown alignment mode {chosen!r}; use 'batched' or 'per-sentence' (setting generate.align)")
