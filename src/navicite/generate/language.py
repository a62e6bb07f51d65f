"""The answer's language: naming it in prompts, judging a draft sentence by sentence, repairing it.

A 1.5B model often answers a Korean question in English when its sources are English.
The draft prompt ends with the required language said in that language (small models
follow the last instruction best); when most of a draft is still in another language,
:class:`LanguageRepair` makes one call that translates it, keeping its layout.

Korean sentences written from English sources are full of names in Latin script
("Jonny Craig는 ... 밴드에서 활동했다"); a whole-text detector would call many of them
English. :func:`in_language` therefore judges a sentence for Korean by its Hangul
against its *lowercase* Latin words: names (capitalised) do not count, ordinary English
words do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from navicite import prompts
from navicite.config import Settings
from navicite.text.sentences import segment_text
from navicite.llm.base import LLM, CallOptions, LLMError
from navicite.text.language import question_language

_NAMES = {
    "en": "English", "ko": "Korean (한국어)", "ja": "Japanese (日本語)", "zh": "Chinese (中文)",
    "de": "German (Deutsch)", "fr": "French (français)", "es": "Spanish (español)",
    "it": "Italian (italiano)", "pt": "Portuguese (português)", "ru": "Russian (русский)",
    "vi": "Vietnamese (Tiếng Việt)", "nl": "Dutch (Nederlands)",
}
# The closing instruction in the answer's own language; languages without an entry get
# the English sentence with the language's native name.
_NATIVE_RULES = {
    "ko": "답변 전체를 한국어로 쓰세요. 사람, 장소, 작품, 단체의 이름만 자료에 적힌 그대로 써도 됩니다.",
    "ja": "回答はすべて日本語で書いてください。人名や地名などの固有名詞は資料の表記のままで構いません。",
    "zh": "请全部用中文回答。人名、地名等专有名词可以保留资料中的写法。",
}
# The label that starts a translation, in the target language (the reply continues from it).
_CUES = {"ko": "한국어 번역:", "ja": "日本語訳:", "zh": "中文翻译:"}
#: Worked examples for the second translation try (source, translation), by target language.
_EXAMPLES = {
    "ko": ("The Eiffel Tower in Paris was completed in 1889 [2].", "파리의 Eiffel Tower는 1889년에 완공되었습니다 [2]."),
    "en": ("파리의 Eiffel Tower는 1889년에 완공되었습니다 [2].", "The Eiffel Tower in Paris was completed in 1889 [2]."),
}
_HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+")
_LETTER = re.compile(r"[^\W\d_]")
#: The label of a short-answer line ("Answer:", "**Answer:**", "정답:"), shared with the draft's parser.
ANSWER_LABEL = r"(?:\*\*)?(?:short\s+)?(?:answer|답|정답|답변)(?:\*\*)?\s*:"
_ANSWER_LINE = re.compile(rf"^\s*{ANSWER_LABEL}", re.IGNORECASE)
_MARKER = re.compile(r"\[\d+\]")
_TEXT_TAG = re.compile(r"</?text>", re.IGNORECASE)
_NUMBER = re.compile(r"\d{2,}")
_MONTHS = "january february march april may june july august september october november december".split()
_MONTH = re.compile(r"\b(" + "|".join(_MONTHS) + r")\b", re.IGNORECASE)
# One Hangul syllable carries about as much text as two Latin letters.
_HANGUL_WEIGHT = 2
# Below this many judged letters a sentence is not judged (a statistical detector guesses).
_MIN_LETTERS = 4
_MIN_LETTERS_DETECTOR = 24


def language_name(code: str) -> str:
    """The English name (with the native name) of an ISO 639-1 code, for prompts."""
    return _NAMES.get(code, code)


def language_rule(code: str) -> str:
    """The prompt's closing instruction on the answer's language, in that language where known."""
    native = _NATIVE_RULES.get(code)
    english = f"Write your whole reply in {language_name(code)}."
    return f"{english}\n{native}" if native else english


def is_answer_line(line: str) -> bool:
    """Whether ``line`` is a short-answer line (``Answer: ...``), which may keep the entity's own name."""
    return bool(_ANSWER_LINE.match(line))


