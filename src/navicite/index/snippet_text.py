"""Snippet text shared by every backend: marking matches, CJK matches, a text's opening.

A backend highlights the words its query matched in its own way; what it cannot highlight
(CJK words, matched through character-pair fields) and what a hit without any match shows are
made here, so a snippet looks the same whichever backend found the hit.
"""

from __future__ import annotations

import re

from navicite.index.base import HIGHLIGHT_END, HIGHLIGHT_START

#: Longest snippet, in characters.
SNIPPET_CHARS = 200
#: Characters shown before the first CJK match.
_CJK_LEAD = 40
#: The parts a snippet is taken from, in order of preference.
SNIPPET_FIELDS = ("body", "abstract", "title")


def mark(fragment: str, ranges: list[tuple[int, int]]) -> str:
    """Wrap the given character ranges of ``fragment`` in highlight marks (overlaps are dropped)."""
    out: list[str] = []
    last = 0
    for start, end in sorted(ranges):
        if start < last:
            continue
        out.append(fragment[last:start])
        out.append(HIGHLIGHT_START + fragment[start:end] + HIGHLIGHT_END)
        last = end
    out.append(fragment[last:])
    return " ".join("".join(out).split())


def cjk_pattern(cjk_texts: list[str]) -> re.Pattern[str] | None:
    """A pattern finding any of a query's CJK texts (longest first), or None without any."""
    if not cjk_texts:
        return None
    return re.compile("|".join(map(re.escape, sorted(set(cjk_texts), key=len, reverse=True))))


def cjk_snippet(pattern: re.Pattern[str], text: str) -> str:
    """The text around the first CJK match, every match in it marked; empty without a match."""
    first = pattern.search(text)
    if first is None:
        return ""
    start = max(0, first.start() - _CJK_LEAD)
    fragment = text[start : start + SNIPPET_CHARS]
    return mark(fragment, [m.span() for m in pattern.finditer(fragment)])


def opening(text: str) -> str:
    """The start of a text, cut at a word end, for a hit with nothing to highlight."""
    text = " ".join(text.split())
    if len(text) <= SNIPPET_CHARS:
        return text
    cut = text.rfind(" ", 0, SNIPPET_CHARS)
    return text[: cut if cut > 0 else SNIPPET_CHARS] + " …"
