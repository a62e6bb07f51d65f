"""A draft after verification, and what the answer form does when its answer sentence is not supported.

:class:`Checked` holds a draft's units with each sentence's verification, before markers are
numbered: the step between checking a draft and assembling the :class:`~navicite.generate.answer.Answer`,
where CiteG may ask again (``generate.recheck_answer``) or say that the sources do not give the
answer (``generate.unsupported_answer``, :func:`not_stated`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from navicite.generate.answer import SentenceRecord, SupportCheck
from navicite.generate.draft import Draft, claim_text, no_answer_text
from navicite.generate.restate import addresses, restates
from navicite.generate.sources import ContextEntry
from navicite.generate.verify import Verified, closest_in
from navicite.text.sentences import Unit

#: The scorer a quoted source sentence's check carries: the sentence is the source's own words.
QUOTE_CHECK = "quote"

# How the closest source sentence is introduced, by language.
# (The quote's own full stop goes: the line ends after the quotation mark, where the marker goes.)
_CLOSEST = {"en": "The closest the sources come is: “{quote}”.", "ko": "자료에서 가장 가까운 내용은 다음과 같습니다: “{quote}”."}
# How that sentence is introduced when it answers the question itself (it then is the answer).
_SAYS = {"en": "The sources say: “{quote}”.", "ko": "자료에는 다음과 같이 나와 있습니다: “{quote}”."}

#: Whether a source's own sentence answers the question: (question, source entry, sentence) -> yes.
QuoteAnswers = Callable[[str, ContextEntry, str], bool]


@dataclass
class Checked:
    """A draft cut into units, with one :class:`Verified` per sentence unit (headings have none)."""

    draft: Draft
    units: list[Unit]
    verified: list[Verified]
    replaced: list[SentenceRecord] = field(default_factory=list)
    """Sentences of the draft taken out and replaced (shown in the answer's ``withheld``)."""

    def texts(self) -> list[str | None]:
        """Each unit's text, ``None`` for a heading."""
        return [u.text if u.kind != "heading" else None for u in self.units]

    def answer_at(self, question: str) -> int | None:
        """The index of the unit that answers: the first sentence that states something and does
        not only restate ``question``.

        A fragment is no answer: a draft that opens with its source's title ("The Strucplot
        Framework: ...") had that title taken for the answer, refused, and replaced by "the
        sources do not answer", above a cited sentence that did (pile question 6, 4 Dec 2026).
        """
        sentences = [at for at, u in enumerate(self.units) if u.kind != "heading"]
        fragments = {at for at, v in zip(sentences, self.verified) if v.states_nothing}
        return answer_unit([None if at in fragments else text for at, text in enumerate(self.texts())], question)

    def sentence_index(self, at: int) -> int:
        """The position in ``verified`` of unit ``at`` (headings have no verification)."""
        return sum(1 for u in self.units[:at] if u.kind != "heading")

    def verified_at(self, at: int) -> Verified:
        """The verification of sentence unit ``at``."""
        return self.verified[self.sentence_index(at)]

    def answer_unsupported(self, question: str) -> bool:
        """Whether the answer sentence is a claim no source was verified for."""
        at = self.answer_at(question)
        if at is None:
            return False
        v = self.verified_at(at)
        return not v.kept and v.kind != "general"


def answer_unit(texts: list[str | None], question: str) -> int | None:
    """The index of the sentence that answers: the first (``None`` entries are headings) that does not
    only restate ``question``, else the first."""
    sentences = [at for at, text in enumerate(texts) if text is not None]
    return next((at for at in sentences if not restates(texts[at] or "", question)), sentences[0] if sentences else None)


def not_stated(checked: Checked, question: str, entries: list[ContextEntry], answers: QuoteAnswers | None = None) -> Checked:
    """``checked`` with its unsupported answer sentence replaced by "the sources do not answer this question".

    The draft's sentence goes to ``replaced`` (the answer's JSON lists it under ``withheld``):
    a small model asked for something the sources lack tends to write the nearest value it
    read (a default, a neighbouring header's magic number) as the answer, and verification is
    what catches it. When no other sentence of the draft is cited, the source sentence closest
    to the refused one in wording is quoted and cited, so the reader sees what the sources do say;
    when ``answers`` finds that the quote answers the question, the quote is the answer and
    nothing says the sources do not answer (the held-out pile's p2-11 said both, 7 Dec 2026).
    """
    at = checked.answer_at(question)
    assert at is not None
    draft, units = checked.draft, checked.units
    lead = units[at]
    v = checked.verified_at(at)
    refused = SentenceRecord(lead.text, "unsupported", [], v.support, v.checks)
    if _cited_answer_after(checked, at, question):
        return _without(checked, at, refused)
    language = draft.language if draft.language in _CLOSEST else "en"
    sentence_at = checked.sentence_index(at)
    others_kept = any(x.kept for k, x in enumerate(checked.verified) if k != sentence_at)
    closest = None if others_kept else closest_in(claim_text(lead.text), entries)
    if closest is None:
        return _replaced(checked, at, no_answer_text(language), Verified("general"), refused)
    entry, quote = closest
    bare = quote.rstrip().rstrip(".。")
    if answers is not None and answers(question, entry, quote):
        return _replaced(checked, at, _SAYS[language].format(quote=bare), _quoted(entry), refused)
    replaced = _replaced(checked, at, no_answer_text(language), Verified("general"), refused)
    line = _CLOSEST[language].format(quote=bare)
    text = replaced.draft.text.rstrip() + "\n\n"
    units = [*replaced.units, Unit(line, len(text), len(text) + len(line), "sentence")]
    return replace(replaced, draft=replace(replaced.draft, text=text + line), units=units,
                   verified=[*replaced.verified, _quoted(entry)])


def _quoted(entry: ContextEntry) -> Verified:
    """The verification of a sentence that quotes ``entry`` verbatim: supported by its own words."""
    return Verified("fact", [entry.number], [SupportCheck(entry.number, entry.source.doc_id, 1.0, True, QUOTE_CHECK)])


def _replaced(checked: Checked, at: int, says: str, verified: Verified, refused: SentenceRecord) -> Checked:
    """``checked`` with unit ``at`` (a refused sentence, listed as withheld) replaced by ``says``."""
    draft, units = checked.draft, checked.units
    lead = units[at]
    text = draft.text[:lead.start] + says + draft.text[lead.end:]
    shift = len(says) - (lead.end - lead.start)
    units = [*units[:at], Unit(says, lead.start, lead.start + len(says), lead.kind),
             *(replace(u, start=u.start + shift, end=u.end + shift) for u in units[at + 1:])]
    sentence_at = checked.sentence_index(at)
    kept = [*checked.verified[:sentence_at], verified, *checked.verified[sentence_at + 1:]]
    return Checked(replace(draft, text=text, short_answer=None), units, kept, [*checked.replaced, refused])


def _cited_answer_after(checked: Checked, at: int, question: str) -> bool:
    """Whether a cited sentence after unit ``at`` speaks to the question (:func:`~navicite.generate.restate.addresses`).

    Then that sentence is the answer: a held-out pile answer (5 Dec 2026) opened "The sources do
    not answer this question." and gave the cited answer in its next sentence.
    """
    return any(u.kind != "heading" and checked.verified_at(k).kept and addresses(u.text, question)
               for k, u in enumerate(checked.units) if k > at)


def _without(checked: Checked, at: int, refused: SentenceRecord) -> Checked:
    """``checked`` without unit ``at`` (a refused sentence, listed as withheld), and the blank after it."""
    draft, units = checked.draft, checked.units
    lead = units[at]
    # At the start of a line, the line break after the sentence goes with it.
    blank = " \t\n" if lead.start == 0 or draft.text[lead.start - 1] == "\n" else " \t"
    end = lead.end
    while end < len(draft.text) and draft.text[end] in blank:
        end += 1
    shift = end - lead.start
    kept_units = [*units[:at], *(replace(u, start=u.start - shift, end=u.end - shift) for u in units[at + 1:])]
    sentence_at = checked.sentence_index(at)
    verified = [*checked.verified[:sentence_at], *checked.verified[sentence_at + 1:]]
    text = draft.text[:lead.start] + draft.text[end:]
    return Checked(replace(draft, text=text, short_answer=None), kept_units, verified, [*checked.replaced, refused])
