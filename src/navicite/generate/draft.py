"""Draft: one LLM call writes the answer from the chosen sources, in the question's language.

When most of the draft comes back in another language, one more call translates it
(:class:`~navicite.generate.language.LanguageRepair`); the draft records the attempt.

The draft has no citations; any ``[n]`` the model writes anyway is removed so that
only markers placed by the citation stage can appear in the final answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from navicite import prompts
from navicite.config import Settings
from navicite.generate.language import (
    ANSWER_LABEL,
    LanguageCheck,
    LanguageRepair,
    Repair,
    check_language,
    language_name,
    language_rule,
)
from navicite.generate.segment import segment_text
from navicite.generate.sources import ContextEntry, format_sources
from navicite.llm.base import LLM, CallOptions, Message
from navicite.retrieve.language import detect_language

#: What the model writes when the sources do not answer the question (a strict token
#: works better with small models than a soft "say you don't know").
REFUSAL = "NO_ANSWER_IN_SOURCES"

_NO_ANSWER_TEXT = {
    "en": "The sources do not answer this question.",
    "ko": "주어진 자료로는 이 질문에 답할 수 없습니다.",
}
_MODEL_MARKERS = re.compile(
    r"\s*(?:\[\s*\d+(?:\s*[,;–-]\s*\d+)*\s*\]|【[^】]*】"
    # The model also names sources in prose, "(Source 1)" / "(sources 1 and 3)" / "(출처 2)";
    # citations are CiteG's job, and these would otherwise read as part of a claim.
    r"|\((?:sources?|출처)\s*\d+(?:\s*(?:,|;|and|&|및|–|-)\s*\d+)*\s*\))",
    re.IGNORECASE,
)
_SHORT_ANSWER = re.compile(rf"^\s*{ANSWER_LABEL}\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
# The prompt shows the answer's place as "<answer phrase>"; the model may keep the brackets.
_SLOTTED_ANSWER = re.compile(rf"^(\s*{ANSWER_LABEL}\s*)<([^<>\n]+)>", re.IGNORECASE | re.MULTILINE)
# Below this many letters the language detector guesses; such drafts are not judged.
_MIN_LETTERS_TO_JUDGE = 24
#: A draft sharing this many consecutive words with the prompt's instructions copied them.
_ECHO_WORDS = 6
_WORD = re.compile(r"\w+")
_SLOT = re.compile(r"<[a-z][^<>\n]{2,80}>")
# The sources arrive as <source id="n"> blocks; a draft that writes one copied the prompt's markup.
_SOURCE_TAG = re.compile(r"</?source\b", re.IGNORECASE)
# How a finished sentence (or a quotation or bracket closing one) ends.
_FINISHED = re.compile(r"[.!?。！？…)\]\"'”’»*]\s*$")
_LIST_ITEM = re.compile(r"\s*(?:[-*•]|\d+[.)])\s")
# A full stop ends a sentence before a space; the CJK ones need none.
_SENTENCE_END = re.compile(r"[.!?…][)\]\"'”’»]*(?=\s)|[。！？][)\]\"'”’»」]*")


def no_answer_text(language: str) -> str:
    """The sentence shown when the sources do not answer the question."""
    return _NO_ANSWER_TEXT.get(language, _NO_ANSWER_TEXT["en"])


def clean_draft(text: str) -> str:
    """The model's text without citation markers it was told not to write, and trimmed."""
    return _SLOTTED_ANSWER.sub(r"\1\2", _MODEL_MARKERS.sub("", text)).strip()