def in_language(sentence: str, language: str) -> bool | None:
    """Whether one sentence is written in ``language``; ``None`` when it is too short to tell.

    For Korean, Hangul syllables are weighed against the letters of lowercase Latin words,
    so a Korean sentence full of names passes and an English one with a Korean name fails.
    """
    hangul = len(_HANGUL.findall(sentence))
    lowercase = sum(len(w) for w in _LATIN_WORD.findall(sentence) if w[0].islower())
    if language == "ko":
        if hangul + lowercase < _MIN_LETTERS:
            return None
        return hangul * _HANGUL_WEIGHT >= lowercase
    if hangul * _HANGUL_WEIGHT > lowercase and hangul >= _MIN_LETTERS:
        return False
    if len(_LETTER.findall(sentence)) < _MIN_LETTERS_DETECTOR:
        return None
    return question_language(sentence, default=language) == language


@dataclass(frozen=True)
class LanguageCheck:
    """How much of a text is in the wanted language, judged sentence by sentence."""

    language: str
    judged: int
    off: tuple[str, ...] = field(default=())

    @property
    def off_share(self) -> float:
        """Share of the judged sentences written in another language (0 when none was judged)."""
        return len(self.off) / self.judged if self.judged else 0.0


def check_language(text: str, language: str) -> LanguageCheck:
    """Judge each sentence of ``text`` (headings and ``Answer:`` lines left out)."""
    judged, off = 0, []
    for unit in segment_text(text, language):
        if unit.kind != "sentence" or is_answer_line(unit.text):
            continue
        verdict = in_language(unit.text, language)
        if verdict is None:
            continue
        judged += 1
        if not verdict:
            off.append(unit.text)
    return LanguageCheck(language, judged, tuple(off))


@dataclass(frozen=True)
class Repair:
    """One translation attempt and whether it replaced the draft."""

    text: str
    accepted: bool
    reason: str
    off_share_before: float
    off_share_after: float | None
    #: The model's translation as received (kept for the trace, also when rejected).
    translation: str = ""
    #: Translation calls made (a second, example-guided one when the first stayed off-language).
    attempts: int = 1


