"""Evidence at the granularity of a section: flat retrieval's best passages widened to their section.

NaviRAG's point is that some questions are about a stretch of a document (a section's argument, an
answer spread over one section's paragraphs) that a few top-ranked passages only touch. Instead of
walking a tree with the model, this takes flat retrieval's ranking as the map: the best passage is a
seed, and the passages of its section (the same heading path; where a document has no headings, its
neighbours) are added nearest first, so the reader gets the seed's context instead of more scattered
hits. No model call.

:func:`widen` spends a share of the budget this way and the rest on the ranking as it was;
:func:`sectioned` is the signal mode ``auto`` reads: widen only where the best passage sits under a
heading. Measured with ``navicite eval evidence`` on L-Eval (docs/results.md, "Evidence at section
granularity"), widening a document without headings to the best passage's neighbours lost recall
(quality 0.540 against 0.562 flat), and a signal "two of the best three passages share a section"
fired too rarely to help (scientific_qa 0.731 against 0.752 for widening under every heading).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from navicite.documents import Passage
from navicite.text.tokens import estimate_tokens


@dataclass(frozen=True)
class Widened:
    """The passages chosen, best seed's section first, and what was widened."""

    passages: list[Passage]
    #: The section path the seed's neighbours were taken from (empty: a document without headings).
    section: tuple[str, ...]
    #: Passages added from the seed's section that the ranking had not put within the budget.
    added: int
    #: Ids of the seed's section mates taken (the seed not among them).
    mates: tuple[str, ...] = ()


def _stretch(seed: Passage, passages: Sequence[Passage]) -> list[Passage]:
    """The seed's section mates, nearest first: the run of consecutive passages with its heading path."""
    ordered = [p for p in passages if p.field == seed.field]
    at = next((i for i, p in enumerate(ordered) if p.number == seed.number), None)
    if at is None:
        return [seed]
    lo = hi = at
    while lo > 0 and ordered[lo - 1].section == seed.section:
        lo -= 1
    while hi + 1 < len(ordered) and ordered[hi + 1].section == seed.section:
        hi += 1
    return sorted(ordered[lo : hi + 1], key=lambda p: (abs(p.number - seed.number), p.number))


def widen(
    ranked: Sequence[Passage],
    passages_of: Callable[[str], Sequence[Passage]],
    budget_tokens: int,
    share: float = 0.5,
) -> Widened:
    """``ranked`` (best first) with up to ``share`` of ``budget_tokens`` given to the best passage's section.

    The best passage comes first, then its section mates nearest first while the widening share
    lasts, then the ranking's next passages in order while the whole budget lasts. ``passages_of``
    gives a document's passages in order. The result is in reading order of choice (the caller
    may sort it by position).
    """
    if not ranked:
        return Widened([], (), 0)
    seed = ranked[0]
    chosen: dict[str, Passage] = {}
    spent = 0

    def take(passage: Passage, limit: int) -> bool:
        nonlocal spent
        cost = estimate_tokens(passage.text)
        if passage.id in chosen:
            return True
        if spent + cost > limit:
            return False
        chosen[passage.id] = passage
        spent += cost
        return True

    take(seed, budget_tokens)
    widening = int(budget_tokens * max(0.0, min(1.0, share)))
    flat_within = {p.id for p in _within(ranked, budget_tokens)}
    added = 0
    mates: list[str] = []
    for mate in _stretch(seed, passages_of(seed.doc_id)):
        if not take(mate, widening):
            break
        if mate.id != seed.id:
            mates.append(mate.id)
            added += mate.id not in flat_within
    for passage in ranked:
        if not take(passage, budget_tokens):
            break
    return Widened(list(chosen.values()), seed.section, added, tuple(mates))


def _within(ranked: Sequence[Passage], budget_tokens: int) -> list[Passage]:
    """The ranking's passages that fit the budget in order (what flat retrieval would have read)."""
    out, spent = [], 0
    for passage in ranked:
        spent += estimate_tokens(passage.text)
        if spent > budget_tokens:
            break
        out.append(passage)
    return out


def sectioned(ranked: Sequence[Passage]) -> bool:
    """Whether the best passage sits under a heading, so there is a section to widen to."""
    return bool(ranked) and bool(ranked[0].section)


# A question asking for a document's summary: its gist, main points or contribution, what it is
# about, its abstract written. Each alternative is a way users ask for one; a plain "abstract" is
# left out, as it names concepts too ("abstract meaning representation"). On L-Eval (docs/results.md,
# "Evidence at section granularity") it fires on paper_assistant's 23 "generate the Abstract"
# requests and on none of scientific_qa's 184 or quality's 202 questions.
_SUMMARY = re.compile(
    r"\b(?:summari[sz](?:e|es|ing)|(?:a|the|its|short|brief) summary (?:of|for)|overview|gist|tl;?dr"
    r"|main (?:points?|ideas?|contributions?|findings?|arguments?|messages?|themes?)"
    r"|key (?:points|findings|contributions|takeaways|ideas)"
    r"|what (?:is|are) (?:this|the) (?:paper|article|report|document|story|book|chapter|manual|work)s?(?:'s)? about"
    r"|(?:write|generate|draft) (?:the|an?|its) (?:\w+ )?abstract)\b",
    re.IGNORECASE,
)


def asks_for_summary(question: str) -> bool:
    """Whether ``question`` asks for its document's summary (the gist, the main points, an abstract)."""
    return bool(_SUMMARY.search(question))


def opening(passages: Sequence[Passage], budget_tokens: int) -> list[Passage]:
    """The document's first passages while ``budget_tokens`` lasts: where a paper or report states its
    argument. For a summary this read more of the reference abstract than the ranking (0.771 against
    0.646 on paper_assistant's 23 abstracts) and than the opening passage of every section (0.687)."""
    return _within(passages, budget_tokens)
