"""Verify: score every (sentence, source) pairing the aligner proposed, keep the supported ones.

Scorers share one protocol. ``LexicalScorer`` is free: the share of the sentence's
content words (Hangul as character pairs, numbers weighted high) found in the
source. ``JudgeScorer`` asks the LLM a yes/no question per pair. ``HybridScorer``
accepts clear lexical support without a call and asks the judge otherwise, within
a per-answer call budget; a claim in another language than its source (a Korean
answer from English papers) always goes to the judge, because word overlap says
nothing there.

A factual sentence whose proposed sources all fail gets one more chance: the source
with the best word overlap is scored too. One that no source supports alone may be a claim
two sources make together ("X has been in more bands than Y", the bridge of a two-hop
question): the judge reads the pair of sources that best names and covers it side by side (:meth:`JudgeScorer.score_together`, as the ALCE citation judge reads a
sentence's cited passages), once per such sentence, and only a linked pair (:func:`linked`: one
document, or one source naming the other, or both named in the claim or question). The answer form's first sentence, the answer itself, is not
cited on word overlap alone: the judge confirms it (one call). A factual sentence left with no
source is ``unsupported``.

Whatever a scorer says, a sentence is not cited on sources that never mention what it
names (:func:`unmentioned`): a capitalised word after its first, a number, a code-like
token (a call such as ``tmerge()``, anything in backticks such as `` `coxph` ``, ``time_dep``,
``survival::coxph``; a bare lower-case ``coxph`` reads as a word and is not checked). The small model invents such details
("Smith et al.", "two optimizers, Efron and Breslow") inside sentences that otherwise
overlap well, and a lenient judge accepts them; nor one that copies a source sentence with another subject in
front of it (:func:`swapped_subject`). A sentence cited on several sources
passes when each detail is in one of them; a pair whose source lacks a detail that no
other proposed source has either is not scored at all.

Nor is a sentence cited whose content words are, several of them, in neither its sources nor
the question (:func:`novel_words`): on the shared PDFs every sentence a reader judged
supported had at most one such word, the worst elaborations the judge let through ("returns a
new variable that is a linear combination of the two") five or six. The limit is three, on
with the embedded model only (:func:`novel_words_limit`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pydantic import BaseModel

from navicite import prompts
from navicite.config import Settings
from navicite.generate.align import Alignment
from navicite.generate.answer import SupportCheck
from navicite.generate.sources import ContextEntry, source_block
from navicite.index.words import stem
from navicite.llm.base import LLM, CallOptions, LLMError, Message
from navicite.text.sentences import split_sentences

_WORD = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+", re.UNICODE)
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_STOPWORDS = frozenset(
    """a an the and or but of in on at to for from by with as is are was were be been being it its this that
    these those which who whom whose what when where why how there their they them he she his her him we our
    you your i not no also than then so such can could may might will would shall should do does did has have
    had into about over under between after before during while both either each other more most very only
    just all any some one two many much same own because""".split()
)
# Below this overlap a same-language pair is not worth a judge call.
_LEXICAL_REJECT = 0.15
# Rescue candidates need at least this overlap to be scored at all.
_RESCUE_FLOOR = 0.3
#: The scorer named in a check that the name rule decided (a detail the source never mentions).
NAME_CHECK = "names"
#: The scorer named in a check that the wording rule decided (too many words the sources lack).
WORDING_CHECK = "wording"
#: The scorer named in the judge's check of an answer sentence that overlap alone had accepted.
CONFIRM_CHECK = "llm-confirm"


class Scorer(Protocol):
    """Scores how well a source supports a sentence, in [0, 1]."""

    name: str

    def score(self, pairs: list[tuple[str, ContextEntry]]) -> list[tuple[float, str]]:
        """A (score, scorer name) per (sentence, source) pair, in order."""
        ...


def _stem(word: str) -> str:
    """Stemmed, then cut: "builds"/"build" and "published"/"publisher" meet."""
    return stem(word)[:6]


def _features(text: str) -> dict[str, float]:
    """Weighted content units of ``text``: numbers 2, capitalised words 1.5, other words 1."""
    units: dict[str, float] = {}
    for token in _WORD.findall(text):
        if token[0].isdigit():
            units[token.replace(",", "")] = 2.0
        elif _HANGUL.search(token):
            # Korean attaches particles to words; character pairs match across them.
            pairs = [token[i : i + 2] for i in range(len(token) - 1)] or [token]
            for p in pairs:
                units.setdefault(p, 1.0)
        elif token.lower() not in _STOPWORDS and len(token) > 1:
            stem = _stem(token)
            units[stem] = max(units.get(stem, 0.0), 1.5 if token[0].isupper() else 1.0)
    return units


def lexical_support(claim: str, source_text: str) -> float:
    """Share of the claim's weighted content units present in the source; a number of the
    claim missing from the source halves the score."""
    claim_units = _features(claim)
    if not claim_units:
        return 0.0
    source_units = _features(source_text)
    total = sum(claim_units.values())
    found = sum(w for u, w in claim_units.items() if u in source_units)
    score = found / total
    if any(u[0].isdigit() and u not in source_units for u in claim_units):
        score *= 0.5
    # A name the source never mentions ("Smith et al. showed ...") is the small model's
    # typical invention; the rest of the sentence can still overlap well, so such a claim
    # is not accepted on overlap alone (the hybrid scorer then asks the judge).
    names = _NAME_INSIDE.findall(claim) + _AUTHORS.findall(claim)
    # Stemmed as _features does, on the name's first word ("COVID-19" -> "covid").
    if any(_stem(_WORD.match(name).group(0)) not in source_units for name in names):
        score *= 0.7
    return score


def closest_sentence(claim: str, entries: Iterable[ContextEntry]) -> str | None:
    """The source sentence (or two in a row) that shares most of the claim's words, numbers aside; None when none shares any.

    What the claim most likely misread: "the creatinine on exactly day 90 is 0.9" for the
    claim "... on exactly day 90 is 1.5 mg/dl" (its number is left out of the match, so the
    sentence with the right value is not passed over for a table row holding the wrong one).
    """
    words = {u: w for u, w in _features(claim).items() if not u[0].isdigit()}
    total = sum(words.values())
    if not total:
        return None
    texts = [split_sentences(entry.text) for entry in entries]
    # Single sentences first, then two in a row ("The Eiffel Tower is ... It was completed in
    # 1889."): a pair is taken only when it shares strictly more than any one sentence.
    spans = [s for sentences in texts for s in sentences]
    spans += [f"{a} {b}" for sentences in texts for a, b in zip(sentences, sentences[1:])]
    best, best_score = None, 0.0
    for span in spans:
        found = _features(span)
        score = sum(w for u, w in words.items() if u in found) / total
        if score > best_score:
            best, best_score = " ".join(span.split()), score
    return best


_NAME_INSIDE = re.compile(r"(?<=[\w,;] )[A-Z][\w-]+")
# An author named first in a sentence, which the pattern above cannot tell from a capital.
_AUTHORS = re.compile(r"\b[A-Z][\w-]+(?= et al\b)")


# Words in the claim with their offsets: letters (with inner hyphens or apostrophes) or digits.
_CLAIM_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*|\d+(?:[.,]\d+)*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_CODE = re.compile(
    r"`([^`\n]{1,60})`"  # written as code
    r"|\b([A-Za-z_][\w.:]*)\(\)?"  # a call: tmerge(), survival::coxph(
    r"|\b([A-Za-z][A-Za-z0-9]*_[\w]*|[A-Za-z]\w*::\w+|[a-z]\w*\.[a-z_]\w*[a-z0-9]|[a-z]+[A-Z]\w*)\b"  # snake_case, pkg::fn, np.mean, camelCase
)
# Abbreviations the dotted-name pattern would otherwise take for code.
_NOT_CODE = frozenset({"e.g", "i.e", "et.al", "a.m", "p.m", "u.s"})
# Capitalised words that open a clause inside a sentence without naming anything.
_NOT_NAMES = frozenset(
    """i a the this that these those it its in on at of for and or but if when while as by with from to
    however moreover also both then thus so yes no""".split()
)


def _normal_number(token: str) -> str:
    """A number as written without thousands separators ("1,000" and "1000" meet)."""
    return re.sub(r"(?<=\d),(?=\d{3}\b)", "", token)


def claim_names(claim: str) -> list[str]:
    """What a claim names, the details a citing source must mention: numbers, code-like tokens
    and capitalised words after the first.

    Single capital letters count ("optimizers A and B"), except the pronoun "I" and the
    article "A"; Markdown emphasis is ignored.
    """
    text = claim.replace("*", "")
    names: list[str] = []
    for m in _CODE.finditer(text):
        token = next(g for g in m.groups() if g)
        token = token.strip()
        if token.lower().rstrip(".") not in _NOT_CODE and not token.replace(".", "").isdigit():
            names.append(token)
    for m in _NUMBER.finditer(text):
        names.append(_normal_number(m.group(0)))
    for i, m in enumerate(_CLAIM_WORD.finditer(text)):
        word = m.group(0)
        if not word[0].isupper() or word[0].isdigit():
            continue
        # The opening word is capitalised anyway, unless an author list follows it. (A claim is
        # one sentence; a full stop inside it ends an abbreviation, "Dr. Smith", not a sentence.)
        if i == 0 and not re.match(r"\s+et al\b", text[m.end() :]):
            continue
        # Only cased scripts write names with a capital; a Korean particle after one is no part of it.
        word = re.sub(r"[\uac00-\ud7a3\u3040-\u30ff\u4e00-\u9fff].*$", "", word)
        if word.lower() in _NOT_NAMES or (len(word) == 1 and word in "IA"):
            continue
        names.append(word)
    return list(dict.fromkeys(names))


def _source_vocabulary(source_text: str) -> tuple[set[str], set[str], str]:
    lowered = source_text.lower()
    words = {w.lower() for w in re.findall(r"[^\W\d_]+", source_text)}
    numbers = {_normal_number(n) for n in _NUMBER.findall(source_text)}
    return words, numbers, lowered


def _mentions(name: str, vocabulary: tuple[set[str], set[str], str]) -> bool:
    words, numbers, lowered = vocabulary
    if name[0].isdigit():
        return name in numbers or name.rstrip("0").rstrip(".") in numbers
    if not name.replace("-", "").replace("'", "").replace("’", "").isalpha():
        # Code: the identifier as written, case aside ("coxph" is in "survival::coxph(...)").
        return name.lower().rstrip("(").rstrip(")") in lowered
    parts = [p for p in re.split(r"[-'’]", name.lower()) if p and p != "s"]
    return all(_word_in(p, words) for p in parts)


def _word_in(word: str, words: set[str]) -> bool:
    """``word`` or a close inflection of it ("Americans" / "American", "Curie" / "Curies")."""
    if word in words:
        return True
    if len(word) < 4:
        return False
    return any(
        (w.startswith(word) and len(w) - len(word) <= 2) or (word.startswith(w) and len(w) >= 4 and len(word) - len(w) <= 2)
        for w in words
    )


def unmentioned(claim: str, source_texts: Iterable[str]) -> list[str]:
    """The names, numbers and code-like tokens of ``claim`` that none of ``source_texts`` mentions."""
    names = claim_names(claim)
    if not names:
        return []
    vocabularies = [_source_vocabulary(t) for t in source_texts]
    return [n for n in names if not any(_mentions(n, v) for v in vocabularies)]


# Words an answer uses to talk about its sources ("The sources confirm this by stating that ..."),
# not to claim anything: never counted as new.
_REPORTING = frozenset(
    _stem(w)
    for w in """source sources text passage passages paper study studies article author authors document
    state states stated stating confirm confirms confirmed mention mentions mentioned report reports reported
    say says said note notes noted describe describes described indicate indicates indicated suggest
    suggests suggested show shows showed shown according explain explains explained""".split()
)


def novel_words(claim: str, source_texts: Iterable[str]) -> list[str]:
    """The content words of ``claim`` (stemmed as :func:`lexical_support` does) that none of
    ``source_texts`` contains, leaving out the words that report on the sources.

    Korean words are left out too: compared as character pairs, their endings ("임수경입니다"
    of "임수경은") are new pairs in almost every sentence however faithful it is.
    """
    units = _features(claim)
    if not units:
        return []
    known: set[str] = set(_REPORTING)
    for text in source_texts:
        known.update(_features(text))
    return [u for u in units if u not in known and not _HANGUL.search(u)]


# The verb that parts a sentence's subject from what it says of it ("X is an English rock band").
_LINK_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had)\b", re.IGNORECASE)
_PRONOUNS = frozenset("he she it they we i you this that these those there his her its their one".split())
# A predicate at least this long, this much of it in one source sentence, is that sentence's.
_PREDICATE_UNITS = 4
_PREDICATE_SHARE = 0.8


def _subject_and_predicate(sentence: str) -> tuple[dict[str, float], dict[str, float]] | None:
    """The content units before the first linking verb and after it; None without one or
    when the subject is only a pronoun (which a source sentence may name, or not)."""
    m = _LINK_VERB.search(sentence)
    if not m:
        return None
    subject = _features(sentence[: m.start()])
    if not subject or all(u in _PRONOUNS for u in subject):
        return None
    return subject, _features(sentence[m.end():])


def swapped_subject(claim: str, source_texts: Iterable[str]) -> bool:
    """Whether ``claim`` says of one subject what a source sentence says of another.

    The small model copies a source sentence and puts the wrong name in front of it: "Pete
    Doherty is an English rock band, formed in London in 1997 by ... Carl Barât and Pete
    Doherty" from "The Libertines are an English rock band, formed ...". Every word but the
    subject is the source's, so word overlap accepts it. True when the source sentence that
    holds most of the claim's predicate (at least four content words, 80% of them) has a named
    subject sharing no word with the claim's.
    """
    parts = _subject_and_predicate(claim)
    if parts is None:
        return False
    subject, predicate = parts
    total = sum(predicate.values())
    if len(predicate) < _PREDICATE_UNITS:
        return False
    best_share, best_subject = 0.0, None
    for text in source_texts:
        for sentence in split_sentences(text):
            other = _subject_and_predicate(sentence)
            if other is None:
                continue
            share = sum(w for u, w in predicate.items() if u in other[1]) / total
            if share > best_share:
                best_share, best_subject = share, other[0]
    return best_share >= _PREDICATE_SHARE and not set(subject) & set(best_subject or {})


# A title's note in brackets, "The Shallows (book)": not a word any text names it by.
_TITLE_NOTE = re.compile(r"\s*\([^()]*\)\s*$")
# Share of a title's words a text must hold to name it ("UNLV Rebels" for "UNLV Rebels football").
_TITLE_SHARE = 2 / 3


def _names_title(units: dict[str, float], title: str) -> bool:
    wanted = _features(_TITLE_NOTE.sub("", title))
    return bool(wanted) and sum(u in units for u in wanted) / len(wanted) >= _TITLE_SHARE


def linked(pair: Sequence[ContextEntry], said: Sequence[str]) -> bool:
    """Whether two sources can make one claim together: passages of one document, a source
    that names the other (the bridge of a two-hop claim: "Juliet Starling (voiced by Tara
    Strong)" and Tara Strong's page), or both named in ``said`` (the claim and the question:
    "Are Shepherd and Lange both American?").

    Two unrelated pages only lend a claim words: "Creed disbanded in 2004" read on Jaclyn
    Stapp's page (Creed) and another band's (formed in 2004) was accepted by the judge.
    """
    first, second = pair
    if first.source.doc_id == second.source.doc_id:
        return True
    if _names_title(_features(second.text), first.source.title) or _names_title(_features(first.text), second.source.title):
        return True
    claimed = _features(" ".join(said))
    return _names_title(claimed, first.source.title) and _names_title(claimed, second.source.title)


def looks_factual(sentence: str) -> bool:
    """A cheap guess for sentences the aligner left unlabelled: a number, or a capitalised
    name after the first word, marks a checkable claim."""
    return bool(re.search(r"\d", sentence) or _NAME_INSIDE.search(sentence))


def _source_text(entry: ContextEntry) -> str:
    return f"{entry.source.title}\n{entry.text}"


def same_script(claim: str, source_text: str) -> bool:
    """False when one side is Korean and the other is not: word overlap cannot judge such pairs."""
    return bool(_HANGUL.search(claim)) == bool(_HANGUL.search(source_text))


class LexicalScorer:
    """Word-overlap support; free and deterministic, blind to paraphrase and translation."""

    name = "lexical"

    def score(self, pairs: list[tuple[str, ContextEntry]]) -> list[tuple[float, str]]:
        return [(lexical_support(claim, _source_text(entry)), self.name) for claim, entry in pairs]


class Verdict(BaseModel):
    """The judge's reply."""

    supported: bool


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
    messages = prompts.render("cite_system") + prompts.render(
        "judge_support", title=title, text=text, claim=plain_claim(claim))
    return _verdict(llm, messages, stage)


