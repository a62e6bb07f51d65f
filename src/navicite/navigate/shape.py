"""Split and refine: turn a topic's collected summaries into a budget-respecting subtree.

A node is within budget when its content has at most ``navigate.leaf_token_budget``
tokens and, for a leaf, the original passages it points to (the text navigation reads
there) fit the same budget; a leaf of one segment always fits. *Split* runs first, on
the topic's notes (one summary per segment), so sub-topics can separate segments;
*refine* then rewrites each leaf's notes as merged paragraphs citing their source
segments. Every model reply is checked: paragraphs citing no valid segment are
dropped, segments the rewrite forgot get their original summary back, unusable
groupings fall back to packing consecutive paragraphs, and a level with more parts
than ``navigate.max_topics_per_level`` is bundled. So the result always cites every
segment the topic was given, and no node is over budget.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import TypeVar

from pydantic import BaseModel, Field, create_model

from navicite import prompts
from navicite.config import Settings
from navicite.llm.base import LLM, carry_context
from navicite.navigate.ask import CallBudget, ask_json
from navicite.navigate.tree import (
    Node,
    Paragraph,
    SegmentRef,
    normalise_title,
    passage_tokens,
    token_count,
)

T = TypeVar("T")
R = TypeVar("R")

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
#: Below this depth the model proposes sub-topics; deeper, paragraphs are packed in order.
MAX_SPLIT_DEPTH = 3
#: Longest overview of a split topic, in words.
OVERVIEW_WORDS = 60
#: Words of a packed part's original text shown when asking for its title (its notes often
#: just repeat the topic's title).
PART_TEXT_WORDS = 60
#: Most words of part beginnings in one naming prompt.
NAMING_PROMPT_WORDS = 1200
#: Longest part title kept: the prompt asks for 2 to 6 words; a longer one is a copied sentence.
MAX_PART_TITLE_WORDS = 8


class RefinedParagraph(BaseModel):
    """One rewritten paragraph and the segments it came from."""

    text: str = Field(max_length=3000)
    sources: list[int] = Field(max_length=64)


class RefineReply(BaseModel):
    """The reply of one refine call."""

    paragraphs: list[RefinedParagraph] = Field(max_length=32)


class SplitGroup(BaseModel):
    """One proposed sub-topic: its title and the numbers (from 1) of its paragraphs."""

    title: str = Field(max_length=200)
    paragraphs: list[int] = Field(max_length=64)


class SplitReply(BaseModel):
    """The reply of one split call."""

    overview: str = Field("", max_length=1500)
    groups: list[SplitGroup] = Field(max_length=16)


class PartTitles(BaseModel):
    """The reply of one call naming packed parts."""

    titles: list[str] = Field(max_length=64)


@lru_cache(maxsize=64)
def part_titles_schema(count: int) -> type[PartTitles]:
    """:class:`PartTitles` with exactly ``count`` titles."""
    return create_model(
        f"PartTitles{count}", __base__=PartTitles, titles=(list[str], Field(min_length=count, max_length=count))
    )


@lru_cache(maxsize=64)
def split_schema(least: int, most: int) -> type[SplitReply]:
    """:class:`SplitReply` with ``least`` to ``most`` groups.

    A small model otherwise often answers with one group named like the parent, which
    splits nothing; a backend that constrains output to the schema cannot.
    """
    return create_model(
        f"SplitReply{least}to{most}",
        __base__=SplitReply,
        groups=(list[SplitGroup], Field(min_length=least, max_length=most)),
    )


class Shaper:
    """Splits and refines the topics of one build; safe to run for several topics at once.

    Structure comes first, for every topic, then refinement: splits keep leaves within
    budget, so they have first claim on the build's :class:`CallBudget`; refine calls take
    what is left, the leaves with most notes first (a leaf left unrefined keeps its notes,
    which are valid cited paragraphs already).
    """

    def __init__(self, llm: LLM, settings: Settings, budget: CallBudget | None = None) -> None:
        self.llm = llm
        self.limits = settings.navigate
        self.budget = budget or CallBudget()

    def shape_all(
        self,
        topics: list[tuple[str, list[Paragraph]]],
        segments: Sequence[SegmentRef],
        on_done: Callable[[str, int, int], None] | None = None,
    ) -> list[Node]:
        """One subtree per ``(title, notes)``, in order; work runs concurrently (bounded).

        ``on_done(phase, done, total)`` follows the "split" phase (per topic) and the
        "refine" phase (per leaf with several notes).
        """
        nodes = self._each(
            "split", lambda topic: self._fit(Node(id="", title=topic[0], paragraphs=topic[1]), 0, segments), topics, on_done
        )
        merged = [leaf for node in nodes for leaf, _ in node.walk() if leaf.is_leaf and len(leaf.paragraphs) > 1]
        merged.sort(key=lambda leaf: -len(leaf.paragraphs))
        self._each("refine", lambda leaf: self._refine_leaf(leaf, segments), merged, on_done)
        return nodes

    def shape(self, title: str, notes: list[Paragraph], segments: Sequence[SegmentRef]) -> Node:
        """The subtree of one topic over the document's ``segments``: split while over budget, leaves refined."""
        return self.shape_all([(title, notes)], segments)[0]

    def _each(self, phase: str, work: Callable[[T], R], items: list[T], on_done: Callable[[str, int, int], None] | None) -> list[R]:
        """``work`` over ``items`` on a bounded pool, in order, reporting each item done."""
        done = 0
        lock = threading.Lock()

        def one(item: T) -> R:
            nonlocal done
            result = work(item)
            with lock:
                done += 1
                if on_done is not None:
                    on_done(phase, done, len(items))
            return result

        with ThreadPoolExecutor(max_workers=self.limits.concurrency, thread_name_prefix="navicite-shape") as pool:
            return list(pool.map(carry_context(one), items))

    def fits(self, paragraphs: list[Paragraph], segments: Sequence[SegmentRef]) -> bool:
        """Whether ``paragraphs`` can be one leaf: content and the passages they cite within the budget."""
        budget = self.limits.leaf_token_budget
        cited = {s for p in paragraphs for s in p.sources}
        return _tokens(paragraphs) <= budget and (len(cited) <= 1 or passage_tokens(segments, cited) <= budget)

    # -- refine ------------------------------------------------------------------------

    def refine(self, title: str, notes: list[Paragraph]) -> list[Paragraph]:
        """Merged, cited paragraphs for ``notes``; the notes themselves when the model fails."""
        allowed = sorted({s for n in notes for s in n.sources})
        messages = prompts.render(
            "tree_refine",
            title=title,
            notes="\n".join("".join(f"[{s}]" for s in n.sources) + " " + n.text for n in notes),
            segments=", ".join(str(s) for s in allowed),
        )
        reply = ask_json(self.llm, messages, RefineReply, "tree_refine", self.limits.refine_max_tokens, self.budget)
        if reply is None:
            return notes
        kept: list[Paragraph] = []
        by_text: dict[str, Paragraph] = {}
        for p in reply.paragraphs:
            text = " ".join(p.text.split())
            sources = sorted({s for s in p.sources if s in allowed})
            if not text or not sources:
                continue
            twin = by_text.get(text.lower())
            if twin is not None:  # a repeated paragraph: one copy citing both sets of sources
                twin.sources = sorted(set(twin.sources) | set(sources))
                continue
            by_text[text.lower()] = paragraph = Paragraph(text, sources)
            kept.append(paragraph)
        if not kept:
            return notes
        cited = {s for p in kept for s in p.sources}
        # A segment the rewrite lost keeps its original summary, so nothing becomes unreachable.
        kept.extend(n for n in notes if not set(n.sources) <= cited)
        return kept

    # -- split -------------------------------------------------------------------------

    def _fit(self, node: Node, depth: int, segments: Sequence[SegmentRef]) -> Node:
        """``node`` as a leaf when within budget, otherwise split into children (recursively)."""
        if self.fits(node.paragraphs, segments):
            return self._leaf(node)
        overview, groups = self._split(node, depth, segments)
        sources = sorted(node.sources())
        children = [self._fit(Node(id="", title=t, paragraphs=ps), depth + 1, segments) for t, ps in groups]
        return Node(id="", title=node.title, paragraphs=[Paragraph(overview, sources)], children=self._bundle(node.title, children))

    def _leaf(self, node: Node) -> Node:
        """``node`` as a leaf over the segments it cites (refined later, when the budget allows)."""
        node.segments = sorted(node.sources())
        return node

    def _refine_leaf(self, node: Node, segments: Sequence[SegmentRef]) -> None:
        """Replace a leaf's notes by refined paragraphs when the result still fits."""
        refined = self.refine(node.title, node.paragraphs)
        if self.fits(refined, segments):
            node.paragraphs = refined

    def _split(self, node: Node, depth: int, segments: Sequence[SegmentRef]) -> tuple[str, list[tuple[str, list[Paragraph]]]]:
        """An overview and sub-topic groups; asked of the model, else packed in order."""
        paragraphs = _by_source(node.paragraphs)
        fallback_overview = f"{node.title}: " + "; ".join(_first_words(p.text, 8) for p in paragraphs[:4])
        if depth >= MAX_SPLIT_DEPTH or len(paragraphs) < 2:
            return fallback_overview, self._named_pack(node.title, paragraphs, segments)
        per_leaf = self._passages_per_leaf(node, segments)
        most = min(self.limits.max_topics_per_level, len(paragraphs))
        # Enough groups that each can hold its passages, so one call usually reaches leaf size.
        least = max(2, min(most, math.ceil(len(node.sources()) / per_leaf)))
        messages = prompts.render(
            "tree_split",
            title=node.title,
            paragraphs="\n".join(
                f"P{i} (passage{'s' if len(p.sources) > 1 else ''} {', '.join(map(str, p.sources))}): {p.text}"
                for i, p in enumerate(paragraphs, 1)
            ),
            min_groups=least,
            max_groups=most,
            max_passages=per_leaf,
        )
        reply = ask_json(self.llm, messages, split_schema(least, most), "tree_split", self.limits.split_max_tokens, self.budget)
        groups = _groups_from(reply, paragraphs, node.title) if reply is not None else []
        if reply is None or not 2 <= len(groups) <= self.limits.max_topics_per_level:
            return fallback_overview, self._named_pack(node.title, paragraphs, segments)
        overview = " ".join(reply.overview.split()[:OVERVIEW_WORDS]) or fallback_overview
        return overview, groups

    def _passages_per_leaf(self, node: Node, segments: Sequence[SegmentRef]) -> int:
        """About how many of ``node``'s segments one leaf can hold, as a hint for the split prompt."""
        cited = sorted(node.sources())
        mean = sum(passage_tokens(segments, [s]) for s in cited) / max(1, len(cited))
        return max(1, round(self.limits.leaf_token_budget / mean) if mean else len(cited))

    def _named_pack(self, title: str, paragraphs: list[Paragraph], segments: Sequence[SegmentRef]) -> list[tuple[str, list[Paragraph]]]:
        """:meth:`_pack`, then one call titles the parts; an empty, repeated, over-long or copied title
        (the topic's, or one of the prompt's examples) stays "<title> (part k)".

        Small models that cannot group paragraphs into sub-topics still name given parts well,
        and a navigator choosing among "part 1, part 2, ..." has only previews to go by.
        """
        parts = self._pack(title, paragraphs, segments)
        if len(parts) < 2:
            return parts
        shown = []
        words = max(12, min(PART_TEXT_WORDS, NAMING_PROMPT_WORDS // len(parts)))  # many parts: shorter beginnings
        for k, (_, part) in enumerate(parts, 1):
            first = min(s for p in part for s in p.sources)
            text = segments[first].text if 0 <= first < len(segments) else " ".join(p.text for p in part)
            shown.append(f"Part {k}: {_first_words(text, words)}")
        messages = prompts.render("tree_name_parts", count=len(parts), parts="\n".join(shown))
        reply = ask_json(
            self.llm, messages, part_titles_schema(len(parts)), "tree_name_parts", 16 * len(parts) + 32, self.budget
        )
        if reply is None:
            return parts
        # The 1.5B model copies the prompt's example titles ("Election of the new mayor" for a
        # story with no election) and first lines of the text; both stay numbered parts.
        instructions = " ".join(m.content for m in messages).replace("\n".join(shown), " ")
        quoted = {normalise_title(q) for q in re.findall(r'"([^"]+)"', instructions)}
        taken = {normalise_title(title)}
        named = []
        for (fallback, part), proposed in zip(parts, reply.titles):
            clean = _tidy_title(proposed)
            key = normalise_title(clean)
            if not key or key in taken or key in quoted or len(key.split()) > MAX_PART_TITLE_WORDS:
                clean, key = fallback, normalise_title(fallback)
            taken.add(key)
            named.append((clean, part))
        return named

    def _pack(self, title: str, paragraphs: list[Paragraph], segments: Sequence[SegmentRef]) -> list[tuple[str, list[Paragraph]]]:
        """Consecutive paragraphs packed into parts within budget, titled "<title> (part k)"."""
        budget = self.limits.leaf_token_budget
        pieces = [part for p in paragraphs for piece in _cut(p, budget) for part in self._by_sources(piece, segments)]
        parts: list[list[Paragraph]] = [[]]
        for piece in pieces:
            if parts[-1] and not self.fits([*parts[-1], piece], segments):
                parts.append([])
            parts[-1].append(piece)
        return [(f"{title} (part {k})", part) for k, part in enumerate(parts, 1)]

    def _by_sources(self, paragraph: Paragraph, segments: Sequence[SegmentRef]) -> list[Paragraph]:
        """``paragraph`` once per run of its sources that fits a leaf (it cites too much text for one)."""
        if self.fits([paragraph], segments):
            return [paragraph]
        return [Paragraph(paragraph.text, run) for run in runs_within(segments, paragraph.sources, self.limits.leaf_token_budget)]

    def _bundle(self, title: str, children: list[Node]) -> list[Node]:
        return bundle(title, children, self.limits.max_topics_per_level, self.limits.leaf_token_budget)


def runs_within(segments: Sequence[SegmentRef], indices: Iterable[int], budget: int) -> list[list[int]]:
    """``indices`` in order, cut into consecutive runs whose passages fit ``budget`` tokens (a single one always does)."""
    runs: list[list[int]] = [[]]
    for s in sorted(set(indices)):
        if runs[-1] and passage_tokens(segments, [*runs[-1], s]) > budget:
            runs.append([])
        runs[-1].append(s)
    return [run for run in runs if run]


def bundle(title: str, children: list[Node], width: int, budget: int) -> list[Node]:
    """``children`` grouped under intermediate nodes while there are more than a level may hold (``width``)."""
    while len(children) > width:
        children = [_bundle_node(title, children[i : i + width], i, budget) for i in range(0, len(children), width)]
    return children


def _bundle_node(title: str, members: list[Node], first: int, budget: int) -> Node:
    """An intermediate node over ``members`` (positions from ``first``), its content a list of theirs."""
    sources = sorted(set().union(*(m.reachable_segments() for m in members)))
    overview = "; ".join(f"{m.title}: {_first_words(m.content, 8)}" for m in members)
    text = _cut(Paragraph(overview, sources), budget)[0].text
    return Node(id="", title=f"{title} (parts {first + 1}-{first + len(members)})", paragraphs=[Paragraph(text, sources)], children=members)


def _groups_from(reply: SplitReply, paragraphs: list[Paragraph], parent: str) -> list[tuple[str, list[Paragraph]]]:
    """Valid groups from a split reply: known paragraph numbers, each used once, distinct titles.

    A paragraph no group claims joins the group of the paragraph before it.
    """
    owner: dict[int, int] = {}
    titles: list[str] = []
    for group in reply.groups:
        title = _tidy_title(group.title)
        if not normalise_title(title) or normalise_title(title) == normalise_title(parent):
            continue
        known = [normalise_title(t) for t in titles]
        slot = known.index(normalise_title(title)) if normalise_title(title) in known else len(titles)
        if slot == len(titles):
            titles.append(title)
        for number in group.paragraphs:
            if 1 <= number <= len(paragraphs) and number - 1 not in owner:
                owner[number - 1] = slot
    if not titles:
        return []
    previous = owner.get(0, 0)
    for i in range(len(paragraphs)):
        previous = owner.setdefault(i, previous)
    groups = [(t, [p for i, p in enumerate(paragraphs) if owner[i] == slot]) for slot, t in enumerate(titles)]
    return [(t, ps) for t, ps in groups if ps]


def _by_source(paragraphs: list[Paragraph]) -> list[Paragraph]:
    """``paragraphs`` citing the same segments joined into one, ordered by their first segment.

    A split separates passages: were a passage's notes under several titles offered apart,
    the model could put them in different groups and that passage under several leaves.
    """
    joined: dict[tuple[int, ...], list[str]] = {}
    for p in paragraphs:
        joined.setdefault(tuple(sorted(set(p.sources))), []).append(p.text)
    return [Paragraph(" ".join(texts), list(key)) for key, texts in sorted(joined.items(), key=lambda kv: (kv[0][:1], kv[0]))]


def _tidy_title(title: str) -> str:
    """A proposed title on one line, without quotes or list marks, at most 80 characters."""
    return " ".join(title.split()).strip(" -*#\"'`")[:80].rstrip()


def _cut(paragraph: Paragraph, budget: int) -> list[Paragraph]:
    """``paragraph`` cut at sentence ends into pieces within ``budget`` tokens (each keeps the sources)."""
    if token_count(paragraph.text) <= budget:
        return [paragraph]
    pieces: list[str] = [""]
    sentences = _SENTENCE_END.split(paragraph.text)
    for sentence in sentences:
        if token_count(sentence) > budget:  # one enormous sentence: cut by words
            words = sentence.split()
            step = max(1, budget // 3)
            pieces.extend(" ".join(words[i : i + step]) for i in range(0, len(words), step))
            continue
        candidate = f"{pieces[-1]} {sentence}".strip()
        if pieces[-1] and token_count(candidate) > budget:
            pieces.append(sentence)
        else:
            pieces[-1] = candidate
    return [Paragraph(text, list(paragraph.sources)) for text in pieces if text.strip()]


def _tokens(paragraphs: list[Paragraph]) -> int:
    return token_count("\n\n".join(p.text for p in paragraphs))


def _first_words(text: str, count: int) -> str:
    words = text.split()
    return " ".join(words[:count]) + (" ..." if len(words) > count else "")
