"""Refine and split: turn a topic's collected summaries into a budget-respecting subtree.

*Refine* rewrites several summaries as merged paragraphs, each citing its source
segments; *split* divides content over ``navigate.leaf_token_budget`` into
sub-topics. Every model reply is checked: paragraphs citing no valid segment are
dropped, segments the rewrite forgot get their original summary back, unusable
groupings fall back to packing consecutive paragraphs. So the result always cites
every segment the topic was given, and no node is over budget.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from pydantic import BaseModel, Field

from navicite import prompts
from navicite.config import Settings
from navicite.llm.base import LLM, carry_context
from navicite.navigate.ask import ask_json
from navicite.navigate.tree import Node, Paragraph, normalise_title, token_count

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
#: Below this depth the model proposes sub-topics; deeper, paragraphs are packed in order.
MAX_SPLIT_DEPTH = 3
#: Longest overview of a split topic, in words.
OVERVIEW_WORDS = 60


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


class Shaper:
    """Refines and splits topics; safe to run for several topics at once."""

    def __init__(self, llm: LLM, settings: Settings) -> None:
        self.llm = llm
        self.limits = settings.navigate

    def shape_all(self, topics: list[tuple[str, list[Paragraph]]], on_done: Callable[[int], None] | None = None) -> list[Node]:
        """One subtree per ``(title, notes)``, in order; topics are shaped concurrently (bounded)."""
        done = 0
        lock = threading.Lock()

        def one(topic: tuple[str, list[Paragraph]]) -> Node:
            nonlocal done
            node = self.shape(*topic)
            with lock:
                done += 1
                if on_done is not None:
                    on_done(done)
            return node

        with ThreadPoolExecutor(max_workers=self.limits.concurrency, thread_name_prefix="navicite-shape") as pool:
            return list(pool.map(carry_context(one), topics))

    def shape(self, title: str, notes: list[Paragraph]) -> Node:
        """The node for one topic: refined when it has several notes, split when over budget."""
        paragraphs = notes
        if len(notes) > 1 and _tokens(notes) <= self.limits.leaf_token_budget:
            paragraphs = self.refine(title, notes)
        return self._fit(Node(id="", title=title, paragraphs=paragraphs), depth=0)

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
        reply = ask_json(self.llm, messages, RefineReply, "tree_refine", self.limits.refine_max_tokens)
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

    def _fit(self, node: Node, depth: int) -> Node:
        """``node`` as a leaf when within budget, otherwise split into children (recursively)."""
        if node.tokens <= self.limits.leaf_token_budget:
            node.segments = sorted(node.sources())
            return node
        overview, groups = self._split(node, depth)
        sources = sorted(node.sources())
        children = [self._fit(Node(id="", title=t, paragraphs=ps), depth + 1) for t, ps in groups]
        return Node(id="", title=node.title, paragraphs=[Paragraph(overview, sources)], children=children)

    def _split(self, node: Node, depth: int) -> tuple[str, list[tuple[str, list[Paragraph]]]]:
        """An overview and sub-topic groups; asked of the model, else packed in order."""
        paragraphs = node.paragraphs
        fallback_overview = f"{node.title}: " + "; ".join(_first_words(p.text, 8) for p in paragraphs[:4])
        if depth >= MAX_SPLIT_DEPTH or len(paragraphs) < 2:
            return fallback_overview, self._pack(node.title, paragraphs)
        messages = prompts.render(
            "tree_split",
            title=node.title,
            paragraphs="\n".join(f"P{i}: {p.text}" for i, p in enumerate(paragraphs, 1)),
            max_groups=min(self.limits.max_topics_per_level, len(paragraphs)),
        )
        reply = ask_json(self.llm, messages, SplitReply, "tree_split", self.limits.split_max_tokens)
        groups = _groups_from(reply, paragraphs, node.title) if reply is not None else []
        if reply is None or not 2 <= len(groups) <= self.limits.max_topics_per_level:
            return fallback_overview, self._pack(node.title, paragraphs)
        overview = " ".join(reply.overview.split()[:OVERVIEW_WORDS]) or fallback_overview
        return overview, groups

    def _pack(self, title: str, paragraphs: list[Paragraph]) -> list[tuple[str, list[Paragraph]]]:
        """Consecutive paragraphs packed into parts within budget, titled "<title> (part k)"."""
        budget = self.limits.leaf_token_budget
        pieces = [piece for p in paragraphs for piece in _cut(p, budget)]
        parts: list[list[Paragraph]] = [[]]
        for piece in pieces:
            if parts[-1] and _tokens([*parts[-1], piece]) > budget:
                parts.append([])
            parts[-1].append(piece)
        return [(f"{title} (part {k})", part) for k, part in enumerate(parts, 1)]


def _groups_from(reply: SplitReply, paragraphs: list[Paragraph], parent: str) -> list[tuple[str, list[Paragraph]]]:
    """Valid groups from a split reply: known paragraph numbers, each used once, distinct titles.

    A paragraph no group claims joins the group of the paragraph before it.
    """
    owner: dict[int, int] = {}
    titles: list[str] = []
    for group in reply.groups:
        title = " ".join(group.title.split()).strip(" -*#\"'")[:80]
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