def ask_support_together(llm: LLM, sources: Sequence[tuple[str, str]], claim: str, stage: str = "verify") -> bool:
    """The LLM's yes/no verdict: do ``sources`` (``(title, text)`` pairs), read together, support ``claim``?

    With one source this is :func:`ask_support`. Several sources are shown as separate
    numbered blocks, for the verifier's check of a claim two sources make together and the
    evaluation's judge of a sentence cited on several passages alike.

    Raises:
        LLMError: the model gave no usable verdict, even after a repair attempt.
    """
    if len(sources) == 1:
        (title, text), = sources
        return ask_support(llm, title, text, claim, stage)
    blocks = "\n".join(source_block(n, title, text) for n, (title, text) in enumerate(sources, start=1))
    messages = prompts.render("cite_system") + prompts.render(
        "judge_support_together", sources=blocks, claim=plain_claim(claim))
    return _verdict(llm, messages, stage)


def _verdict(llm: LLM, messages: list[Message], stage: str) -> bool:
    return llm.complete_json(messages, Verdict, CallOptions(temperature=0.0, max_tokens=16, stage=stage)).supported


class JudgeScorer:
    """The LLM as a yes/no judge, one short call per pair; pairs are sent grouped by source so
    consecutive prompts share the source as their prefix."""

    name = "llm"

    def __init__(self, llm: LLM, fallback: Scorer | None = None) -> None:
        self.llm = llm
        self.fallback = fallback or LexicalScorer()
        self.failures = 0

    def score(self, pairs: list[tuple[str, ContextEntry]]) -> list[tuple[float, str]]:
        out: list[tuple[float, str]] = [(0.0, self.name)] * len(pairs)
        order = sorted(range(len(pairs)), key=lambda i: pairs[i][1].number)
        for i in order:
            claim, entry = pairs[i]
            try:
                out[i] = (1.0 if ask_support(self.llm, entry.source.title, entry.text, claim) else 0.0, self.name)
            except LLMError:
                # A judge that cannot answer must not sink the answer: fall back to overlap.
                self.failures += 1
                out[i] = self.fallback.score([pairs[i]])[0]
        return out

    def score_together(self, claim: str, entries: list[ContextEntry]) -> float:
        """1.0 when ``entries`` read as one text support ``claim``, else 0.0 (also when the judge fails).

        One entry is judged as a single-source check judges it; several are shown as separate
        blocks (:func:`ask_support_together`).
        """
        try:
            return 1.0 if ask_support_together(self.llm, [(e.source.title, e.text) for e in entries], claim) else 0.0
        except LLMError:
            self.failures += 1
            return 0.0


