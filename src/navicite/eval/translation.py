"""Questions translated into Korean once, kept as a fixture for language-match evaluation.

:class:`QuestionTranslator` asks the LLM for a translation (prompts/translate_question.md)
and checks it: the text must contain Hangul and must not keep an English clause (proper
names may stay in Latin script). A failed check is retried at a higher temperature, so
each attempt is a different cached request and re-running the builder costs nothing.

The fixture is JSONL with ``id``, ``question_en``, ``question_ko``, ``answer``;
:func:`read_translated` loads it with clear errors.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from pydantic import BaseModel

from navicite import prompts
from navicite.eval.datasets import DatasetError, read_jsonl, require_field
from navicite.eval.metrics import language_match
from navicite.llm.base import LLM, CallOptions, LLMError
from navicite.text.language import question_language
from navicite.text.sentences import split_sentences

_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_KOREAN_OR_LATIN = re.compile(
    r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318fA-Za-z\u00c0-\u024f]"
)
_LATIN_RUN = re.compile(r"[A-Za-z][A-Za-z'\-]*(?:[ ,]+[A-Za-z][A-Za-z'\-]*)*")
# Words that open or carry an English question; names and titles almost never contain them,
# so a Latin run with one of these is an untranslated clause, not a kept proper name.
_ENGLISH_CLAUSE_WORDS = frozenset(
    {
        "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
        "did", "does", "do", "is", "are", "was", "were", "has", "have",
        "had", "can", "could", "would", "should"
    }
)
_MIN_CLAUSE_WORDS = 4
# A finished question or request ends with punctuation (closing quotes or brackets allowed).
_COMPLETE_END = re.compile(r"[?.!？。][\"'”’)\]]*\s*$")
# Capitalised words that are not names when they sit inside a title ("The Chronicle of ...").
_NOT_NAMES = frozenset(["the", "a", "an", "of", "and"])
# A translation must keep at least this share of the question's capitalised words (names) in
# Latin script: garbled transliterations of names were the 1.5B model's usual failure.
MIN_NAMES_KEPT = 0.5

#: Temperatures of the attempts: greedy first, then more varied replies for a failed check.
ATTEMPT_TEMPERATURES: tuple[float, ...] = (0.0, 0.3, 0.6, 0.9, 0.2, 0.5)


class Translation(BaseModel):
    """The model's reply to the translate_question prompt."""

    translation: str


@dataclass(frozen=True)
class TranslatedQuestion:
    """One fixture row."""

    id: str
    question_en: str
    question_ko: str
    answer: str


@dataclass(frozen=True)
class TranslationResult:
    """A translation, how many attempts it took, and what is still wrong with it.

    ``problem`` is set when no attempt is usable Korean (the fixture must not keep it);
    ``warning`` when the kept attempt passed that check but lost names (worth a look).
    """

    text: str
    attempts: int
    problem: str | None
    warning: str | None = None


def leftover_english(text: str) -> str | None:
    """The first untranslated English clause in ``text``, None when there is none.

    A clause is a run of at least four Latin-script words containing a question or
    auxiliary word ("which", "was", "did", ...); a multi-word name does not count.
    """
    for run in _LATIN_RUN.finditer(text):
        words = re.findall(r"[A-Za-z][A-Za-z'\-]*", run.group(0))
        if len(words) >= _MIN_CLAUSE_WORDS and any(
            w.lower() in _ENGLISH_CLAUSE_WORDS for w in words
        ):
            return run.group(0)
    return None


def name_words(question: str) -> list[str]:
    """Capitalised words of an English question other than each sentence's first word."""
    names = []
    for sentence in split_sentences(question):
        words = re.findall(r"[A-Za-z\u00c0-\u024f][\w'\-\u00c0-\u024f]*", sentence)
        names += [
            w
            for w in words[1:]
            if w[0].isupper() and w.lower() not in _ENGLISH_CLAUSE_WORDS | _NOT_NAMES
        ]
    return names