class LanguageRepair:
    """Translates a draft into the answer's language in one call, keeping its layout and facts.

    ``Answer:`` lines are set aside and put back unchanged (the answer phrase may stay
    the entity's own name); the rest must come back with the same headings and ``[n]``
    markers, no number the draft did not have, mostly in the right language, or the
    draft is kept as it was.
    """

    def __init__(self, llm: LLM, settings: Settings) -> None:
        self.llm = llm
        self.settings = settings

    def needed(self, check: LanguageCheck) -> bool:
        """Whether the checked draft is off-language enough to repair."""
        return self.settings.generate.language_retry and check.off_share > self.settings.generate.language_repair_share

    def split(self, text: str) -> tuple[list[str], str]:
        """The draft's ``Answer:`` lines and the rest of its text (what gets translated)."""
        lines = text.splitlines()
        return [line for line in lines if is_answer_line(line)], "\n".join(line for line in lines if not is_answer_line(line)).strip()

    def messages(self, body: str, language: str) -> list:
        """The translation prompt for ``body``."""
        cue = _CUES.get(language, f"{language_name(language)} translation:")
        return prompts.render("translate_draft", text=body, language=language_name(language), cue=cue)

    def options(self) -> CallOptions:
        """Call options of the translation (low temperature; Korean needs more tokens than English)."""
        g = self.settings.generate
        return CallOptions(temperature=0.0, max_tokens=g.draft_max_tokens * 2, stage="language-repair")

    def example_messages(self, body: str, language: str) -> list | None:
        """The second try's prompt: one worked example before ``body`` (None: no example for ``language``)."""
        if language not in _EXAMPLES:
            return None
        source, translation = _EXAMPLES[language]
        return prompts.render("translate_draft_example", text=body, language=language_name(language),
                              example_source=source, example_translation=translation)

    def run(self, text: str, language: str, check: LanguageCheck) -> Repair:
        """Translate ``text`` (already judged by ``check``) into ``language``.

        A translation that comes back still in the wrong language gets one more try with a
        worked example (small models copy name-heavy sentences back unchanged otherwise).
        """
        kept, body = self.split(text)
        try:
            first = self.accept(text, kept, body, self.llm.complete(self.messages(body, language), self.options()), language, check)
            retry = self.example_messages(body, language)
            if first.accepted or retry is None or not first.reason.startswith("translation still"):
                return first
            second = self.accept(text, kept, body, self.llm.complete(retry, self.options()), language, check)
        except LLMError as error:
            return Repair(text, False, f"model error: {error}", check.off_share, None)
        return replace(second, attempts=2)

    def accept(self, text: str, kept: list[str], body: str, reply: str, language: str, check: LanguageCheck) -> Repair:
        """The repair for the model's translation ``reply`` of ``body`` (validated)."""
        translated = _strip_fences(reply)
        candidate = "\n".join([*kept, translated]).strip() if kept else translated
        if not translated:
            return Repair(text, False, "empty translation", check.off_share, None)
        after = check_language(candidate, language)
        problem = _layout_problem(body, translated)
        if problem is None and after.off_share > self.settings.generate.language_repair_share:
            problem = f"translation still {after.off_share:.0%} off-language"
        if problem is None and after.judged == 0:
            problem = "translation has no sentence to judge"
        if problem:
            return Repair(text, False, problem, check.off_share, after.off_share, translated)
        # A dropped number loses a detail but invents nothing (verification still checks
        # every sentence), so it is noted, not a reason to keep an answer in the wrong language.
        lost = [n for n in dict.fromkeys(_NUMBER.findall(body)) if n not in translated]
        reason = f"translated; numbers lost: {', '.join(lost[:5])}" if lost else "translated"
        return Repair(candidate, True, reason, check.off_share, after.off_share, translated)


def _strip_fences(reply: str) -> str:
    """The reply without a repeated cue, ``<text>`` tags, a code fence or a "Translation:" label the model may add."""
    text = _TEXT_TAG.sub("", reply).strip()
    for cue in _CUES.values():
        text = text.removeprefix(cue).strip()
    if text.startswith("```"):
        text = text.strip("`").split("\n", 1)[-1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    # A lead-in line the model adds ("Here is the translation into Korean:").
    text = re.sub(r"\A[^\n]*\b(?:translation|translated)\b[^\n]*:\s*\n", "", text.strip(), flags=re.IGNORECASE)
    return re.sub(r"^\s*(?:translation|번역(?:문)?)\s*:\s*", "", text.strip(), flags=re.IGNORECASE).strip()


def _layout_problem(original: str, translated: str) -> str | None:
    """What the translation lost of the original's structure, or ``None``."""
    heads = [sum(line.lstrip().startswith("#") for line in t.splitlines()) for t in (original, translated)]
    if heads[0] != heads[1]:
        return f"headings changed ({heads[0]} -> {heads[1]})"
    if sorted(_MARKER.findall(original)) != sorted(_MARKER.findall(translated)):
        return "source markers changed"
    # A month the original names may come back as its number ("December 5" -> "12월 5일").
    months = {str(_MONTHS.index(m.lower()) + 1) for m in _MONTH.findall(original)}
    added = [n for n in dict.fromkeys(_NUMBER.findall(translated)) if n not in original and n not in months]
    if added:
        return f"numbers added: {', '.join(added[:5])}"
    if len(translated) < 0.2 * len(original):
        return "translation much shorter than the draft"
    return None
