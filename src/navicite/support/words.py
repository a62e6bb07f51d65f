"""Words of a claim against words of its passages: the cheap half of the support judge.

Content units (stemmed words, numbers, Hangul character pairs), their overlap, and the details
a claim names (numbers, code-like tokens, capitalised words after the first) that a citing
passage must mention. No model, no state: every function is free to call on every pair.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from navicite.index.words import stem
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

def stem6(word: str) -> str:
    """Stemmed, then cut: "builds"/"build" and "published"/"publisher" meet."""
    return stem(word)[:6]


def features(text: str) -> dict[str, float]:
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
            unit = stem6(token)
            units[unit] = max(units.get(unit, 0.0), 1.5 if token[0].isupper() else 1.0)
    return units


def lexical_support(claim: str, source_text: str) -> float:
    """Share of the claim's weighted content units present in the source; a number of the
    claim missing from the source halves the score."""
    claim_units = features(claim)
    if not claim_units:
        return 0.0
    source_units = features(source_text)
    total = sum(claim_units.values())
    found = sum(w for u, w in claim_units.items() if u in source_units)
    score = found / total
    if any(u[0].isdigit() and u not in source_units for u in claim_units):
        score *= 0.5
    # A name the source never mentions ("Smith et al. showed ...") is the small model's
    # typical invention; the rest of the sentence can still overlap well, so such a claim
    # is not accepted on overlap alone (the hybrid scorer then asks the judge).
    names = _NAME_INSIDE.findall(claim) + _AUTHORS.findall(claim)
    # Stemmed as features does, on the name's first word ("COVID-19" -> "covid").
    # A capitalised function word ("CONTEXT Many studies ...") names nothing and is no unit.
    firsts = [_WORD.match(name).group(0) for name in names]
    if any(stem6(w) not in source_units for w in firsts if w.lower() not in _STOPWORDS):
        score *= 0.7
    return score



_NAME_INSIDE = re.compile(r"(?<=[\w,;] )[A-Z][\w-]+")
# An author named first in a sentence, which the pattern above cannot tell from a capital.
_AUTHORS = re.compile(r"\b[A-Z][\w-]+(?= et al\b)")


# Words in the claim with their offsets: letters (with inner hyphens or apostrophes) or digits.
_CLAIM_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*|\d+(?:[.,]\d+)*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# Digits run into letters ("2xx", "0x02", "64bit"): one token, checked as written, not as the number 2.
_DIGITS_THEN_LETTERS = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*[A-Za-z]\w*")
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


# What opens a clause inside a claim, whose first word is capitalised anyway: a colon, a list
# dash or bullet, a line break ("Choose a model: Select an algorithm ...", "- **Get a feel ...").
_CLAUSE_START = re.compile(r"(?:[:\n•–—]|^\s*-|\s-)[\s*\"'“(]*$")


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
    for m in _DIGITS_THEN_LETTERS.finditer(text):
        names.append(m.group(0))
    for m in _NUMBER.finditer(_DIGITS_THEN_LETTERS.sub(" ", text)):
        names.append(_normal_number(m.group(0)))
    for i, m in enumerate(_CLAIM_WORD.finditer(text)):
        word = m.group(0)
        if not word[0].isupper() or word[0].isdigit():
            continue
        # The opening word is capitalised anyway, unless an author list follows it. (A claim is
        # one sentence; a full stop inside it ends an abbreviation, "Dr. Smith", not a sentence.)
        if (i == 0 or _CLAUSE_START.search(text[: m.start()])) and not re.match(r"\s+et al\b", text[m.end() :]):
            continue
        # Only cased scripts write names with a capital; a Korean particle after one is no part of it.
        word = re.sub(r"[\uac00-\ud7a3\u3040-\u30ff\u4e00-\u9fff].*$", "", word)
        if word.lower() in _NOT_NAMES or (len(word) == 1 and word in "IA"):
            continue
        names.append(word)
    return list(dict.fromkeys(names))


def source_vocabulary(source_text: str) -> tuple[set[str], set[str], str]:
    lowered = source_text.lower()
    words = {w.lower() for w in re.findall(r"[^\W\d_]+", source_text)}
    numbers = {_normal_number(n) for n in _NUMBER.findall(source_text)}
    return words, numbers, lowered


def mentions(name: str, vocabulary: tuple[set[str], set[str], str]) -> bool:
    words, numbers, lowered = vocabulary
    if name[0].isdigit() and any(c.isalpha() for c in name):
        # "2xx" as written ("10ms" may be "10 ms" there); its "2" alone does not mention it.
        return name.lower() in lowered or name.lower() in lowered.replace(" ", "")
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
    vocabularies = [source_vocabulary(t) for t in source_texts]
    return [n for n in names if not any(mentions(n, v) for v in vocabularies)]


# Words an answer uses to talk about its sources ("The sources confirm this by stating that ..."),
# not to claim anything: never counted as new.
_REPORTING = frozenset(
    stem6(w)
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
    units = features(claim)
    if not units:
        return []
    known: set[str] = set(_REPORTING)
    for text in source_texts:
        known.update(features(text))
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
    subject = features(sentence[: m.start()])
    if not subject or all(u in _PRONOUNS for u in subject):
        return None
    return subject, features(sentence[m.end():])


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



def same_script(claim: str, source_text: str) -> bool:
    """False when one side is Korean and the other is not: word overlap cannot judge such pairs."""
    return bool(_HANGUL.search(claim)) == bool(_HANGUL.search(source_text))



def span_support(claim: str, source_text: str, title: str = "") -> float:
    """:func:`lexical_support` of the claim within one sentence of the source, or two in a row (the
    ``title`` read with each): the best such span. A claim whose words are spread over unrelated
    sentences scores low, and so does one only the title covers (a title names a topic, it states
    nothing): a span must hold at least half of the claim by itself."""
    # Sentences of the text as read, not of its lines (a PDF passage keeps the page's line breaks).
    sentences = split_sentences(" ".join(source_text.split())) or [source_text]
    spans = sentences + [f"{a} {b}" for a, b in zip(sentences, sentences[1:])]
    polarity = negated(claim)
    return max((lexical_support(claim, f"{title}\n{span}") for span in spans
                if lexical_support(claim, span) >= 0.5 and negated(span) == polarity), default=0.0)


# Words that turn a statement around; stop words to the overlap, so checked on their own.
_NEGATION = re.compile(r"\b(?:not|no|never|neither|nor|none|without|cannot|fails?|failed|lack(?:s|ed)?|\w+n't)\b"
                       r"|\b(?:in|un|non)(?:effective|able|likely|related|affected|changed|associated|significant)\w*",
                       re.IGNORECASE)


def negated(text: str) -> bool:
    """Whether ``text`` holds a word that negates ("not", "never", "without", "ineffective")."""
    return bool(_NEGATION.search(text))


def disputing_sentence(claim: str, source_text: str) -> str | None:
    """The sentence of ``source_text`` that says the claim's thing with another name or number in
    place of one of the claim's ("... the capital of France is Berlin" against "The capital of
    France is Paris"), or None.

    Such a sentence holds (nearly) all the rest of the claim's words, lacks one of its names or
    numbers, and names one the claim does not: the two disagree on that detail.
    """
    names = claim_names(claim)
    if not names:
        return None
    units = features(claim)
    claim_vocabulary = source_vocabulary(claim)
    for sentence in split_sentences(" ".join(source_text.split())):
        vocabulary = source_vocabulary(sentence)
        missing = [n for n in names if not mentions(n, vocabulary)]
        if not missing or not [n for n in claim_names(sentence) if not mentions(n, claim_vocabulary)]:
            continue
        missing_units = set(features(" ".join(missing)))
        rest = {u: w for u, w in units.items() if u not in missing_units}
        found = features(sentence)
        if len(rest) >= 2 and sum(w for u, w in rest.items() if u in found) / sum(rest.values()) >= 0.8:
            return sentence
    return None