def without_unfinished_tail(text: str) -> str:
    """``text`` without a last sentence the model left unfinished (its reply ran into the token limit).

    A fragment like "The effect was largest in" would otherwise be cited as a claim. The
    tail counts as unfinished when it ends without closing punctuation and is not a list
    item (lists often end without a full stop); it goes back to the last sentence end on
    its line, or the whole line, and Markdown headings left with nothing after them go
    too. A text that would keep nothing is returned whole.
    """
    text = text.rstrip()
    line_start = text.rfind("\n") + 1
    last_line = text[line_start:]
    if not text or _FINISHED.search(text) or _LIST_ITEM.match(last_line):
        return text
    ends = list(_SENTENCE_END.finditer(last_line))
    kept = text[: line_start + ends[-1].end()] if ends else text[:line_start]
    lines = kept.rstrip().split("\n")
    while lines and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
        lines.pop()
    kept = "\n".join(lines).rstrip()
    return kept if any(ch.isalpha() for ch in kept) else text


def short_answer_of(text: str) -> str | None:
    """The phrase after ``Answer:`` in a short-answer draft, without trailing punctuation."""
    m = _SHORT_ANSWER.search(text)
    if not m:
        return None
    # "<...>" too: the prompt shows the answer's place as a slot, which the model may keep.
    return m.group(1).strip().strip("*").rstrip(".。").strip().strip("\"“”'<>").strip() or None


def echoes_instructions(text: str, instructions: str) -> bool:
    """Whether a draft copied its prompt's instructions instead of answering.

    A copy is a run of ``_ECHO_WORDS`` consecutive words of ``instructions`` (the prompt
    without sources and question), one of its ``<...>`` slots left unfilled, or a source tag.
    """
    lowered = text.lower()
    if _SOURCE_TAG.search(text) or any(slot in lowered for slot in _SLOT.findall(instructions.lower())):
        return True
    def runs(words: list[str]) -> set[tuple[str, ...]]:
        return {tuple(words[i : i + _ECHO_WORDS]) for i in range(len(words) - _ECHO_WORDS + 1)}
    return bool(runs(_WORD.findall(lowered)) & runs(_WORD.findall(instructions.lower())))


def claim_text(sentence: str) -> str:
    """The claim a sentence makes, without a leading ``Answer:`` label (which no source contains)."""
    m = _SHORT_ANSWER.match(sentence)
    return m.group(1).strip() if m else sentence


@dataclass(frozen=True)
class Draft:
    """The drafted answer and how it was obtained."""

    text: str
    language: str
    refused: bool
    short_answer: str | None
    attempts: int
    draft_language: str
    #: Share of the final text's judged sentences in another language than ``language``.
    off_language_share: float = 0.0
    #: The translation attempt, when the first draft was off-language.
    repair: Repair | None = None

    def trace(self) -> dict[str, object]:
        """What the draft stage records in the answer's trace."""
        out: dict[str, object] = {
            "attempts": self.attempts, "refused": self.refused, "draft_language": self.draft_language,
            "off_language_share": round(self.off_language_share, 3), "chars": len(self.text),
        }
        if self.repair is not None:
            r = self.repair
            out["repair"] = {"accepted": r.accepted, "reason": r.reason, "attempts": r.attempts, "off_share_before": round(r.off_share_before, 3),
                             "off_share_after": None if r.off_share_after is None else round(r.off_share_after, 3),
                             "translation": r.translation}
        return out