class HybridScorer:
    """Overlap first; the judge only where overlap cannot decide, within ``max_calls`` per answer."""

    name = "hybrid"

    def __init__(self, judge: Scorer, accept: float, max_calls: int) -> None:
        self.lexical = LexicalScorer()
        self.judge = judge
        self.accept = accept
        self.max_calls = max_calls

    def score(self, pairs: list[tuple[str, ContextEntry]]) -> list[tuple[float, str]]:
        out = self.lexical.score(pairs)
        undecided = [
            i
            for i, ((claim, entry), (lex, _)) in enumerate(zip(pairs, out))
            if lex < self.accept and (lex >= _LEXICAL_REJECT or not same_script(claim, _source_text(entry)))
        ]
        # Spend the call budget on the pairs closest to acceptance first.
        undecided.sort(key=lambda i: -out[i][0])
        asked = undecided[: self.max_calls]
        for i, result in zip(asked, self.judge.score([pairs[i] for i in asked])):
            out[i] = result
        self.max_calls -= len(asked)
        return out


def novel_words_limit(settings: Settings) -> int:
    """``generate.novel_words``, or its ``llm.profile`` default: on for small models, off for strong ones.

    The rule was set on the embedded 1.5B model's answers, which copy their sources' words; on
    ExpertQA's human-judged claims (paraphrases of web pages) it uncites most supported claims,
    so answers from a user's own, more fluent model are left to its judge.
    """
    return int(settings.resolved("generate.novel_words") or 0)