def korean_translation_problem(text: str) -> str | None:
    """Why ``text`` cannot serve as a Korean question (no Hangul, English left), None when it can."""
    if not text.strip():
        return "the translation is empty"
    if not _HANGUL.search(text):
        return "the translation contains no Hangul"
    clause = leftover_english(text)
    if clause is not None:
        return f"the translation keeps English text: {clause!r}"
    stray = sorted(
        {ch for ch in text if ch.isalpha() and not _KOREAN_OR_LATIN.match(ch)}
    )
    if stray:
        # The small model sometimes slips into Cyrillic or Chinese characters mid-word.
        return f"the translation has letters of another script: {''.join(stray)!r}"
    if not _COMPLETE_END.search(text):
        # The model sometimes closes the JSON string at a quotation mark inside the question.
        return f"the translation looks cut off: {text[-20:]!r}"
    return None


def names_problem(text: str, question: str) -> str | None:
    """Why ``text`` seems to lose the names of ``question`` (a sign of a garbled translation), or None."""
    names = name_words(question)
    kept = [n for n in names if n.lower() in text.lower()]
    if names and len(kept) < MIN_NAMES_KEPT * len(names):
        return f"the translation drops or transliterates names: kept {kept} of {names}"
    return None


class QuestionTranslator:
    """Translates one question into Korean with checked, retried LLM calls."""

    def __init__(
        self,
        llm: LLM,
        temperatures: Sequence[float] = ATTEMPT_TEMPERATURES,
        max_tokens: int = 160,
    ) -> None:
        self.llm = llm
        self.temperatures = tuple(temperatures)
        self.max_tokens = max_tokens

    def run(self, question: str) -> TranslationResult:
        """The first attempt passing both checks; else the first usable Korean one, with a warning.

        Without any usable attempt the last reply is returned with its problem.
        """
        messages = prompts.render(
            "translate_question", language="Korean (한국어)", question=question
        )
        text, problem = "", "no attempt was made"
        usable: TranslationResult | None = None
        for attempt, temperature in enumerate(self.temperatures, start=1):
            options = CallOptions(
                temperature=temperature, max_tokens=self.max_tokens, stage="translate"
            )
            try:
                text = self.llm.complete_json(
                    messages, Translation, options
                ).translation.strip()
            except LLMError as exc:
                text, problem = "", f"the model gave no usable reply ({exc})"
                continue
            problem = korean_translation_problem(text)
            if problem is None:
                warning = names_problem(text, question)
                if warning is None:
                    return TranslationResult(text, attempt, None)
                usable = usable or TranslationResult(text, attempt, None, warning)
        return usable or TranslationResult(text, len(self.temperatures), problem)


def write_translated(path: Path, rows: Iterable[TranslatedQuestion]) -> None:
    """Write the fixture (UTF-8 JSONL, Hangul kept readable)."""
    path.write_text(
        "".join(json.dumps(asdict(r), ensure_ascii=False) + "\n" for r in rows),
        encoding="utf-8",
    )


def read_translated(path: Path) -> list[TranslatedQuestion]:
    """Rows of a translated-questions fixture; :class:`DatasetError` names a bad line."""
    rows = []
    for line, record in read_jsonl(path):
        where = f"{path}:{line}"
        rows.append(
            TranslatedQuestion(
                *(
                    str(require_field(record, key, where))
                    for key in ("id", "question_en", "question_ko", "answer")
                )
            )
        )
    if not rows:
        raise DatasetError(
            f"{path}: no questions; expected JSONL rows with id, question_en, question_ko, answer"
        )
    return rows


def language_figures(
    answer: str, question: str, sentences: Sequence[str] = (), expected: str = "ko"
) -> dict[str, object]:
    """How well ``answer`` keeps the question's language, three ways.

    ``language_match`` uses the Hangul-aware question detector (the one CiteG drafts by) on
    the whole answer; ``language_match_langdetect`` is the harness's statistical metric.
    Both pass an answer with a Korean first line and an English rest, so
    ``sentence_language_match`` is the share of ``sentences`` that are each in ``expected``.
    """
    found = question_language(answer, default="unknown")
    per_sentence = [question_language(s, default=expected) == expected for s in sentences]
    return {
        "answer_language": found,
        "language_match": float(found == expected),
        "language_match_langdetect": language_match(answer, question),
        "sentence_language_match": sum(per_sentence) / len(per_sentence)
        if per_sentence
        else float(found == expected),
        "off_language_sentences": [
            s for s, ok in zip(sentences, per_sentence) if not ok
        ],
    }
