"""Draft: one LLM call writes the answer from the chosen sources, in the question's language.

The draft has no citations; any ``[n]`` the model writes anyway is removed so that
only markers placed by the citation stage can appear in the final answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from navicite import prompts
from navicite.config import Settings
from navicite.generate.segment import segment_text
from navicite.generate.sources import ContextEntry, format_sources
from navicite.llm.base import LLM, CallOptions, Message
from navicite.retrieve.language import detect_language

#: What the model writes when the sources do not answer the question (a strict token
#: works better with small models than a soft "say you don't know").
REFUSAL = "NO_ANSWER_IN_SOURCES"

_LANGUAGE_NAMES = {
    "en": "English", "ko": "Korean (한국어)", "ja": "Japanese (日本語)", "zh": "Chinese (中文)",
    "de": "German (Deutsch)", "fr": "French (français)", "es": "Spanish (español)",
    "it": "Italian (italiano)", "pt": "Portuguese (português)", "ru": "Russian (русский)",
    "vi": "Vietnamese (Tiếng Việt)", "nl": "Dutch (Nederlands)",
}
_NO_ANSWER_TEXT = {
    "en": "The sources do not answer this question.",
    "ko": "주어진 자료로는 이 질문에 답할 수 없습니다.",
}
_MODEL_MARKERS = re.compile(
    r"\s*(?:\[\s*\d+(?:\s*[,;–-]\s*\d+)*\s*\]|【[^】]*】"
    # The model also names sources in prose, "(Source 1)" / "(sources 1 and 3)" / "(출처 2)";
    # citations are CiteG's job, and these would otherwise read as part of a claim.
    r"|\((?:sources?|출처)\s*\d+(?:\s*(?:,|;|and|&|및|–|-)\s*\d+)*\s*\))",
    re.I,
)
_SHORT_ANSWER = re.compile(r"^\s*(?:\*\*)?(?:short\s+)?(?:answer|답|정답|답변)(?:\*\*)?\s*:\s*(.+?)\s*$", re.I | re.M)
# Below this many letters the language detector guesses; such drafts are not judged.
_MIN_LETTERS_TO_JUDGE = 24


def language_name(code: str) -> str:
    """The English name (with the native name) of an ISO 639-1 code, for prompts."""
    return _LANGUAGE_NAMES.get(code, code)


def no_answer_text(language: str) -> str:
    """The sentence shown when the sources do not answer the question."""
    return _NO_ANSWER_TEXT.get(language, _NO_ANSWER_TEXT["en"])


def clean_draft(text: str) -> str:
    """The model's text without citation markers it was told not to write, and trimmed."""
    return _MODEL_MARKERS.sub("", text).strip()


def short_answer_of(text: str) -> str | None:
    """The phrase after ``Answer:`` in a short-answer draft, without trailing punctuation."""
    m = _SHORT_ANSWER.search(text)
    if not m:
        return None
    return m.group(1).strip().strip("*").rstrip(".。").strip().strip("\"“”'").strip() or None


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


class Drafter:
    """Writes the answer from the chosen sources (one call, a second one only to fix the language)."""

    def __init__(self, llm: LLM, settings: Settings) -> None:
        self.llm = llm
        self.settings = settings

    def messages(self, question: str, entries: list[ContextEntry], language: str) -> list[Message]:
        """The draft prompt: shared system message, sources first, question and instructions last."""
        g = self.settings.generate
        values: dict[str, object] = {
            "sources": format_sources(entries),
            "question": question.strip(),
            "language": language_name(language),
            "refusal": REFUSAL,
        }
        if g.short_answer:
            name = "draft_short_answer"
            del values["refusal"]
        else:
            name = "draft_answer"
            values["sentences"] = f"{max(1, g.section_sentences - 1)} to {g.section_sentences}"
        return prompts.render("cite_system") + prompts.render(name, **values)

    def _options(self) -> CallOptions:
        return CallOptions(
            temperature=min(self.settings.llm.temperature, 0.2),
            max_tokens=self.settings.generate.draft_max_tokens,
            stage="draft",
        )

    def run(self, question: str, entries: list[ContextEntry], language: str) -> Draft:
        """Draft an answer in ``language`` (an ISO code), redrafting once if the model strayed."""
        messages = self.messages(question, entries, language)
        text = self.llm.complete(messages, self._options())
        draft = self._finish(text, language, attempts=1)
        if self._needs_retry(draft):
            retry = messages + [Message("assistant", text), *prompts.render("redraft_language", language=language_name(language))]
            draft = self._finish(self.llm.complete(retry, self._options()), language, attempts=2)
        return draft

    def stream(self, question: str, entries: list[ContextEntry], language: str) -> Iterator[str | Draft]:
        """Text pieces as the model writes them, then the :class:`Draft`.

        A redraft (wrong language) streams again after the piece ``"\\f"``, which tells a
        consumer to clear what it showed so far.
        """
        messages = self.messages(question, entries, language)
        pieces: list[str] = []
        for piece in self.llm.stream(messages, self._options()):
            pieces.append(piece)
            yield piece
        text = "".join(pieces)
        draft = self._finish(text, language, attempts=1)
        if self._needs_retry(draft):
            yield "\f"
            retry = messages + [Message("assistant", text), *prompts.render("redraft_language", language=language_name(language))]
            pieces = []
            for piece in self.llm.stream(retry, self._options()):
                pieces.append(piece)
                yield piece
            draft = self._finish("".join(pieces), language, attempts=2)
        yield draft

    def without_sources(self, language: str) -> Draft:
        """The refusal draft used when no source is left to answer from (no LLM call)."""
        return self._finish("", language, attempts=0)

    def _needs_retry(self, draft: Draft) -> bool:
        return self.settings.generate.language_retry and not draft.refused and draft.draft_language != draft.language

    def _finish(self, raw: str, language: str, attempts: int) -> Draft:
        text = clean_draft(raw)
        # Small models sometimes write an answer and then the refusal token as well: the
        # token only counts as a refusal when nothing but headings remains without it.
        without = clean_draft(text.replace(REFUSAL, ""))
        refused = not any(u.kind == "sentence" for u in segment_text(without, language))
        text = no_answer_text(language) if refused else without
        letters = sum(ch.isalpha() for ch in text)
        seen = detect_language(text, default=language) if letters >= _MIN_LETTERS_TO_JUDGE else language
        short = short_answer_of(text) if self.settings.generate.short_answer and not refused else None
        return Draft(text, language, refused, short, attempts, seen)
