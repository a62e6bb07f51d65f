"""Draft: one LLM call writes the answer from the chosen sources, in the question's language.

Two forms (``generate.format``): ``answer`` opens with the sentence that answers the
question and adds only as much as the question's form calls for (no headings; a title
or section label the model writes anyway is taken out, so the first sentence of the
answer is the answer); ``report`` is the method's title / introduction / body /
conclusion. The short-answer mode (``Answer: <phrase>`` first) serves both.

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
from navicite.text.sentences import segment_text, split_sentences
from navicite.generate.restate import restates
from navicite.generate.sources import ContextEntry, format_sources
from navicite.llm.base import LLM, CallOptions, Message
from navicite.text.language import question_language

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
    r"|\((?:sources?|출처)\s*#?\s*\d+(?:\s*(?:,|;|and|&|및|–|-)\s*#?\s*\d+)*\s*\))",
    re.IGNORECASE,
)
# ... and as a sentence's opening, "According to source #3, Jonny Craig is ...": the number is the
# prompt's, which the reader never sees (the answer's own markers are renumbered).
_SOURCE_LEAD = re.compile(
    r"(?:^|(?<=[.!?]\s)|(?<=\n))[ \t]*(?:according to|as (?:stated|given|shown|said) in|in|from)\s+(?:the\s+)?"
    r"sources?\s*#?\s*\d+(?:\s*(?:,|and|&)\s*#?\s*\d+)*\s*,\s*(\w)",
    re.IGNORECASE,
)
# ... or as the sentence's subject, "The third source states that any other value is an error.":
# the ordinal is the prompt's numbering, often not even the passage the sentence is cited to.
_SOURCE_SUBJECT = re.compile(
    r"(?:^|(?<=[.!?]\s)|(?<=\n))[ \t]*(?:the\s+)?(?:(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth"
    r"|\d+(?:st|nd|rd|th))\s+source|source\s*#?\s*\d+)\s+(?:states|says|mentions|notes|explains|indicates|shows|reports"
    r"|adds|confirms)\s+(?:that\s+)?(\w)",
    re.IGNORECASE,
)
# The prompt's source markup, when the model copies it: a line that is the opening of a source
# (an optional list number, the tag, its "Title:" line) carries nothing the answer says.
_ECHOED_SOURCE_LINE = re.compile(r"^[ \t]*(?:\d+[.)][ \t]*)?<source\b[^>\n]*>[ \t]*(?:Title:[^\n]*)?$\n?", re.IGNORECASE | re.MULTILINE)
# The sources arrive as <source id="n"> blocks; a draft that writes one copied the prompt's markup.
_SOURCE_TAG = re.compile(r"</?source\b", re.IGNORECASE)
_SOURCE_MARKUP = re.compile(_SOURCE_TAG.pattern + r"[^>\n]*>", re.IGNORECASE)
_SHORT_ANSWER = re.compile(rf"^\s*{ANSWER_LABEL}\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
# The prompt shows the answer's place as "<answer phrase>"; the model may keep the brackets.
_SLOTTED_ANSWER = re.compile(rf"^(\s*{ANSWER_LABEL}\s*)<([^<>\n]+)>", re.IGNORECASE | re.MULTILINE)
# Below this many letters the language detector guesses; such drafts are not judged.
_MIN_LETTERS_TO_JUDGE = 24
_EXTRA_BLANK_LINES = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")
# How the model opens a sentence that only restates its answer.
_CONCLUDING = re.compile(r"^\s*(?:therefore|thus|hence|so|in conclusion|in summary|to conclude|overall)\b\s*,?\s*", re.IGNORECASE)
#: A draft sharing this many consecutive words with the prompt's instructions copied them.
_ECHO_WORDS = 6
_WORD = re.compile(r"\w+")
_SLOT = re.compile(r"<[a-z][^<>\n]{2,80}>")
# How a finished sentence (or a quotation or bracket closing one) ends.
_FINISHED = re.compile(r"[.!?。！？…)\]\"'”’»*]\s*$")
_LIST_ITEM = re.compile(r"\s*(?:[-*•]|\d+[.)])\s")
# A full stop ends a sentence before a space; the CJK ones need none.
_SENTENCE_END = re.compile(r"[.!?…][)\]\"'”’»]*(?=\s)|[。！？][)\]\"'”’»」]*")


# Section names a model writes as headings or as labels in front of a paragraph.
_SECTION = (
    r"(?:title|introduction|intro|body|main body|conclusion|summary|overview|explanation|details|background"
    r"|short answer|answer|제목|서론|본론|결론|요약|개요|설명|답변|정답|답)"
)
_SECTION_ONLY = re.compile(rf"^[\W_]*{_SECTION}[\W_]*$", re.IGNORECASE)
_SECTION_PREFIX = re.compile(rf"^(?:\*\*|__)?{_SECTION}(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(?=\S)", re.IGNORECASE)
_TITLE_HASHES = re.compile(r"^\s{0,3}#{1,6}\s+")
_WHOLE_BOLD = re.compile(r"^\s*(\*\*|__)(.+?)\1\s*:?\s*$")
# "The sources do not say who ...": the answer form's way of saying the answer is missing.
_NO_ANSWER_SENTENCE = re.compile(
    r"^\W*(?:(?:the|these|the given|the provided)\s+)?(?:sources?|passages?|documents?|texts?|context)\s+"
    r"(?:do(?:es)?\s+not|don't|doesn't|never)\s+"
    r"(?:say|state|mention|answer|give|specify|provide|contain|include|tell|name|describe|indicate|report|list)\b"
    r"|^\W*(?:there is|there's)\s+no\s+(?:information|mention|indication)\b"
    r"|^\W*(?:no|none of the)\s+(?:sources?|passages?|documents?)\s+(?:says?|states?|mentions?|gives?)\b"
    r"|^\W*(?:주어진\s*)?(?:자료|출처|문서)[^.。!?]{0,80}(?:나와\s*있지\s*않|언급(?:되어\s*있지|하지)\s*않|없습니다|없다)",
    re.IGNORECASE,
)
# Question forms that ask for one fact, and forms that ask for an explanation, by language;
# a question matching neither gets the length rule that lets the model judge.
_BROAD_QUESTION = {
    "en": re.compile(
        r"^\W*(?:why|explain|describe|compare|discuss|summari[sz]e|outline|elaborate"
        r"|how(?!\s+(?:many|much|long|old|far|tall|big|large|often|high|deep|wide|fast|early|late)\b)"
        r"|what\s+(?:are|were)\s+the\s+(?:effects?|advantages|disadvantages|benefits|risks|differences|main|key|causes|reasons)"
        r"|what\s+is\s+the\s+(?:role|effect|impact|difference|relationship|mechanism|evidence)"
        r"|what\s+(?:factors|methods|approaches|steps)|tell me about|give an overview)\b"
        r"|\b(?:pros and cons|in detail|an overview)\b",
        re.IGNORECASE,
    ),
    "ko": re.compile(r"왜|어떻게|설명|비교|차이|장단점|영향|요약|개요"),
}
_FACT_QUESTION = {
    "en": re.compile(
        r"^\W*(?:who|whom|whose|when|where|which|what|is|are|was|were|do|does|did|can|could|has|have|had|will"
        r"|how\s+(?:many|much|long|old|far|tall|big|large|often|high|deep|wide|fast|early|late)"
        r"|in\s+(?:which|what)|on\s+(?:which|what)|at\s+(?:which|what)|name)\b",
        re.IGNORECASE,
    ),
    "ko": re.compile(r"누구|누가|언제|어디|몇|무엇|뭐|어느|얼마|어떤|인가요\??$|입니까\??$|나요\??$"),
}
_LENGTH = {
    "fact": "After it, write one or two sentences with the facts from the sources that support the answer, and stop there.",
    "broad": "After it, explain in two or three short paragraphs of two to four sentences each, separated by blank lines.",
    "open": (
        "After it, write only as much as the question needs: one or two sentences when it asks for one fact; "
        "two or three short paragraphs when it asks how, why or for an overview."
    ),
}


def answer_length(question: str, language: str) -> str:
    """How long an answer-form draft should be: ``"fact"``, ``"broad"`` or ``"open"`` (let the model judge).

    Broad forms are checked first: "How does X work?" asks for an explanation, "How many ...?"
    for a number.
    """
    # "VIVA Media AG changed its name in 2004. What does their new acronym stand for?": the
    # question is the last sentence; the ones before it set the scene.
    text = (split_sentences(question, language) or [question.strip()])[-1]
    broad, fact = _BROAD_QUESTION.get(language), _FACT_QUESTION.get(language)
    if broad is not None and broad.search(text):
        return "broad"
    if fact is not None and fact.search(text):
        return "fact"
    return "open"


def is_no_answer_sentence(sentence: str) -> bool:
    """Whether ``sentence`` says the sources do not give something ("The sources do not say ...")."""
    return bool(_NO_ANSWER_SENTENCE.search(sentence.strip()))


def as_answer_form(text: str, language: str) -> str:
    """``text`` without the headings and section labels of a report, so it opens with a sentence.

    Markdown titles and bare section names ("Introduction", "**Conclusion:**") go; a label in
    front of a paragraph ("Answer: ...") is taken off it. A short first line without final
    punctuation ("Chief of Protocol") is the answer itself, not a title, and gets a full stop;
    a later one stays only when it reads like a sentence, not a heading.
    """
    lines: list[str] = []
    seen_content = False
    for line in text.split("\n"):
        if not line.strip():
            lines.append("")
            continue
        titled = bool(_TITLE_HASHES.match(line))
        body = _TITLE_HASHES.sub("", line)
        bold = _WHOLE_BOLD.match(body)
        body = (bold.group(2) if bold else body).strip()
        body = _SECTION_PREFIX.sub("", body).strip()
        if not body or _SECTION_ONLY.match(body):
            continue
        units = segment_text(body, language)
        if any(u.kind == "sentence" for u in units):
            lines.append(line.rstrip() if body == line.strip() else body)
        elif not seen_content and not titled:
            lines.append(body.rstrip(":") + ".")
        elif not titled and not _reads_as_heading(body):
            lines.append(body + ".")
        else:
            continue
        seen_content = True
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _reads_as_heading(line: str) -> bool:
    words = line.split()
    long_words = [w for w in words if len(w) >= 4 and w[0].isalpha()]
    title_case = bool(long_words) and sum(w[0].isupper() for w in long_words) / len(long_words) >= 0.6
    return len(words) <= 4 or title_case or line.rstrip().endswith(":")


def no_answer_text(language: str) -> str:
    """The sentence shown when the sources do not answer the question."""
    return _NO_ANSWER_TEXT.get(language, _NO_ANSWER_TEXT["en"])


def clean_draft(text: str) -> str:
    """The model's text without citation markers it was told not to write (``[2]``, "(source 2)",
    an opening "According to source #2," or "The second source states that"), without the prompt's source markup it copied (a list of
    ``<source id="1">Title: ...`` lines), and trimmed."""
    text = _ECHOED_SOURCE_LINE.sub("", text)
    text = _SOURCE_LEAD.sub(lambda m: m.group(1).upper(), text)
    text = _SOURCE_SUBJECT.sub(lambda m: m.group(1).upper(), text)
    return _SLOTTED_ANSWER.sub(r"\1\2", _MODEL_MARKERS.sub("", _SOURCE_MARKUP.sub("", text))).strip()


def without_repeated_sentences(text: str, language: str) -> str:
    """``text`` without a sentence that repeats an earlier one word for word.

    The 1.5B model sometimes writes its one-sentence answer twice, as a second paragraph, or
    closes with it again after "Therefore,"; the reader would see (and the verifier check) the
    same claim twice.
    """
    seen: set[str] = set()
    repeats: list[tuple[int, int]] = []
    for unit in segment_text(text, language):
        if unit.kind != "sentence":
            continue
        key = " ".join(_CONCLUDING.sub("", unit.text).lower().split())
        if key in seen:
            repeats.append((unit.start, unit.end))
        seen.add(key)
    for start, end in reversed(repeats):
        before, after = text[:start].rstrip(" \t"), text[end:].lstrip(" \t")
        inline = before and after and not before.endswith("\n") and not after.startswith("\n")
        text = before + (" " if inline else "") + after
    return _EXTRA_BLANK_LINES.sub("\n\n", text).strip() if repeats else text


def only_restates(text: str, language: str, question: str) -> bool:
    """Whether every sentence of ``text`` only restates ``question`` (:mod:`navicite.generate.restate`).

    A restated premise before the answer ("Seoul is the capital. It has been since 1948.") stays:
    the answer is what the draft must have, and the sentence gives the next one its subject.
    """
    units = [u for u in segment_text(text, language) if u.kind == "sentence"]
    return bool(units) and all(restates(u.text, question) for u in units)


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


def without_echoed_lines(text: str, instructions: str) -> str:
    """``text`` without the lines that copy ``instructions`` (see :func:`echoes_instructions`); all of it when every line does.

    The 1.5B model, asked again after an echo, has answered with the instructions as a frame
    around its answer ("The first sentence answers the question directly: ...", "After it,
    explain in two or three short paragraphs ...:"), each shown as an unsupported claim.
    """
    kept = [line for line in text.split("\n") if not echoes_instructions(line, instructions)]
    if not any(line.strip() for line in kept):
        return text
    return _EXTRA_BLANK_LINES.sub("\n\n", "\n".join(kept)).strip()


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
    #: Whether the reply did nothing but restate the question (answer form; :meth:`Drafter.run` asks once more).
    only_restated: bool = False

    def trace(self) -> dict[str, object]:
        """What the draft stage records in the answer's trace."""
        out: dict[str, object] = {
            "attempts": self.attempts, "refused": self.refused, "draft_language": self.draft_language,
            "off_language_share": round(self.off_language_share, 3), "chars": len(self.text),
        }
        if self.only_restated:
            out["only_restated"] = True
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

    def instructions(self, language: str, question: str = "") -> str:
        """The draft prompt's own words (no sources, no question): what an echo would copy.

        ``question`` only picks the answer form's length rule, as the prompt sent for it did.
        """
        name, values = self._prompt("", "", language, length_of=question)
        return "\n".join(m.content for m in prompts.render(name, **values))

    def form(self, question: str, language: str) -> str:
        """Which draft form ``question`` gets: ``answer-fact``, ``answer-broad``, ``answer-open``, ``short`` or ``report``."""
        if self.settings.generate.short_answer:
            return "short"
        return f"answer-{answer_length(question, language)}" if self.answer_form else "report"

    @property
    def answer_form(self) -> bool:
        """Whether drafts take the answer-first form (``generate.format=answer``, not short-answer mode)."""
        g = self.settings.generate
        return g.format == "answer" and not g.short_answer

    def _prompt(self, question: str, sources: str, language: str, length_of: str | None = None) -> tuple[str, dict[str, object]]:
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
        elif self.answer_form:
            name = "draft_direct"
            del values["refusal"]
            values["length"] = _LENGTH[answer_length(question if length_of is None else length_of, language)]
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

    def _echo_retry(self, messages: list[Message], raw: str, language: str, question: str) -> str | None:
        """A second draft when the first copied the instructions (``None`` when it did not); lines
        of it that still copy them are left out."""
        instructions = self.instructions(language, question)
        if not echoes_instructions(raw, instructions):
            return None
        retry = "draft_direct_retry" if self.answer_form else "draft_echo_retry"
        follow = [Message("assistant", raw), *prompts.render(retry, language_rule=language_rule(language))]
        return without_echoed_lines(self.llm.complete(messages + follow, self._options()), instructions)

    def _restated_retry(self, messages: list[Message], raw: str, language: str, question: str) -> Draft:
        """A second draft after one that only restated the question; when that one restates it
        too, the refusal, marked ``only_restated`` (the trace reports it), not a non-answer shown as one."""
        follow = [Message("assistant", raw), *prompts.render("draft_restated_retry", language_rule=language_rule(language))]
        second = self._finish(self.llm.complete(messages + follow, self._options()), language, 2, question)
        if second.only_restated:
            return replace(self._finish("", language, attempts=2), only_restated=True)
        return second

    def run(self, question: str, entries: list[ContextEntry], language: str) -> Draft:
        """Draft an answer in ``language`` (an ISO code), translating it once if the model strayed."""
        messages = self.messages(question, entries, language)
        raw = self.llm.complete(messages, self._options())
        retry = self._echo_retry(messages, raw, language, question)
        first = self._finish(raw, language, question=question) if retry is None else self._finish(retry, language, 2, question)
        if first.only_restated and retry is None:
            first = self._restated_retry(messages, raw, language, question)
        check = check_language(first.text, language)
        if first.refused or not self.repairer.needed(check):
            return replace(first, off_language_share=check.off_share)
        repair = self.repairer.run(first.text, language, check)
        return self._repaired(first, check, repair)

    def recheck(self, question: str, entries: list[ContextEntry], first: Draft, sentence: str, closest: str) -> Draft:
        """A second draft, after verification found that no source supports ``sentence``, the first
        draft's answer; ``closest`` is the source sentence nearest to it in wording."""
        language = first.language
        follow = [Message("assistant", first.text),
                  *prompts.render("draft_recheck", sentence=sentence, closest=closest, language_rule=language_rule(language))]
        raw = self.llm.complete(self.messages(question, entries, language) + follow, self._options())
        return self._finish(raw, language, attempts=first.attempts + 1)

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
        retry = self._echo_retry(messages, raw, language, question)
        if retry is not None:
            yield "\f"
            yield retry
        first = self._finish(raw, language, question=question) if retry is None else self._finish(retry, language, 2, question)
        if first.only_restated and retry is None:
            first = self._restated_retry(messages, raw, language, question)
        if self.answer_form and first.text != without_unfinished_tail(clean_draft(retry if retry is not None else raw)):
            # The reader saw a title or a section label that the answer no longer has.
            yield "\f"
            yield first.text
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

    def _finish(self, raw: str, language: str, attempts: int = 1, question: str = "") -> Draft:
        """The reply made a draft; with ``question`` (answer form), noting whether it only restates it."""
        text = without_unfinished_tail(clean_draft(raw))
        # Small models sometimes write an answer and then the refusal token as well: the
        # token only counts as a refusal when nothing but headings remains without it.
        without = clean_draft(text.replace(REFUSAL, ""))
        if self.answer_form:
            without = as_answer_form(without, language)
        without = without_repeated_sentences(without, language)
        only_restated = bool(self.answer_form and question) and only_restates(without, language, question)
        sentences = [u.text for u in segment_text(without, language) if u.kind == "sentence"]
        refused = not sentences
        text = no_answer_text(language) if refused else without
        if self.answer_form and sentences and all(is_no_answer_sentence(t) for t in sentences):
            # "The sources do not say who ..." is a refusal in the model's own, more specific words.
            refused = True
        letters = sum(ch.isalpha() for ch in text)
        seen = question_language(text, default=language) if letters >= _MIN_LETTERS_TO_JUDGE else language
        short = short_answer_of(text) if self.settings.generate.short_answer and not refused else None
        return Draft(text, language, refused, short, attempts, seen, only_restated=only_restated)
