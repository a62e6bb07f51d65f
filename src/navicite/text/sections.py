"""A document's heading structure: where each section starts, how deep it is, what it is called.

Loaders store it as ``metadata["sections"]``: a list of ``{"start", "level", "title"}``
sorted by ``start``, where ``start`` is a word offset into ``Document.text`` (an index
into ``text.split()``, like segment offsets) at the first word of the heading line, and
``level`` counts from 1 (a chapter or ``#``). :func:`section_path` tells which headings
enclose a word, outermost first.

Sources: PDF bookmarks (:func:`outline_sections`), numbered headings in plain text
(:func:`numbered_headings`), unnumbered heading lines of plain text with one paragraph per
line (:func:`line_headings`), Org-mode star headings (:func:`org_headings`;
:func:`plain_text_sections` picks among the three), Markdown
(:func:`markdown_sections`); the HTML loader collects ``<h1>``-``<h6>`` itself while it
extracts the text.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

Section = dict[str, Any]

#: Fewest numbered headings that make a believable structure.
MIN_NUMBERED_HEADINGS = 3
#: Fewest words between two numbered headings (but a first subsection): closer ones are a list or a table of contents.
MIN_WORDS_BETWEEN_HEADINGS = 10
#: Longest numbered line taken as a heading, in words after the number.
MAX_HEADING_WORDS = 12

_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,3})\.?[ \t]+(\S.*?)\s*$")
# "Chapter 3" on its own line (the title on the next line) or "Chapter 3: Cox models" on one.
_CHAPTER = re.compile(r"^(?:Chapter|CHAPTER)[ \t]+(\d{1,2})(?:[.:]?[ \t]+(\S.*?))?\s*$")
_CONTENTS = re.compile(r"^(?:table of )?contents$", re.I)
# A table-of-contents entry: ends with a page number, or has dot leaders.
_TOC_ENTRY = re.compile(r"\s\d{1,4}$|(?:\.\s?){3}")
_NOT_IN_HEADINGS = re.compile(r"[=<>~$\[\]{}|\\]|(?:\.\s?){3}")
_SECTION_NUMBER = re.compile(r"^\d{1,2}(?:\.\d{1,2}){0,3}\.?$|^[IVXLC]{1,6}\.?$|^[A-Z]\.$")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TOKEN_EDGE = re.compile(r"^\W+|\W+$")


@dataclass(frozen=True)
class OutlineEntry:
    """One bookmark of a PDF outline: its title, 1-based nesting level and 0-based page (None if unresolved)."""

    title: str
    level: int
    page: int | None


def section(start: int, level: int, title: str, anchor: str = "") -> Section:
    """One entry of ``metadata["sections"]``; ``anchor``: where a link can point at it (an HTML id), if known."""
    entry: Section = {"start": start, "level": level, "title": " ".join(title.split())}
    if anchor:
        entry["anchor"] = anchor
    return entry


def lines_with_offsets(text: str) -> Iterator[tuple[str, int]]:
    """Each line of ``text`` with the word offset (into ``text.split()``) of its first word."""
    words = 0
    for line in text.split("\n"):
        yield line, words
        words += len(line.split())


# ---------------------------------------------------------------- numbered headings


def _number(label: str) -> tuple[int, ...]:
    return tuple(int(part) for part in label.split("."))


def follows(before: tuple[int, ...], after: tuple[int, ...]) -> bool:
    """True when ``after`` can be the next heading number after ``before`` (3.2 -> 3.2.1, 3.3 or 4)."""
    if after == before + (1,):
        return True
    return any(after == before[:depth] + (before[depth] + 1,) for depth in range(len(before)))


def heading_number(title: str) -> tuple[int, ...] | None:
    """The number a heading title starts with ("3.3 Stanford ..." -> (3, 3), "Chapter 2: ..." -> (2,)), if any."""
    match = re.match(r"^(?:Chapter[ \t]+)?(\d{1,2}(?:\.\d{1,2}){0,3})(?![\d.]*\d)", title.strip(), re.I)
    return _number(match.group(1)) if match else None


def _heading_candidate(line: str) -> tuple[tuple[int, ...], str] | None:
    match = _NUMBERED.match(line.strip())
    if not match:
        return None
    label, title = match.groups()
    if not _title_like(title):
        return None
    return _number(label), f"{label} {title}"


def _title_like(title: str) -> bool:
    words = title.split()
    letters = sum(ch.isalpha() for ch in title)
    return not (
        not title[0].isupper()
        or len(words) > MAX_HEADING_WORDS
        or title.endswith((".", ",", ";", ":"))
        or _NOT_IN_HEADINGS.search(title)
        or letters < 0.6 * len(title.replace(" ", ""))
        or not any(len(w) >= 3 and w.isalpha() for w in words)
    )


def _chapter_candidate(line: str, following: str) -> tuple[tuple[int, ...], str] | None:
    """A chapter heading, "Chapter 2" with its title on the same line or the next, as number 2."""
    match = _CHAPTER.match(line.strip())
    if not match:
        return None
    title = match.group(2) or following.strip()
    if not title or not _title_like(title):
        return None
    return (int(match.group(1)),), f"Chapter {match.group(1)}: {title}"


def _contents_lines(lines: list[str]) -> set[int]:
    """Indices of the lines of tables of contents: after a "Contents" line, the run of entries
    (numbered lines, lines ending in a page number or with dot leaders) and blank lines, up to
    a number the run has listed already (the body's first heading)."""
    inside: set[int] = set()
    for i, line in enumerate(lines):
        if not _CONTENTS.match(line.strip()):
            continue
        listed: set[str] = set()
        for j in range(i + 1, len(lines)):
            entry = lines[j].strip()
            label = entry.split()[0] if entry[:1].isdigit() else ""
            if entry and (label in listed or not (label or _TOC_ENTRY.search(entry))):
                break
            listed.add(label)
            inside.add(j)
    return inside


def numbered_headings(text: str) -> list[Section]:
    """Numbered headings standing alone on their lines ("2 Overview", "3.3 Stanford heart transplant").

    Chapter headings count as numbered level-1 headings ("Chapter 2" over its title line,
    kept as "Chapter 2: Survival curves"); the entries of a table of contents (the lines
    after a "Contents" line that end in a page number) are not headings. Lines that look
    like headings are chained in text order so that each number can
    follow the one before (3.2 -> 3.2.1, 3.3 or 4) with at least
    :data:`MIN_WORDS_BETWEEN_HEADINGS` words of text between them (none needed before a
    first subsection, 3 -> 3.1); the longest chain is the
    structure. It is kept only when plausible: at least :data:`MIN_NUMBERED_HEADINGS`
    headings and no more than one per 30 words of text. Otherwise the result is [],
    which numbered list items and table rows usually give. The level is the count of
    numbers (3.3 is level 2); the title keeps its number.
    """
    found: list[tuple[tuple[int, ...], int, str]] = []
    lines = list(lines_with_offsets(text))
    contents = _contents_lines([line for line, _ in lines])
    for k, (line, start) in enumerate(lines):
        if k in contents:
            continue
        candidate = None
        if line[:1].isdigit() or line[:1] == " ":
            candidate = _heading_candidate(line)
        elif line[:1] in "Cc":
            candidate = _chapter_candidate(line, lines[k + 1][0] if k + 1 < len(lines) else "")
        if candidate:
            found.append((candidate[0], start, candidate[1]))
    if len(found) < MIN_NUMBERED_HEADINGS:
        return []
    # Longest chain of valid successors (quadratic, but a document has few candidate lines).
    best_len = [1] * len(found)
    previous: list[int | None] = [None] * len(found)
    for j, (number, start, _) in enumerate(found):
        for i in range(j):
            before, before_start, before_title = found[i]
            body = start - before_start - len(before_title.split())
            # A first subsection may follow its heading at once ("3 Methods" / "3.1 Data").
            enough = body >= (0 if number == before + (1,) else MIN_WORDS_BETWEEN_HEADINGS)
            # On a tie the nearer predecessor wins: a table of contents loses to the body's own headings.
            if best_len[i] + 1 >= best_len[j] and enough and follows(before, number):
                best_len[j], previous[j] = best_len[i] + 1, i
    end: int | None = max(range(len(found)), key=best_len.__getitem__)
    chain = []
    while end is not None:
        chain.append(found[end])
        end = previous[end]
    chain.reverse()
    total_words = len(text.split())
    if len(chain) < MIN_NUMBERED_HEADINGS or len(chain) * 30 > total_words:
        return []
    return [section(start, len(number), title) for number, start, title in chain]


# ---------------------------------------------------------------- unnumbered heading lines

#: Fewest words of the line after a heading: a heading opens a paragraph, not another short line.
MIN_PARAGRAPH_WORDS = 5
#: Fewest words of a typical line (the median of lines of five words or more) in a text that keeps
#: each paragraph on one line; hard-wrapped text (stories, mail) has 10-15.
MIN_PARAGRAPH_LINE_WORDS = 20
#: Separator of a flattened section path on one heading line ("Methods ::: Data").
PATH_SEPARATOR = ":::"
_SENTENCE_END = re.compile(r"[.!?:\"”’)\]]$")
# Words a line cut by a hard wrap often ends on; a heading does not.
_DANGLING = frozenset("a an and as at by for from have in is of on or that the to we with".split())
# Openings of sentences, captions and proofs that a short line of a flattened PDF may start with.
_NOT_A_HEADING_START = re.compile(
    r"^(?:then|thus|hence|since|so|now|similarly|therefore|proof|lemma|theorem|table|figure|fig|algorithm)\b", re.I)
_INNER_SENTENCE_END = re.compile(r"[.!?]\s")


def _line_heading(line: str) -> str | None:
    """The title of ``line`` when it could be an unnumbered heading, else None."""
    stripped = " ".join(line.split())
    if not stripped or line[:1].isspace() or stripped.endswith(("!", "?", "'", '"', ")", "-")):
        return None
    if _NOT_A_HEADING_START.match(stripped) or _INNER_SENTENCE_END.search(stripped):
        return None
    if any(unicodedata.category(ch) == "Sm" for ch in stripped) or stripped.split()[-1].lower() in _DANGLING:
        return None
    parts = [p.strip() for p in stripped.split(PATH_SEPARATOR)]
    return stripped if all(parts) and all(_title_like(p) for p in parts) else None


def line_headings(text: str) -> list[Section]:
    """Unnumbered headings of a plain text that keeps each paragraph on one line (Qasper's
    papers, text saved from a web page): a short title-like line between a sentence's end (or the
    start) and a paragraph that opens with a capital.

    A line ``Results ::: Error analysis`` is a flattened section path: level 2 under
    "Results", titled "Error analysis". Other headings are level 1. A hard-wrapped text gives
    none (its typical line is shorter than :data:`MIN_PARAGRAPH_LINE_WORDS`); lines of
    flattened PDFs that open a proof, a caption or a sentence ("Thus", "Table S1: ...") or
    hold a formula are not headings; what passes is judged like any structure
    (:mod:`navicite.navigate.structure`).
    Fewer than :data:`MIN_NUMBERED_HEADINGS` headings give [].
    """
    lines = [(line, start) for line, start in lines_with_offsets(text) if line.strip()]
    paragraphs = [n for n in (len(line.split()) for line, _ in lines) if n >= MIN_PARAGRAPH_WORDS]
    if not paragraphs or statistics.median(paragraphs) < MIN_PARAGRAPH_LINE_WORDS:
        return []
    titles = [_line_heading(line) for line, _ in lines]
    found: list[Section] = []
    for k, ((line, start), title) in enumerate(zip(lines, titles)):
        if title is None:
            continue
        before = lines[k - 1][0].strip() if k else ""
        after = lines[k + 1][0].strip() if k + 1 < len(lines) else ""
        opens_after = (titles[k + 1] is not None) if k + 1 < len(lines) else False
        paragraph_after = len(after.split()) >= MIN_PARAGRAPH_WORDS and (after[:1].isupper() or after[:1].isdigit() or after[:1] in "\"“'")
        if not (paragraph_after or opens_after):
            continue
        if k and not (_SENTENCE_END.search(before) or titles[k - 1] is not None):
            continue
        parts = [p.strip() for p in title.split(PATH_SEPARATOR)]
        # A path whose parents no line heads ("Related Work ::: Transfer learning" after
        # "Introduction") opens them here, so the section path names them.
        open_titles = [s["title"] for s in enclosing(found)]
        for level, part in enumerate(parts[:-1], start=1):
            if open_titles[level - 1:level] != [part]:
                found.append(section(start, level, part))
                open_titles = open_titles[:level - 1] + [part]
        found.append(section(start, len(parts), parts[-1]))
    return found if len(found) >= MIN_NUMBERED_HEADINGS else []


def enclosing(sections: Sequence[Section]) -> list[Section]:
    """The headings still open after the last of ``sections`` (sorted by start), outermost first:
    the last heading and, above it, the last heading of each smaller level before it."""
    stack: list[Section] = []
    for entry in sections:
        while stack and stack[-1]["level"] >= entry["level"]:
            stack.pop()
        stack.append(entry)
    return stack


def plain_text_sections(text: str) -> list[Section]:
    """The headings of a plain text: Org-mode star headings where the text is written in Org,
    else numbered ones where it has them, else unnumbered heading lines."""
    return org_headings(text) or numbered_headings(text) or line_headings(text)


# An Org heading: stars at the start of the line, then a space and the title (tags ``:a:b:`` at the end dropped).
_ORG_HEADING = re.compile(r"^(\*{1,8})[ \t]+(\S.*?)(?:[ \t]+:[\w@#%:]+:)?[ \t]*$")
_ORG_BLOCK = re.compile(r"^[ \t]*#\+(begin|end)_\w+", re.I)
# What marks a text as Org: the Emacs mode line, or an in-buffer setting.
_ORG_MARK = re.compile(r"-\*-.*\borg\b.*-\*-|^#\+(?:title|startup|options|author):", re.I | re.M)


def org_headings(text: str) -> list[Section]:
    """Org-mode headings (``* Title``, ``** Subtitle``; the number of stars is the level).

    A line of stars is only a heading in a text that is Org: one that says so (an Emacs
    ``-*- org -*-`` mode line or a ``#+TITLE:`` setting) or that nests them (both ``*`` and
    ``**`` headings), so a plain list of ``* item`` lines is not taken for headings. Lines
    inside ``#+begin_...``/``#+end_...`` blocks are not headings. Fewer than
    :data:`MIN_NUMBERED_HEADINGS` give [].
    """
    found: list[Section] = []
    in_block = False
    for line, start in lines_with_offsets(text):
        block = _ORG_BLOCK.match(line)
        if block:
            in_block = block.group(1).lower() == "begin"
            continue
        match = None if in_block else _ORG_HEADING.match(line)
        if match:
            found.append(section(start, len(match.group(1)), match.group(2)))
    levels = {s["level"] for s in found}
    is_org = bool(_ORG_MARK.search(text[:2000])) or (1 in levels and 2 in levels)
    return found if is_org and len(found) >= MIN_NUMBERED_HEADINGS else []


# ---------------------------------------------------------------- PDF outlines


def _normal_tokens(text: str) -> list[str]:
    return [t for t in (_TOKEN_EDGE.sub("", w).casefold() for w in text.split()) if t]


def outline_sections(outline: Sequence[OutlineEntry], text: str, page_starts: Sequence[int]) -> list[Section]:
    """Sections from PDF bookmarks: each title found among the words of its page, else the page start.

    A title is searched for from the page's first word (or the previous section's start,
    when that is on the same page) to the end of the page, words compared without case
    and edge punctuation, preferring a match that begins a line; a section number just
    before it on the same line ("3.3" before "Stanford heart transplant") is taken in.
    Bookmarks without a resolvable page are dropped.
    """
    words = text.split()
    line_start = [False] * len(words)
    for line, start in lines_with_offsets(text):
        if line.split() and start < len(words):
            line_start[start] = True
    normal = [_TOKEN_EDGE.sub("", w).casefold() for w in words]
    sections: list[Section] = []
    floor = 0
    for entry in outline:
        if entry.page is None or not 0 <= entry.page < len(page_starts):
            continue
        page_start = page_starts[entry.page]
        page_end = page_starts[entry.page + 1] if entry.page + 1 < len(page_starts) else len(words)
        start = _locate(_normal_tokens(entry.title)[:6], normal, line_start, max(page_start, floor), page_end)
        if start is None:
            start = max(page_start, floor) if page_start < floor < page_end else page_start
        elif start > page_start and _SECTION_NUMBER.match(words[start - 1]) and line_start[start - 1]:
            start -= 1
        floor = start
        sections.append(section(start, entry.level, entry.title))
    sections.sort(key=lambda s: s["start"])
    return sections


def _locate(title: list[str], normal: list[str], line_start: list[bool], lo: int, hi: int) -> int | None:
    if not title:
        return None
    hits = [i for i in range(lo, max(lo, hi - len(title) + 1)) if normal[i : i + len(title)] == title]
    at_line = [i for i in hits if line_start[i] or (i > 0 and line_start[i - 1] and _SECTION_NUMBER.match(normal[i - 1] or "x") is not None)]
    return (at_line or hits or [None])[0]


# ---------------------------------------------------------------- Markdown


def markdown_sections(text: str) -> list[Section]:
    """ATX (``## Methods``) and setext (``Methods`` over ``===``/``---``) headings of a Markdown text.

    ``start`` is the first word of the heading line, which for an ATX heading is its
    ``#`` marker (the text keeps the Markdown as written). Lines inside fenced code
    blocks are not headings.
    """
    sections: list[Section] = []
    fence = ""
    previous: tuple[str, int] | None = None
    after_blank = True
    for line, start in lines_with_offsets(text):
        blank_before, after_blank = after_blank, not line.strip()
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            previous = None
            continue
        if opened:
            fence = opened.group(1)
            previous = None
            continue
        atx = _ATX.match(line)
        underline = _SETEXT_UNDERLINE.match(line)
        if atx and (atx.group(2) or "").strip():
            sections.append(section(start, len(atx.group(1)), atx.group(2)))
            previous = None
            continue
        if underline and previous is not None:
            sections.append(section(previous[1], 1 if underline.group(1)[0] == "=" else 2, previous[0]))
            previous = None
            continue
        # Only a one-line paragraph can be a setext title here (not a list item, a quote or a table row).
        stripped = line.strip()
        is_title_line = (
            blank_before and bool(stripped) and not line.startswith("    ") and not stripped.startswith(("-", "*", "+", ">", "|"))
        )
        previous = (stripped, start) if is_title_line else None
    return sections
