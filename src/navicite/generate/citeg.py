"""CiteG as one stage: sources in, cited answer out.

``CiteG(llm, settings).run(question, sources)`` chooses the context, drafts,
segments, aligns, verifies and numbers the citations, recording each step in the
answer's trace. ``stream`` does the same but yields the draft's text as it is
written, then the finished :class:`Answer`. Both take the caller's
:class:`~navicite.stages.StageRecorder` (the engine's, holding retrieval and navigation):
the answer's trace and LLM usage are then every stage of it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from navicite.config import Settings
from navicite.errors import UserInputError
from navicite.generate.align import Aligner, AlignResult, create_aligner
from navicite.generate.answer import Answer, SentenceKind, SentenceRecord, Source
from navicite.generate.checked import Checked, QuoteAnswers, not_stated
from navicite.generate.cite import assign_markers, insert_markers
from navicite.generate.draft import Draft, Drafter, answer_length, claim_text, is_no_answer_sentence
from navicite.generate.phrase import PhraseFinder
from navicite.generate.sources import ContextEntry, SourceSelector
from navicite.generate.verify import CONFIRM_CHECK, JOINT_CHECK, Verified, closest_sentence, create_verifier
from navicite.llm.base import LLM, LLMError
from navicite.stages import StageRecorder
from navicite.support.llm import answer_probability
from navicite.text.language import question_language
from navicite.text.sentences import answer_units


@dataclass(frozen=True)
class Chosen:
    """Streamed before the draft: the sources the model is about to read, so a reader sees them first."""

    entries: list[ContextEntry]

    def to_dict(self) -> list[dict[str, Any]]:
        return [e.source.listing(e.number) for e in self.entries]


class CiteG:
    """Citation-grounded generation over already ranked sources."""

    def __init__(self, llm: LLM, settings: Settings, align: str | None = None) -> None:
        """
        Args:
            llm: the chat model.
            settings: navicite settings (section ``generate`` and ``llm.context_size``).
            align: ``"batched"`` or ``"per-sentence"``; default ``settings.generate.align``.
        """
        self.llm = llm
        self.settings = settings
        self.selector = SourceSelector(settings)
        self.drafter = Drafter(llm, settings)
        self.aligner: Aligner = create_aligner(llm, settings, align)
        self.phrases = PhraseFinder(llm)

    def run(self, question: str, sources: list[Source], recorder: StageRecorder | None = None) -> Answer:
        """The cited answer to ``question`` from ``sources`` (best first, as reranked).

        ``recorder``: the stages recorded so far (the answer's trace starts with them).

        Raises:
            UserInputError: the question is empty.
        """
        for event in self._events(question, sources, False, recorder or StageRecorder()):
            if isinstance(event, Answer):
                return event
        raise AssertionError("CiteG produced no answer")  # pragma: no cover - _events always ends with one

    def stream(self, question: str, sources: list[Source], recorder: StageRecorder | None = None) -> Iterator[str | Chosen | Answer]:
        """The chosen sources, pieces of the draft's text as the model writes them, then the :class:`Answer`.

        A piece ``"\\f"`` means the draft is being rewritten (it came back in the wrong
        language): clear what was shown and show the pieces that follow instead.
        """
        yield from self._events(question, sources, True, recorder or StageRecorder())

    def _events(self, question: str, sources: list[Source], streaming: bool, trace: StageRecorder) -> Iterator[str | Chosen | Answer]:
        if not question or not question.strip():
            raise UserInputError("the question is empty; ask something, e.g. navicite ask \"what is ...?\"")
        language = question_language(question)
        with trace.stage("sources", candidates=len(sources)) as out:
            entries = self.selector.run(sources, question)
            out.update(chosen=[e.source.doc_id for e in entries], truncated=sum(e.truncated for e in entries))
        if streaming:
            yield Chosen(entries)
        with trace.stage("draft", language=language, sources=len(entries)) as out:
            if not entries:
                draft = self.drafter.without_sources(language)
            elif streaming:
                draft = None
                for piece in self.drafter.stream(question, entries, language):
                    if isinstance(piece, Draft):
                        draft = piece
                    else:
                        yield piece
                assert draft is not None
            else:
                draft = self.drafter.run(question, entries, language)
            out.update(draft.trace(), form=self.drafter.form(question, language))
        checked = self._check(question, draft, entries, trace)
        if self._recheck_due(checked, question):
            checked = self._recheck(question, checked, entries, trace)
        if self._unanswered(checked, question):
            checked = not_stated(checked, question, entries, self._quote_judge(trace))
        yield self._finish(question, checked, entries, trace)

    def _check(self, question: str, draft: Draft, entries: list[ContextEntry], trace: StageRecorder) -> Checked:
        """The draft cut into units, each sentence aligned to sources and verified against them."""
        with trace.stage("segment") as out:
            units = answer_units(draft.text, draft.language)
            sentences = [u for u in units if u.kind == "sentence"]
            out.update(units=len(units), sentences=len(sentences))
        texts = [u.text for u in sentences]
        with trace.stage("align", mode=self.aligner.mode) as out:
            if draft.refused or not entries:
                aligned = AlignResult([], 0)
            else:
                aligned = self.aligner.run(texts, entries, draft.text)
            out.update(calls=aligned.calls, repairs=aligned.repairs)
        with trace.stage("verify", scorer=self.settings.generate.verifier) as out:
            if aligned.alignments:
                verifier = create_verifier(self.llm, self.settings, self.drafter.answer_form)
                verified = verifier.run([claim_text(t) for t in texts], aligned.alignments, entries, question)
            else:
                verified = [Verified("general") for _ in sentences]
            if self.drafter.answer_form:
                # "The sources do not say ..." reports a gap; there is nothing in it to cite or to flag.
                verified = [Verified("general") if is_no_answer_sentence(t) else v for t, v in zip(texts, verified)]
            # What was not checked, and why: a sentence the aligner gave no source (or judged
            # general) costs no verification call.
            skipped = sum(1 for a in aligned.alignments if not a.sources) if aligned.alignments else len(sentences)
            out.update(checks=sum(len(v.checks) for v in verified), kept=sum(len(v.kept) for v in verified),
                       judged=sum(1 for v in verified for c in v.checks if c.scorer in ("llm", JOINT_CHECK, CONFIRM_CHECK)),
                       together=sum(1 for v in verified if any(c.scorer == JOINT_CHECK for c in v.checks)),
                       confirmed=sum(1 for v in verified if any(c.scorer == CONFIRM_CHECK for c in v.checks)),
                       skipped_no_source=skipped)
        return Checked(draft, units, verified)

    def _finish(self, question: str, checked: Checked, entries: list[ContextEntry], trace: StageRecorder) -> Answer:
        """The cited answer of a checked draft: markers numbered, unsupported sentences withheld, the answer phrase."""
        draft = checked.draft
        with trace.stage("cite") as out:
            answer = self._assemble(question, checked, entries)
            out.update(citations=len(answer.citations), unsupported=len(answer.unsupported), withheld=len(answer.withheld))
        if self.drafter.answer_form and self.settings.generate.answer_phrase:
            with trace.stage("phrase") as out:
                answer.short_answer = self._phrase(question, draft, answer, out)
        answer.trace = list(trace.stages)
        answer.llm = trace.usage()
        return answer

    def _recheck_due(self, checked: Checked, question: str) -> bool:
        return (self.drafter.answer_form and self.settings.generate.recheck_answer and not checked.draft.refused
                and checked.answer_unsupported(question))

    def _unanswered(self, checked: Checked, question: str) -> bool:
        """Whether the answer sentence is still unsupported and ``generate.unsupported_answer`` says to replace it."""
        return (self.drafter.answer_form and self.settings.generate.unsupported_answer == "not-stated"
                and not checked.draft.refused and checked.answer_unsupported(question))

    def _quote_judge(self, trace: StageRecorder) -> QuoteAnswers | None:
        """Whether the source sentence quoted in place of a refused answer answers the question
        (the model's p(yes) at least ``generate.quote_answer_level``; one call, in the trace), or
        ``None`` when the level is 1 (the quote is then always shown as the closest the sources come)."""
        level = self.settings.generate.quote_answer_level
        if level >= 1.0:
            return None

        def answers(question: str, entry: ContextEntry, sentence: str) -> bool:
            with trace.stage("quote", sentence=sentence, source=entry.number) as out:
                try:
                    p = answer_probability(self.llm, entry.source.title, sentence, question, stage="quote")
                except LLMError as exc:  # no usable verdict: the quote stays "the closest the sources come"
                    out.update(error=str(exc))
                    return False
                answered = p >= level
                out.update(probability=round(p, 4), answers=answered)
            return answered

        return answers

    def _recheck(self, question: str, checked: Checked, entries: list[ContextEntry], trace: StageRecorder) -> Checked:
        """The second draft, shown the unsupported answer sentence, when its own answer sentence is supported; else ``checked``."""
        at = checked.answer_at(question)
        assert at is not None
        claim = claim_text(checked.units[at].text)
        closest = closest_sentence(claim, entries)
        if closest is None:  # nothing in the sources near it: nothing to point the model to
            return checked
        with trace.stage("recheck", sentence=checked.units[at].text, closest=closest) as out:
            second = self.drafter.recheck(question, entries, checked.draft, claim, closest)
            out.update(refused=second.refused, chars=len(second.text))
        kept = checked
        if not second.refused:
            again = self._check(question, second, entries, trace)
            if not again.answer_unsupported(question) and again.answer_at(question) is not None:
                kept = again
        # The outputs dict stays in the trace: what was kept is known only after the second check.
        out.update(kept="second" if kept is not checked else "first")
        return kept

    def _phrase(self, question: str, draft: Draft, answer: Answer, out: dict[str, Any]) -> str | None:
        """The answer phrase of the first sentence, or ``None`` (the reason in ``out``: a skip is visible in the trace)."""
        first = _lead(answer)
        if draft.refused or first is None or first.kind == "general":
            out.update(skipped="no factual first sentence")
        elif answer_length(question, draft.language) == "broad":
            out.update(skipped="the question asks for an explanation")
        else:
            phrase, problem = self.phrases.run(question, claim_text(first.text))
            out.update(phrase=phrase, problem=problem)
            return phrase
        return None

    def _assemble(self, question: str, checked: Checked, entries: list[ContextEntry]) -> Answer:
        draft, units = checked.draft, checked.units
        results = iter(checked.verified)
        per_unit_kept: list[list[int]] = []
        kinds: list[SentenceKind] = []
        unit_results: list[Verified | None] = []
        for unit in units:
            if unit.kind == "heading":
                per_unit_kept.append([])
                kinds.append("heading")
                unit_results.append(None)
                continue
            v = next(results)
            per_unit_kept.append(_best_kept(v, self.settings.generate.max_citations_per_sentence))
            kinds.append("cited" if v.kept else ("general" if v.kind == "general" else "unsupported"))
            unit_results.append(v)
        markers = assign_markers(per_unit_kept, entries, [u.text for u in units])
        by_number = {e.number: e for e in entries}
        records = [
            SentenceRecord(u.text, kind, m, v.support if v else None, v.checks if v else [], _disputed_by(v, by_number))
            for u, kind, m, v in zip(units, kinds, markers.per_unit, unit_results)
        ]
        leave_out = self._withheld(kinds, checked.answer_at(question))
        return Answer(
            question=question,
            answer=insert_markers(draft.text, units, markers.per_unit, leave_out),
            citations=markers.citations,
            sentences=[r for at, r in enumerate(records) if at not in leave_out],
            language=draft.language,
            short_answer=draft.short_answer,
            withheld=checked.replaced + [r for at, r in enumerate(records) if at in leave_out],
        )

    def _withheld(self, kinds: list[SentenceKind], lead: int | None) -> frozenset[int]:
        """The units to leave out of the answer: in the answer form, every unsupported sentence but
        ``lead``, the answer itself (:meth:`Checked.answer_at`), shown marked so the reader sees it
        could not be checked.
        """
        if not self.drafter.answer_form or self.settings.generate.unsupported != "withhold":
            return frozenset()
        return frozenset(at for at, kind in enumerate(kinds) if kind == "unsupported" and at != lead)


def _disputed_by(verified: Verified | None, by_number: dict[int, ContextEntry]) -> list[dict[str, str]]:
    """The sources that say otherwise on a cited sentence, as the answer shows them."""
    if verified is None or not verified.kept:
        return []
    return [{"doc_id": by_number[n].source.doc_id, "title": by_number[n].source.title, "link": by_number[n].source.link,
             "sentence": sentence} for n, sentence in verified.disputed.items()]


def _lead(answer: Answer) -> SentenceRecord | None:
    """The answer's first sentence (headings skipped): in the answer form, the answer itself."""
    return next((s for s in answer.sentences if s.kind != "heading"), None)


def _best_kept(verified: Verified, most: int) -> list[int]:
    """The ``most`` best supported of a sentence's kept sources, in their order: past a few, more
    markers on one sentence tell a reader nothing new (a common claim may be verified on many)."""
    score = {c.source: c.score for c in verified.checks if c.kept}
    best = set(sorted(verified.kept, key=lambda n: -score.get(n, 0.0))[:most])
    return [n for n in verified.kept if n in best]

