"""Repairing the text a PDF extractor returns: ligatures, glyph codes, line-end hyphens, page furniture.

Everything here is a pure function of strings. :func:`repair_pages` runs the whole repair
over one document's pages; :func:`join_pages` then builds the document text and the word
offset where each page starts. Word knowledge comes from ``wordfreq``; a repair that needs
it is skipped for a language wordfreq does not know, so no text is changed on a guess.

What real PDFs do (LaTeX output in particular):

- Ligatures come as Unicode presentation forms (``ﬁ``, U+FB01) or, when the font has no
  usable ``ToUnicode`` map, as the font's raw glyph code: T1-encoded TeX fonts put ff, fi,
  fl, ffi, ffl at codes 0x1B-0x1F, so "coefficients" reads ``coe\\x1ecients``. Other tools
  drop those codes altogether and leave "coecients".
- A word hyphenated at a line end arrives as ``func-\\ntion`` (pypdf) or ``func\\ufffetion``
  (pdfium marks the soft hyphen with U+FFFE).
- Page numbers and running headers or footers sit at the top or bottom of every page.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache

#: Language assumed when the caller does not say.
DEFAULT_LANGUAGE = "en"

#: Letter groups that a ligature glyph stands for, most frequent first.
LIGATURES = ("fi", "ff", "fl", "ffi", "ffl")

#: A word at least this common (wordfreq Zipf scale: 3 = once per million words) is
#: treated as a real word and never rewritten.
KNOWN_ZIPF = 3.0
#: A repaired form must be at least this common ...
REPAIRED_MIN_ZIPF = 3.0
#: ... and this much more common than the form it replaces (2.5 = about 300 times).
REPAIR_MARGIN_ZIPF = 2.5
_KNOWN_FREQ = 10 ** (KNOWN_ZIPF - 9)
_REPAIRED_MIN_FREQ = 10 ** (REPAIRED_MIN_ZIPF - 9)
_MARGIN_FACTOR = 10**REPAIR_MARGIN_ZIPF
#: A glyph code is taken to mean a ligature when that reading wins this share of the votes.
_CODE_VOTE_SHARE = 2 / 3

# Unicode presentation forms of Latin ligatures; NFKC turns each into its letters.
_PRESENTATION_LIGATURES = re.compile("[\ufb00-\ufb06]")
# Control characters that are never text: what is left of them after decoding is removed.
_CONTROL = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
_CONTROL_RUN = re.compile(f"[{_CONTROL}]+")
_LEADING_CONTROL = re.compile(f"^[{_CONTROL}]+[ \t]*", re.MULTILINE)
_LETTERS = r"[^\W\d_]"
# A run of letters and control codes with at least one of each (glyph codes inside words).
_CODED_WORD = re.compile(f"(?:{_LETTERS}|[{_CONTROL}])*[{_CONTROL}](?:{_LETTERS}|[{_CONTROL}])*")
# pdfium marks a hyphen it removed at a line end with U+FFFE; some tools emit a soft hyphen.
_SOFT_HYPHEN = re.compile("[\ufffe\u00ad][ \t]*\n?[ \t]*")
# The word's tail (punctuation) and the line break after it are taken too, so the whole
# word ends the line it started on and no blank line (a paragraph break) appears.
_LINE_END_HYPHEN = re.compile(rf"({_LETTERS}+)-[ \t]*\n[ \t]*({_LETTERS}+)(\S*)[ \t]*\n?")
_PLAIN_WORD = re.compile(rf"\b{_LETTERS}{{2,}}\b")
# Hyphens at line ends are excluded by the lookahead: only a word hyphenated inside a line counts.
_COUNTED_WORD = re.compile(rf"\b{_LETTERS}+(?:-{_LETTERS}+)*\b(?![-\ufffe\u00ad])")
_PAGE_NUMBER = re.compile(r"^(?:page\s+)?[-–—]?\s*(\d{1,4}|[ivxlcdm]{1,7})\s*[-–—]?(?:\s+(?:of|/)\s+\d{1,4})?$", re.IGNORECASE)
_DIGITS = re.compile(r"\d+")

# The T1 (Cork) font encoding of TeX: once a document's ligature codes match it, its
# quotation marks and dashes at the neighbouring codes can be read the same way.
_T1_LIGATURES = {"\x1b": "ff", "\x1c": "fi", "\x1d": "fl", "\x1e": "ffi", "\x1f": "ffl"}
_T1_PUNCTUATION = {"\x10": "\u201c", "\x11": "\u201d", "\x15": "\u2013", "\x16": "\u2014"}


# ---------------------------------------------------------------- word knowledge


@lru_cache(maxsize=16)
def _frequencies(language: str) -> dict[str, float] | None:
    from wordfreq import available_languages, get_frequency_dict

    if language not in available_languages():
        return None
    return get_frequency_dict(language)


def knows_language(language: str) -> bool:
    """True when the word lists cover ``language`` (ISO 639-1), so the word-based repairs can run."""
    return _frequencies(language) is not None


@lru_cache(maxsize=200_000)
def zipf(word: str, language: str = DEFAULT_LANGUAGE) -> float:
    """How common ``word`` is on the Zipf scale (0 = unknown, 3 = once per million words, 7 = "the").

    A single word is looked up directly; a hyphenated one is scored by wordfreq from its
    parts (about as common as its rarest part), which is how a compound like
    "time-dependent" counts as known although the lists hold no hyphenated entries.
    """
    table = _frequencies(language)
    if table is None:
        return 0.0
    key = word.casefold()
    if "-" not in key:
        freq = table.get(key, 0.0)
        return round(math.log10(freq) + 9, 2) if freq > 0 else 0.0
    from wordfreq import zipf_frequency

    try:
        return float(zipf_frequency(key, language))
    except Exception:  # noqa: BLE001 - some languages need a tokenizer package that may be missing
        return 0.0


def _recase(template: str, word: str) -> str:
    """``word`` (lower case) written in the case pattern of ``template``."""
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


# ---------------------------------------------------------------- ligatures


def normalise_ligatures(text: str) -> str:
    """Ligature presentation forms (U+FB00-U+FB06, "ﬁ") replaced by their letters; nothing else touched.

    Only these code points go through NFKC: applied to the whole text, NFKC would also
    rewrite superscripts, fractions and mathematical letters.
    """
    return _PRESENTATION_LIGATURES.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)), text)


def learn_glyph_codes(pages: list[str], language: str = DEFAULT_LANGUAGE) -> dict[str, str]:
    """What each control character inside the words of a document stands for, learned from the document.

    Every word with one kind of control code votes for the ligature that turns it into
    the most common known word ("di\\x1berent" votes ff for 0x1B), or against all of
    them when none does. A code is decoded when one ligature has two thirds of its votes.
    When the codes found agree with TeX's T1 font encoding, its quotation marks and
    dashes (0x10, 0x11, 0x15, 0x16) are decoded too. Codes without a clear reading are
    left out; :func:`decode_glyph_codes` then removes them.
    """
    if not knows_language(language):
        return {}
    votes: dict[str, Counter[str]] = {}
    for page in pages:
        for match in _CODED_WORD.finditer(page):
            word = match.group(0)
            codes = set(_CONTROL_RUN.findall(word))
            # A code alone, or with a single letter, says nothing: "fi" and "ff" are both "words".
            if len(codes) != 1 or len(next(iter(codes))) != 1 or len(word) < 3:
                continue
            code = next(iter(codes))
            tally = votes.setdefault(code, Counter())
            # Each word votes once, for its most common reading: "\x1ct" is "fit", not "fft".
            score, best = max((zipf(word.replace(code, lig), language), lig) for lig in LIGATURES)
            # A word that no ligature makes known votes against every reading ("\x10at" would
            # be "flat", but eleven other words after 0x10 read as nothing: it is a quote mark).
            tally[best if score >= 2.0 else ""] += 1
    learned: dict[str, str] = {}
    for code, tally in votes.items():
        (best, count), *_ = tally.most_common()
        if best and count >= _CODE_VOTE_SHARE * sum(tally.values()):
            learned[code] = best
    ligature_codes = {c: v for c, v in learned.items() if c in _T1_LIGATURES}
    if len(ligature_codes) >= 2 and all(_T1_LIGATURES[c] == v for c, v in ligature_codes.items()):
        for code, mark in _T1_PUNCTUATION.items():
            learned.setdefault(code, mark)
    return learned


def decode_glyph_codes(text: str, codes: dict[str, str]) -> str:
    """``text`` with the learned glyph ``codes`` replaced and every other control character removed.

    Ligature codes are decoded only next to a letter: the same code standing alone is
    more likely a symbol of another font (a math font) than part of a word.
    """

    def word(match: re.Match[str]) -> str:
        found = match.group(0)
        if not any(ch.isalpha() for ch in found):
            return found
        return "".join(codes.get(ch, ch) for ch in found)

    if codes:
        text = _CODED_WORD.sub(word, text)
        punctuation = {c: v for c, v in codes.items() if v not in LIGATURES}
        if punctuation:
            text = text.translate(str.maketrans(punctuation))
    # A code that opened a line (a list bullet from a symbol font) takes its space with it.
    return _CONTROL_RUN.sub("", _LEADING_CONTROL.sub("", text))


@lru_cache(maxsize=100_000)
def restore_ligature(word: str, language: str = DEFAULT_LANGUAGE) -> str:
    """``word`` with a ligature's letters put back where the font dropped them ("Coecients" -> "Coefficients").

    A word is rewritten only when it is rare or unknown (Zipf below :data:`KNOWN_ZIPF`),
    an insertion of ff, fi, fl, ffi or ffl makes it a common word (at least
    :data:`REPAIRED_MIN_ZIPF`, and :data:`REPAIR_MARGIN_ZIPF` above the original), and no
    second insertion comes close. Case is kept (lower, Capitalised, UPPER; mixed case is
    left alone). Anything else comes back unchanged. This looks at one word only: a real
    rare word with such a neighbour ("prole" -> "profile") would be changed, which is why
    :func:`ligature_repairs` first asks whether a document drops ligatures at all.
    """
    table = _frequencies(language)
    lower = word.lower()
    if table is None or not lower.isalpha() or not (lower == word or word[1:] == lower[1:] or word.isupper()):
        return word
    own = table.get(lower, 0.0)
    if own >= _KNOWN_FREQ:
        return word
    floor = max(_REPAIRED_MIN_FREQ, own * _MARGIN_FACTOR)
    found: dict[str, float] = {}
    for at in range(len(lower) + 1):
        head, tail = lower[:at], lower[at:]
        for ligature in LIGATURES:
            candidate = head + ligature + tail
            freq = table.get(candidate, 0.0)
            if freq >= floor:
                found[candidate] = freq
    if not found:
        return word
    ranked = sorted(found.items(), key=lambda kv: -kv[1])
    # Two readings of similar frequency: too close to call.
    if len(ranked) > 1 and ranked[1][1] * 10 > ranked[0][1]:
        return word
    return _recase(word, ranked[0][0])


def ligature_repairs(words: Iterable[str], language: str = DEFAULT_LANGUAGE, min_evidence: int = 3) -> dict[str, str]:
    """The words of one document that :func:`restore_ligature` would repair, or nothing.

    Nothing unless the document shows it drops ligatures: at least ``min_evidence``
    distinct words that wordfreq does not know at all become common words by one
    insertion. A document that spells its ligatures (nearly every one) keeps every word,
    so a rare real word like "prole" in it is never touched.
    """
    table = _frequencies(language)
    if table is None:
        return {}
    repairs = {w: r for w in set(words) if (r := restore_ligature(w, language)) != w}
    evidence = sum(1 for w in repairs if w.lower() not in table)
    return repairs if evidence >= min_evidence else {}


def restore_dropped_ligatures(text: str, repairs: Mapping[str, str]) -> str:
    """``text`` with the words of ``repairs`` (from :func:`ligature_repairs`) replaced; words next to digits or ``_`` are left alone."""
    if not repairs:
        return text
    return _PLAIN_WORD.sub(lambda m: repairs.get(m.group(0), m.group(0)), text)


def plain_words(text: str) -> list[str]:
    """The words of ``text`` made of letters only (two or more), as the ligature repair sees them."""
    return _PLAIN_WORD.findall(text)


# ---------------------------------------------------------------- hyphens


def join_decision(left: str, right: str, language: str = DEFAULT_LANGUAGE, seen: Mapping[str, int] | None = None) -> str:
    """How ``left-`` at a line end and ``right`` on the next line are written as one word.

    In order: a form the document itself uses elsewhere (``seen``: casefolded word counts)
    wins ("baseline" written whole on another page); a capitalised second part keeps the
    hyphen ("Kaplan-Meier"); a joined form that is a known word is joined ("mistakes");
    otherwise the hyphen stays when the hyphenated form is known and clearly more common
    than the joined one ("time-dependent", "follow-up", "log-rank"). With no word lists
    for the language, words are joined unless the capital rule applies.
    """
    joined, hyphenated = left + right, f"{left}-{right}"
    if seen:
        whole, split = seen.get(joined.casefold(), 0), seen.get(hyphenated.casefold(), 0)
        if whole != split:
            return joined if whole > split else hyphenated
    if right[:1].isupper():
        return hyphenated
    return joined if _join_by_frequency(joined.casefold(), hyphenated.casefold(), language) else hyphenated


@lru_cache(maxsize=50_000)
def _join_by_frequency(joined: str, hyphenated: str, language: str) -> bool:
    if not knows_language(language):
        return True
    whole = zipf(joined, language)
    # wordfreq scores a hyphenated form by its rarest part, so two common parts
    # ("base-line") always look like a compound; a known joined word settles it.
    return whole >= KNOWN_ZIPF or whole >= zipf(hyphenated, language) - 1.0


def word_counts(pages: list[str]) -> Counter[str]:
    """Casefolded counts of the words (letters and inner hyphens) in ``pages``, for :func:`join_decision`."""
    return Counter(m.group(0).casefold() for page in pages for m in _COUNTED_WORD.finditer(page))


def join_hyphenated(text: str, language: str = DEFAULT_LANGUAGE, seen: Mapping[str, int] | None = None) -> str:
    """Words broken at line ends put back together (see :func:`join_decision`); the line break moves after the word."""
    text = _SOFT_HYPHEN.sub("-\n", text)

    def join(match: re.Match[str]) -> str:
        return join_decision(match.group(1), match.group(2), language, seen) + match.group(3) + "\n"

    return _LINE_END_HYPHEN.sub(join, text)


# ---------------------------------------------------------------- page furniture


def _edge_key(line: str) -> str:
    return _DIGITS.sub("#", " ".join(line.split())).casefold()


def _page_number(line: str) -> int | None:
    match = _PAGE_NUMBER.match(line.strip())
    if not match:
        return None
    token = match.group(1)
    if token.isdigit():
        return int(token)
    return _roman(token)


def _roman(token: str) -> int | None:
    values = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
    total = 0
    token = token.lower()
    for i, ch in enumerate(token):
        value = values[ch]
        total += -value if i + 1 < len(token) and values[token[i + 1]] > value else value
    return total or None


def strip_page_furniture(pages: list[str], min_share: float = 0.5) -> list[str]:
    """Running headers/footers and bare page numbers removed from the top and bottom of each page.

    A running line is the same first (or last) line, digits ignored, on at least
    ``min_share`` of the pages, or of the odd or the even pages, and at least 3 of them. A bare number ("7", "- 7 -",
    "Page 7 of 30", "vii") counts as a page number where it agrees with the page's
    position by the offset most pages agree on, so a table's last cell stays.
    Up to two lines are taken from each edge (a header above a page number); the second
    only where the first went, and only if it repeats exactly or is the page number.
    """
    lines = [page.split("\n") for page in pages]
    if len(pages) < 2:
        return list(pages)
    for edge in (0, -1):
        stripped = _strip_edge(lines, edge, min_share, [True] * len(lines), _edge_key)
        # The line behind a removed one must repeat exactly: with digits ignored, body lines
        # such as "Table 3 shows ..." on every page could pass for furniture.
        _strip_edge(lines, edge, min_share, stripped, lambda line: " ".join(line.split()).casefold())
    return ["\n".join(page) for page in lines]


def _edge_index(page: list[str], edge: int) -> int | None:
    order = range(len(page)) if edge == 0 else range(len(page) - 1, -1, -1)
    return next((i for i in order if page[i].strip()), None)


def _strip_edge(
    lines: list[list[str]], edge: int, min_share: float, eligible: list[bool], key: Callable[[str], str]
) -> list[bool]:
    """Blank the edge line of each eligible page that is running furniture or its page number; which pages changed."""
    found = [_edge_index(page, edge) if ok else None for page, ok in zip(lines, eligible)]
    keys = [key(page[i]) if i is not None else None for page, i in zip(lines, found)]
    counts = Counter(k for k in keys if k)
    needed = max(3, math.ceil(min_share * len(lines)))
    running = {k for k, n in counts.items() if n >= needed and len(k) <= 150}
    # Two-sided layouts run the authors on odd pages and the title on even ones: each line
    # stands on half the pages (less the title page), so each side is counted on its own too.
    for side in (0, 1):
        on_side = Counter(k for k in keys[side::2] if k)
        side_needed = max(3, math.ceil(min_share * len(lines[side::2])))
        running |= {k for k, n in on_side.items() if n >= side_needed and len(k) <= 150}
    numbers = [(_page_number(page[i]) if i is not None else None) for page, i in zip(lines, found)]
    offsets = Counter(n - p for p, n in enumerate(numbers) if n is not None)
    offset, agreeing = offsets.most_common(1)[0] if offsets else (None, 0)
    changed = [False] * len(lines)
    for p, (page, i) in enumerate(zip(lines, found)):
        if i is None:
            continue
        is_number = agreeing >= 2 and numbers[p] is not None and numbers[p] - p == offset
        if keys[p] in running or is_number:
            page[i] = ""
            changed[p] = True
    return changed


# ---------------------------------------------------------------- figure text

#: Fewest consecutive label lines read as the text of a figure (axis ticks, level names).
MIN_FIGURE_LINES = 6
#: Longest line, in words and in characters, that can be a label of a figure.
_LABEL_WORDS, _LABEL_CHARS = 6, 40
# Lines a figure's labels never are: code prompts and continuations, captions, bullets.
_NOT_A_LABEL = re.compile(r"^\s*(?:R?>|\+\s|\$\s|•|(?:Figure|Fig\.|Table)\s)")


def _label_like(line: str) -> bool:
    words = line.split()
    return bool(words) and len(words) <= _LABEL_WORDS and len(line.strip()) <= _LABEL_CHARS and not _NOT_A_LABEL.match(line)


def drop_figure_text(page: str) -> str:
    """``page`` without the text drawn inside its figures: runs of at least :data:`MIN_FIGURE_LINES`
    short lines, half of them one or two words (tick values, axis titles, level names).

    A chart extracts as a column of "0.90", "0.92", "Eye", "Blond Red Brown Black" lines that
    would otherwise fill passages, match words of a question and cost prompt tokens. Printed
    tables and code keep their rows: their lines have more words, or open with a prompt. An
    address block (a line with an ``@`` or "Affiliation") is kept.
    """
    lines = page.split("\n")
    keep = [True] * len(lines)
    start = 0
    while start < len(lines):
        end = start
        while end < len(lines) and _label_like(lines[end]):
            end += 1
        run = lines[start:end]
        # An address block (names, affiliations, e-mail) is short lines too, and says who wrote it.
        address = any("@" in line or line.strip().lower().startswith("affiliation") for line in run)
        if len(run) >= MIN_FIGURE_LINES and not address and sum(len(line.split()) <= 2 for line in run) * 2 >= len(run):
            keep[start:end] = [False] * len(run)
        start = end + 1 if end == start else end
    return "\n".join(line for line, kept in zip(lines, keep) if kept)


# ---------------------------------------------------------------- whole documents


def _tidy(text: str) -> str:
    lines = (line.rstrip() for line in text.split("\n"))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def repair_pages(pages: list[str], language: str = DEFAULT_LANGUAGE) -> list[str]:
    """One document's page texts repaired: ligatures and glyph codes decoded, page furniture
    and the text inside figures removed, line-end hyphens joined (across page breaks too), dropped ligatures restored.

    Returns one text per input page, so page boundaries are kept; a word hyphenated across
    a page break ends up whole on the page where it starts.
    """
    pages = [normalise_ligatures(p.replace("\r\n", "\n").replace("\r", "\n")) for p in pages]
    codes = learn_glyph_codes(pages, language)
    pages = [decode_glyph_codes(p, codes) for p in pages]
    # The first page keeps its short lines: the title block's authors and affiliations.
    pages = [p if n == 0 else drop_figure_text(p) for n, p in enumerate(strip_page_furniture(pages))]
    seen = word_counts(pages)
    pages = [_tidy(join_hyphenated(p, language, seen)) for p in pages]
    pages = _join_across_pages(pages, language, seen)
    repairs = ligature_repairs((w for p in pages for w in plain_words(p)), language)
    return [_tidy(restore_dropped_ligatures(p, repairs)) for p in pages]


_TRAILING_HYPHEN = re.compile(rf"({_LETTERS}+)[-\ufffe\u00ad]\Z")
_LEADING_WORD = re.compile(rf"\A({_LETTERS}+)(\S*)")


def _join_across_pages(pages: list[str], language: str, seen: Mapping[str, int]) -> list[str]:
    out = list(pages)
    for i in range(len(out) - 1):
        tail = _TRAILING_HYPHEN.search(out[i])
        if not tail:
            continue
        j = next((k for k in range(i + 1, len(out)) if out[k].strip()), None)
        head = _LEADING_WORD.match(out[j]) if j is not None else None
        if head is None or j is None:
            continue
        word = join_decision(tail.group(1), head.group(1), language, seen) + head.group(2)
        out[i] = out[i][: tail.start()] + word
        out[j] = out[j][head.end():].lstrip()
    return out


def join_pages(pages: list[str]) -> tuple[str, list[int]]:
    """The document text (pages separated by a blank line) and the word offset where each page starts.

    Page ``i`` starts at word ``starts[i]`` of ``text.split()``; an empty page starts
    where the next one does.
    """
    starts: list[int] = []
    words = 0
    for page in pages:
        starts.append(words)
        words += len(page.split())
    return "\n\n".join(p for p in pages if p.strip()), starts