def create_support_judge(llm: LLM | None, settings: Settings) -> JudgeScorer | None:
    """The judge for what overlap cannot settle (two sources read together, the answer sentence),
    or ``None`` when verification is lexical or there is no model."""
    if llm is None or settings.generate.verifier == "lexical":
        return None
    return JudgeScorer(llm)


def create_scorer(llm: LLM | None, settings: Settings) -> Scorer:
    """The scorer named by ``settings.generate.verifier`` (lexical when no LLM is given)."""
    g = settings.generate
    if llm is None or g.verifier == "lexical":
        return LexicalScorer()
    if g.verifier == "llm":
        return JudgeScorer(llm)
    return HybridScorer(JudgeScorer(llm), accept=g.lexical_accept, max_calls=g.judge_max_calls)


@dataclass
class Verified:
    """Outcome for one sentence: the kept source numbers (best first) and every check made."""

    kind: str  # "fact" or "general", as aligned
    kept: list[int] = field(default_factory=list)
    checks: list[SupportCheck] = field(default_factory=list)

    @property
    def support(self) -> float | None:
        scores = [c.score for c in self.checks if c.kept]
        return max(scores) if scores else None


class Verifier:
    """Checks alignments against the sources with a scorer and a threshold."""

    def __init__(self, scorer: Scorer, threshold: float, general_accept: float, novel_words: int = 0,
                 judge: JudgeScorer | None = None, joint: bool = True, confirm_first: bool = False) -> None:
        self.scorer = scorer
        # With a judge: a sentence no single source supports is read against two sources at once
        # (``joint``), and the first sentence, the answer form's answer, is not cited on word
        # overlap alone (``confirm_first``).
        self.judge = judge
        self.joint = joint and judge is not None
        self.confirm_first = confirm_first and judge is not None
        self.threshold = threshold
        self._given: list[str] = []
        # A sentence aligned as general is still cited when a source states it word for word.
        self.general_accept = general_accept
        # At this many words that neither the sources nor the question hold, a sentence is not
        # cited (0: the rule is off).
        self.novel_words = novel_words

    def run(self, sentences: list[str], alignments: list[Alignment], entries: list[ContextEntry],
            question: str = "") -> list[Verified]:
        """One :class:`Verified` per sentence.

        ``question``: what the user asked; a name the answer takes from it ("... for a Fine-Gray
        model is finegray") is the user's own word, not one the model invented, so the name
        check does not ask a source to repeat it.
        """
        self._given = [question] if question.strip() else []
        by_number = {e.number: e for e in entries}
        results = [Verified(a.kind) for a in alignments]
        proposed = [(i, n) for i, a in enumerate(alignments) for n in a.sources if n in by_number]
        proposed_for = {i: [n for j, n in proposed if j == i] for i in range(len(sentences))}
        self._check(sentences, proposed, by_number, results, proposed_for)
        # Second chance for claims left bare, and exact matches for general sentences.
        rescue: list[tuple[int, int]] = []
        for i, result in enumerate(results):
            number = None if result.kept else self._second_chance(sentences[i], result, entries)
            if number is not None:
                rescue.append((i, number))
        general_rescue = [(i, n) for i, n in rescue if results[i].kind == "general"]
        fact_rescue = [(i, n) for i, n in rescue if results[i].kind == "fact"]
        self._check(sentences, fact_rescue, by_number, results, {i: [n] for i, n in fact_rescue})
        self._accept_lexically(sentences, general_rescue, by_number, results)
        for i, result in enumerate(results):
            self._require_mentions(sentences[i], result, by_number)
            self._require_wording(sentences[i], result, by_number)
            if i == 0 and self.confirm_first:
                self._confirm(sentences[i], result, by_number)
            if self.joint and result.kind == "fact" and not result.kept:
                self._together(sentences[i], result, [by_number[n] for n in proposed_for[i]], entries)
        for result, alignment, sentence in zip(results, alignments, sentences):
            if not alignment.answered and not result.kept and not looks_factual(sentence):
                result.kind = "general"
        return results

    def _together(self, sentence: str, result: Verified, proposed: list[ContextEntry], entries: list[ContextEntry]) -> None:
        """Keep the pair of sources that together support ``sentence``, if the judge says so.

        The pair: the source with the best overlap, then the one naming most of what it lacks,
        else adding most of its missing words (the aligner's proposals first among equals). Not
        for a sentence that the wording rule refused and that one source names fully: that is an
        elaboration, and a second source would only lend it words (on the shared PDFs such a pair
        cited "This new variable is then used in the coxph model ...", found unsupported on
        reading). No call either when the pair still misses a name or too many words.
        """
        if len(entries) < 2:
            return
        units = _features(sentence)
        vocab = {e.number: _features(_source_text(e)) for e in entries}
        candidates = list({e.number: e for e in [*proposed, *entries]}.values())
        first = max(candidates, key=lambda e: sum(w for u, w in units.items() if u in vocab[e.number]))
        lacking = unmentioned(sentence, [_source_text(first), *self._given])
        if not lacking and any(WORDING_CHECK in c.scorer.split("+") for c in result.checks):
            return

        def names(e: ContextEntry) -> int:
            vocabulary = _source_vocabulary(_source_text(e))
            return sum(_mentions(name, vocabulary) for name in lacking)

        rest = {u: w for u, w in units.items() if u not in vocab[first.number]}
        second = max((e for e in candidates if e is not first),
                     key=lambda e: (names(e), sum(w for u, w in rest.items() if u in vocab[e.number])))
        pair = [first, second]
        if (unmentioned(sentence, [*(_source_text(e) for e in pair), *self._given]) or self._too_novel(sentence, pair)
                or swapped_subject(sentence, [e.text for e in pair]) or not linked(pair, [sentence, *self._given])):
            return
        score = self.judge.score_together(sentence, pair)
        for e in pair:
            self._record(result, e, score, "joint")

    def _confirm(self, sentence: str, result: Verified, by_number: dict[int, ContextEntry]) -> None:
        """Put a sentence that overlap alone accepted to the judge, on its best source.

        High overlap is not support when the words are the source's but the claim is not (a
        year the passage gives to a pageant title, stated as a band's end).
        """
        kept = [c for c in result.checks if c.kept]
        if not kept or any(c.scorer != "lexical" for c in kept):
            return
        best = by_number[max(kept, key=lambda c: c.score).source]
        score = self.judge.score_together(sentence, [best])
        if score < self.threshold:
            _drop_kept(result, "judge")
        result.checks.append(SupportCheck(best.number, best.source.doc_id, score, score >= self.threshold, CONFIRM_CHECK))

    def _second_chance(self, sentence: str, result: Verified, entries: list[ContextEntry]) -> int | None:
        """The untried source with the best overlap, when it is worth scoring."""
        tried = {c.source for c in result.checks}
        scored = [(lexical_support(sentence, _source_text(e)), e) for e in entries if e.number not in tried]
        if not scored:
            return None
        overlap, best = max(scored, key=lambda pair: pair[0])
        if result.kind == "fact":
            worth = overlap >= _RESCUE_FLOOR or not same_script(sentence, _source_text(best))
        else:
            worth = overlap >= self.general_accept
        return best.number if worth else None

    def _check(
        self,
        sentences: list[str],
        pairs: Iterable[tuple[int, int]],
        by_number: dict[int, ContextEntry],
        results: list[Verified],
        proposed_for: dict[int, list[int]],
    ) -> None:
        scored: list[tuple[int, int]] = []
        for i, n in pairs:
            # A detail neither this source nor any other proposed one mentions cannot be cited here:
            # the pair is not worth a judge call.
            missing = unmentioned(sentences[i], [_source_text(by_number[n]), *self._given])
            others = [_source_vocabulary(_source_text(by_number[m])) for m in proposed_for.get(i, []) if m != n]
            if any(not any(_mentions(name, v) for v in others) for name in missing):
                self._record(results[i], by_number[n], 0.0, NAME_CHECK)
            elif self._too_novel(sentences[i], [by_number[m] for m in proposed_for.get(i, [n])]):
                # Not even every proposed source together holds the sentence's words: no judge call.
                self._record(results[i], by_number[n], 0.0, WORDING_CHECK)
            else:
                scored.append((i, n))
        if not scored:
            return
        scores = self.scorer.score([(sentences[i], by_number[n]) for i, n in scored])
        for (i, n), (score, scorer) in zip(scored, scores):
            self._record(results[i], by_number[n], score, scorer)

    def _require_mentions(self, sentence: str, result: Verified, by_number: dict[int, ContextEntry]) -> None:
        """Drop the kept sources of a sentence naming something none of them mentions, or
        saying of one subject what they say of another (:func:`swapped_subject`)."""
        if not result.kept:
            return
        texts = [_source_text(by_number[n]) for n in result.kept]
        if unmentioned(sentence, [*texts, *self._given]) or swapped_subject(sentence, [by_number[n].text for n in result.kept]):
            _drop_kept(result, NAME_CHECK)

    def _too_novel(self, sentence: str, entries: list[ContextEntry]) -> bool:
        """Whether ``sentence`` has at least ``novel_words`` words that ``entries`` and the question lack.

        Across scripts (a Korean sentence on an English source) words cannot be compared.
        """
        if not self.novel_words or not entries:
            return False
        texts = [_source_text(e) for e in entries]
        if not all(same_script(sentence, t) for t in texts):
            return False
        return len(novel_words(sentence, [*texts, *self._given])) >= self.novel_words

    def _require_wording(self, sentence: str, result: Verified, by_number: dict[int, ContextEntry]) -> None:
        """Drop the kept sources of a sentence that says much more than they do."""
        if result.kept and self._too_novel(sentence, [by_number[n] for n in result.kept]):
            _drop_kept(result, WORDING_CHECK)

    def _accept_lexically(self, sentences: list[str], pairs: list[tuple[int, int]], by_number: dict[int, ContextEntry], results: list[Verified]) -> None:
        for i, n in pairs:
            score = lexical_support(sentences[i], _source_text(by_number[n]))
            self._record(results[i], by_number[n], score, "lexical", threshold=self.general_accept)

    def _record(self, result: Verified, entry: ContextEntry, score: float, scorer: str, threshold: float | None = None) -> None:
        kept = score >= (self.threshold if threshold is None else threshold)
        result.checks.append(SupportCheck(entry.number, entry.source.doc_id, round(score, 4), kept, scorer))
        if kept:
            result.kept.append(entry.number)


def _drop_kept(result: Verified, rule: str) -> None:
    """Un-keep every source ``result`` kept, naming ``rule`` beside the scorer that had kept it."""
    result.checks = [SupportCheck(c.source, c.doc_id, c.score, False, f"{c.scorer}+{rule}") if c.kept else c for c in result.checks]
    result.kept = []