class Drafter:
    """Writes the answer from the chosen sources (one call, a second one only to fix the language)."""

    def __init__(self, llm: LLM, settings: Settings) -> None:
        self.llm = llm
        self.settings = settings
        self.repairer = LanguageRepair(llm, settings)

    def messages(self, question: str, entries: list[ContextEntry], language: str) -> list[Message]:
        """The draft prompt: shared system message, sources first, question and instructions last."""
        name, values = self._prompt(question, format_sources(entries), language)
        return prompts.render("cite_system") + prompts.render(name, **values)

    def instructions(self, language: str) -> str:
        """The draft prompt's own words (no sources, no question): what an echo would copy."""
        name, values = self._prompt("", "", language)
        return "\n".join(m.content for m in prompts.render(name, **values))

    def _prompt(self, question: str, sources: str, language: str) -> tuple[str, dict[str, object]]:
        g = self.settings.generate
        values: dict[str, object] = {
            "sources": sources,
            "question": question.strip(),
            "language": language_name(language),
            "language_rule": language_rule(language),
            "refusal": REFUSAL,
        }
        if g.short_answer:
            name = "draft_short_answer"
            del values["refusal"]
        else:
            name = "draft_answer"
            values["sentences"] = f"{max(1, g.section_sentences - 1)} to {g.section_sentences}"
        return name, values

    def _options(self) -> CallOptions:
        return CallOptions(
            temperature=min(self.settings.llm.temperature, 0.2),
            max_tokens=self.settings.generate.draft_max_tokens,
            stage="draft",
        )

    def _echo_retry(self, messages: list[Message], raw: str, language: str) -> str | None:
        """A second draft when the first copied the instructions (``None`` when it did not)."""
        if not echoes_instructions(raw, self.instructions(language)):
            return None
        follow = [Message("assistant", raw), *prompts.render("draft_echo_retry", language_rule=language_rule(language))]
        return self.llm.complete(messages + follow, self._options())

    def run(self, question: str, entries: list[ContextEntry], language: str) -> Draft:
        """Draft an answer in ``language`` (an ISO code), translating it once if the model strayed."""
        messages = self.messages(question, entries, language)
        raw = self.llm.complete(messages, self._options())
        retry = self._echo_retry(messages, raw, language)
        first = self._finish(raw, language) if retry is None else self._finish(retry, language, attempts=2)
        check = check_language(first.text, language)
        if first.refused or not self.repairer.needed(check):
            return replace(first, off_language_share=check.off_share)
        repair = self.repairer.run(first.text, language, check)
        return self._repaired(first, check, repair)

    def stream(self, question: str, entries: list[ContextEntry], language: str) -> Iterator[str | Draft]:
        """Text pieces as the model writes them, then the :class:`Draft`.

        A language repair shows its result after the piece ``"\\f"``, which tells a consumer
        to clear what it showed so far (the translation arrives whole, once validated).
        """
        pieces: list[str] = []
        messages = self.messages(question, entries, language)
        for piece in self.llm.stream(messages, self._options()):
            pieces.append(piece)
            yield piece
        raw = "".join(pieces)
        retry = self._echo_retry(messages, raw, language)
        if retry is not None:
            yield "\f"
            yield retry
        first = self._finish(raw, language) if retry is None else self._finish(retry, language, attempts=2)
        check = check_language(first.text, language)
        if first.refused or not self.repairer.needed(check):
            yield replace(first, off_language_share=check.off_share)
            return
        draft = self._repaired(first, check, self.repairer.run(first.text, language, check))
        if draft.repair is not None and draft.repair.accepted:
            yield "\f"
            yield draft.text
        yield draft

    def without_sources(self, language: str) -> Draft:
        """The refusal draft used when no source is left to answer from (no LLM call)."""
        return self._finish("", language, attempts=0)

    def _repaired(self, first: Draft, check: LanguageCheck, repair: Repair) -> Draft:
        if not repair.accepted:
            return replace(first, attempts=first.attempts + 1, off_language_share=check.off_share, repair=repair)
        fixed = self._finish(repair.text, first.language, attempts=first.attempts + 1)
        return replace(fixed, draft_language=first.draft_language, off_language_share=repair.off_share_after or 0.0, repair=repair)

    def _finish(self, raw: str, language: str, attempts: int = 1) -> Draft:
        text = without_unfinished_tail(clean_draft(raw))
        # Small models sometimes write an answer and then the refusal token as well: the
        # token only counts as a refusal when nothing but headings remains without it.
        without = clean_draft(text.replace(REFUSAL, ""))
        refused = not any(u.kind == "sentence" for u in segment_text(without, language))
        text = no_answer_text(language) if refused else without
        letters = sum(ch.isalpha() for ch in text)
        seen = detect_language(text, default=language) if letters >= _MIN_LETTERS_TO_JUDGE else language
        short = short_answer_of(text) if self.settings.generate.short_answer and not refused else None
        return Draft(text, language, refused, short, attempts, seen)
