"""The navigation agent: walks a knowledge tree from the root to the evidence a question needs.

At an inner node one call labels every child EXPLORE, INFO or SKIP; INFO children
give their summary as evidence, EXPLORE children are visited (sibling subtrees
concurrently, at most ``navigate.concurrency`` model calls at once). At a leaf one
call per group of passages picks the original passages. Every call restates the
information gap; the walk stops when the model says the gap is closed or when
``navigate.step_budget`` calls have been made.

The memory variant (``navigate.memory``) first classifies the question. For a
*localised* question it stops at the first closed gap; for a *synthesis* question it
accepts "closed" only once evidence comes from at least two top-level topics. Each step
also records up to three notes, each tied to the entry or passage it was read from.

The evidence comes back breadth first: every step's first pick (in the order the steps
ran), then every step's second pick, and so on. A reader with a token budget then gets
the best of each place the agent looked, not all of the first leaf it read (the small
model tends to pick every passage it is shown, in document order).

With ``navigate.order_entries = "relevance"`` a level lists its children, and a leaf
its passages, by the best BM25 score of the passages under them for the question, and a
step's picks come back in that order too. The embedded 1.5B model explores the first
entry it is shown in four level steps of five (112 of the 140 in the evaluation cache
that explored anything), so in the tree's own order (``"document"``, the default) most
questions about a story go to its opening. On 12 scientific_qa and 10 QuALITY questions
the two orders were level (recall up on one set, down on the other, answers no better),
so the default stays the method's own.

The evidence is then filled up to ``navigate.fill_tokens`` with passages the walk did not
take, best BM25 score for the question first (no model call; passages sharing no word with
the question are left out; the trace records them as a ``fill`` step), after the walk's
picks or alternating with them (``navigate.fill_order``). Without it the walk left a quarter
of a 1,500-token budget unused on 24 scientific_qa questions (1,135 tokens used), and the
memory variant, which closes after a note or two, a third (1,029). With it, answer-in-context
recall there rose from 0.516 to 0.623 (navi) and 0.341 to 0.525 (memory). Alternating
helped the memory variant more (0.660 here, 0.611 vs 0.551 on 20 QuALITY questions) but not
plain navigation (0.587 vs 0.623; 0.615 vs 0.594), so the default keeps the walk's picks first.

A reply the model derails (bad JSON, unknown entry numbers) never ends the walk: a
failed level step explores the child sharing most words with the question, a failed
leaf step keeps the passage sharing most words with it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal, TypeVar

import numpy as np
from pydantic import BaseModel, Field

from navicite import prompts
from navicite.config import Settings
from navicite.lexical import LocalBM25
from navicite.llm.base import LLM, CallOptions, LLMError, Message
from navicite.navigate.evidence import Evidence, Navigation, Note, TraceStep
from navicite.navigate.tree import (
    KnowledgeTree,
    Node,
    SegmentRef,
    token_count,
    words_of,
)

T = TypeVar("T", bound=BaseModel)
#: Top-level topics a synthesis question must draw on before its gap may close.
SYNTHESIS_BRANCHES = 2


class Label(BaseModel):
    """The label of one child entry."""

    entry: int
    label: Literal["EXPLORE", "INFO", "SKIP"]


class NoteReply(BaseModel):
    """A note the memory variant asks for, with the number of its entry or passage."""

    fact: str = Field(max_length=600)
    source: int


class LevelReply(BaseModel):
    """Reply of a level step."""

    labels: list[Label] = Field(max_length=32)
    gap: str = Field("", max_length=600)
    closed: bool = False


class LeafReply(BaseModel):
    """Reply of a leaf step."""

    passages: list[int] = Field(max_length=32)
    gap: str = Field("", max_length=600)
    closed: bool = False


class LevelMemoryReply(LevelReply):
    """Level step of the memory variant."""

    notes: list[NoteReply] = Field(default_factory=list, max_length=3)


class LeafMemoryReply(LeafReply):
    """Leaf step of the memory variant."""

    notes: list[NoteReply] = Field(default_factory=list, max_length=3)


class ClassifyReply(BaseModel):
    """Reply of the memory variant's first step."""

    kind: Literal["localised", "synthesis"]
    gap: str = Field("", max_length=600)


class _Stopped(Exception):
    """Raised to a step that would start after the walk has stopped."""


@dataclass
class _Walk:
    """The state of one navigation, shared by the concurrent subtree visits."""

    question: str
    tree: KnowledgeTree
    result: Navigation
    slots: asyncio.Semaphore
    budget: int
    #: Per evidence key found so far, its position among the picks of the step that found it.
    ranks: dict[tuple[str, str, str, tuple[int, ...]], int] = field(default_factory=dict)
    #: BM25 score of each segment for the question; None keeps document order everywhere.
    scores: np.ndarray | None = None

    @property
    def stopped(self) -> bool:
        return self.result.closed or self.result.steps >= self.budget

    def score(self, segments: Iterable[int]) -> float:
        """The best score among ``segments`` (0 when scores are off or none is known)."""
        if self.scores is None:
            return 0.0
        return max((float(self.scores[i]) for i in segments if 0 <= i < len(self.scores)), default=0.0)

    def ordered(self, nodes: list[Node]) -> list[Node]:
        """``nodes`` by the best score of the passages under them (stable: ties keep document order)."""
        return sorted(nodes, key=lambda n: -self.score(n.reachable_segments()))


class Navigator:
    """Finds evidence for a question in one document's tree."""

    def __init__(self, llm: LLM, settings: Settings, memory: bool | None = None) -> None:
        self.llm = llm
        self.settings = settings
        self.limits = settings.navigate
        self.memory = self.limits.memory if memory is None else memory

    def run(self, question: str, tree: KnowledgeTree, fill_tokens: int | None = None) -> Navigation:
        """Navigate ``tree`` for ``question``; ``fill_tokens`` overrides ``navigate.fill_tokens``
        (a caller sharing one reading budget among several documents gives each its part).

        Blocking, like every stage. Sibling subtrees are visited concurrently (at most
        ``navigate.concurrency`` model calls at once) on a private event loop, whose model calls
        run in worker threads; nothing async leaves this class.
        """
        return asyncio.run(self._navigate(question, tree, fill_tokens))

    async def _navigate(self, question: str, tree: KnowledgeTree, fill_tokens: int | None) -> Navigation:
        if not question.strip():
            raise ValueError("the question is empty")
        target = self.limits.fill_tokens if fill_tokens is None else fill_tokens
        relevance = self.limits.order_entries == "relevance"
        # One BM25 scoring serves both the relevance order and the fill; neither on, none is made.
        scores = LocalBM25([p.text for p in tree.segments]).scores(question) if relevance or target > 0 else None
        walk = _Walk(
            question=question,
            tree=tree,
            result=Navigation(question=question, doc_id=tree.doc_id, gap=question, units=tree.units),
            slots=asyncio.Semaphore(self.limits.concurrency),
            budget=self.limits.step_budget,
            scores=scores if relevance else None,
        )
        if self.memory:
            await self._classify(walk)
        await self._visit(walk, tree.root, (tree.root.title,))
        walk.result.evidence.sort(key=lambda e: walk.ranks[e.key])  # stable: steps keep their order within a rank
        if scores is not None and target > 0:
            self._fill(walk, scores, target)
        return walk.result

    # -- steps ---------------------------------------------------------------------------

    async def _classify(self, walk: _Walk) -> None:
        messages = prompts.render("navigate_classify", question=walk.question, document=walk.tree.root.title)
        try:
            reply, error = await self._ask(walk, messages, ClassifyReply, "navigate_classify")
        except _Stopped:
            return
        walk.result.question_kind = reply.kind if reply else "localised"
        if reply and reply.gap.strip():
            walk.result.gap = reply.gap.strip()
        walk.result.trace.append(
            TraceStep("classify", (walk.tree.root.title,), {"kind": walk.result.question_kind}, walk.result.gap, error)
        )

    async def _visit(self, walk: _Walk, node: Node, path: tuple[str, ...]) -> None:
        if walk.stopped:
            return
        if node.is_leaf:
            await self._leaf(walk, node, path)
            return
        children = walk.ordered(node.children)
        entries = "\n".join(self._entry(i, child) for i, child in enumerate(children, 1))
        messages = prompts.render(
            "navigate_level", question=walk.question, gap=walk.result.gap, location=" > ".join(path), entries=entries
        )
        schema = LevelMemoryReply if self.memory else LevelReply
        try:
            reply, error = await self._ask(walk, self._with_notes(walk, messages), schema, "navigate_level")
        except _Stopped:
            return
        labels = self._labels(reply, len(children))
        info = [children[e - 1] for e, l in labels.items() if l == "INFO"]
        for rank, child in enumerate(info):
            self._add(walk, Evidence(walk.tree.doc_id, "summary", child.content, (*path, child.title), child.id,
                                     tuple(sorted(child.sources()))), rank)
        if reply is not None and isinstance(reply, LevelMemoryReply):
            self._keep_notes(walk, reply.notes, {i: ((*path, c.title), tuple(sorted(c.sources()))) for i, c in enumerate(children, 1)})
        self._update_gap(walk, reply)
        explore = [e for e, l in labels.items() if l == "EXPLORE"]
        if not explore and not walk.result.closed and (error or node is walk.tree.root):
            # A failed step, or a root the walk would leave with the gap open and at most summaries in hand:
            # read the likeliest child's passages anyway, among those not labelled SKIP (a child the
            # model left out has no verdict, and an INFO summary is not the source).
            pool = [e for e in range(1, len(children) + 1) if labels.get(e) != "SKIP"] or list(range(1, len(children) + 1))
            pick = pool[self._closest(walk.question, [children[e - 1].content + " " + children[e - 1].title for e in pool]) - 1]
            labels.setdefault(pick, "EXPLORE")
            explore = [pick]
        walk.result.trace.append(
            TraceStep("level", path, {"labels": {children[e - 1].title: l for e, l in labels.items()}}, walk.result.gap, error)
        )
        await asyncio.gather(*(self._visit(walk, children[e - 1], (*path, children[e - 1].title)) for e in explore))

    async def _leaf(self, walk: _Walk, node: Node, path: tuple[str, ...]) -> None:
        passages = [walk.tree.segments[i] for i in node.segments if 0 <= i < len(walk.tree.segments)]
        passages.sort(key=lambda p: -walk.score([p.index]))
        for group in self._groups(passages):
            if walk.stopped:
                return
            text = "\n".join(f'<passage n="{k}">\n{p.text}\n</passage>' for k, p in enumerate(group, 1))
            messages = prompts.render("navigate_leaf", question=walk.question, gap=walk.result.gap,
                                      location=" > ".join(path), passages=text)
            schema = LeafMemoryReply if self.memory else LeafReply
            try:
                reply, error = await self._ask(walk, self._with_notes(walk, messages), schema, "navigate_leaf")
            except _Stopped:
                return
            if reply is not None:
                chosen = list(dict.fromkeys(k for k in reply.passages if 1 <= k <= len(group)))
                # Best BM25 first: the small model lists what it keeps in document order, and a
                # reader with a token budget may get only the first.
                chosen.sort(key=lambda k: -walk.score([group[k - 1].index]))
            else:
                chosen = [self._closest(walk.question, [p.text for p in group])]
            for rank, k in enumerate(chosen):
                p = group[k - 1]
                self._add(walk, Evidence(walk.tree.doc_id, "passage", p.text, path, node.id, (p.index,), p.start, p.end), rank)
            if reply is not None and isinstance(reply, LeafMemoryReply):
                self._keep_notes(walk, reply.notes, {k: (path, (p.index,)) for k, p in enumerate(group, 1)})
            self._update_gap(walk, reply)
            walk.result.trace.append(
                TraceStep("leaf", path, {"passages": [group[k - 1].index for k in chosen]}, walk.result.gap, error)
            )

    def _fill(self, walk: _Walk, scores: np.ndarray, target: int) -> None:
        """Add passages the walk did not take, best BM25 first, until the evidence has ``target`` tokens.

        ``navigate.fill_order`` "after": they follow the walk's picks, so they only use budget
        the walk left. "interleave": they alternate with the picks from the start (pick,
        passage, pick, ...), so a walk that went to the wrong place still leaves the best
        lexical matches within the budget; picks beyond the target keep their order at the end.
        Passages sharing no word with the question (score 0) are never added.
        """
        leaves = {i: (node, (walk.tree.root.title, *path)) for node, path in walk.tree.nodes() if node.is_leaf for i in node.segments}
        taken = {e.segments[0] for e in walk.result.evidence if e.kind == "passage"}
        pool = deque(
            Evidence(walk.tree.doc_id, "passage", p.text, leaves[p.index][1], leaves[p.index][0].id, (p.index,), p.start, p.end, "fill")
            for p in (walk.tree.segments[int(i)] for i in np.argsort(-scores, kind="stable") if scores[int(i)] > 0)
            if p.index not in taken and p.index in leaves
        )
        picks = deque(walk.result.evidence)
        interleave = self.limits.fill_order == "interleave"
        merged: list[Evidence] = []
        have, lexical_turn = 0, False
        while (picks or pool) and have < target:
            from_pool = bool(pool) and (not picks or (interleave and lexical_turn))
            item = pool.popleft() if from_pool else picks.popleft()
            merged.append(item)
            have += token_count(item.text)
            lexical_turn = not from_pool
        added = [e.segments[0] for e in merged if e.via == "fill"]
        walk.result.evidence = [*merged, *picks]
        if added:
            walk.result.trace.append(TraceStep("fill", (walk.tree.root.title,), {"passages": added}, walk.result.gap))

    # -- helpers ---------------------------------------------------------------------------

    async def _ask(self, walk: _Walk, messages: list[Message], schema: type[T], stage: str) -> tuple[T | None, str | None]:
        """One step's call, counted against the budget; (None, reason) when the model fails.

        Raises:
            _Stopped: the gap closed or the budget ran out while this step waited for a slot.
        """
        options = CallOptions(stage=stage, max_tokens=self.limits.navigate_max_tokens, temperature=0.0)
        async with walk.slots:
            if walk.stopped:
                raise _Stopped
            walk.result.steps += 1  # counted before awaiting, so concurrent visits cannot overrun the budget
            try:
                return await asyncio.to_thread(self.llm.complete_json, messages, schema, options), None
            except LLMError as exc:
                return None, str(exc)

    def _with_notes(self, walk: _Walk, messages: list[Message]) -> list[Message]:
        if not self.memory:
            return messages
        notes = "\n".join(f"- {n.fact}" for n in walk.result.notes) or "(none yet)"
        return [*messages, *prompts.render("navigate_notes", notes=notes)]

    def _entry(self, number: int, child: Node) -> str:
        size = f"{len(child.children)} sub-topics" if child.children else f"{len(child.segments)} passages"
        words = child.content.split()
        preview = " ".join(words[: self.limits.preview_words]) + (" ..." if len(words) > self.limits.preview_words else "")
        return f"[{number}] {child.title} ({size}): {preview}"

    def _labels(self, reply: LevelReply | None, count: int) -> dict[int, str]:
        if reply is None:
            return {}
        labels: dict[int, str] = {}
        for item in reply.labels:
            if 1 <= item.entry <= count and item.entry not in labels:
                labels[item.entry] = item.label
        return labels

    def _closest(self, question: str, texts: list[str]) -> int:
        """Number (from 1) of the text sharing most words with the question."""
        probe = words_of(question)
        scores = [len(probe & words_of(t)) for t in texts]
        return scores.index(max(scores)) + 1

    def _groups(self, passages: list[SegmentRef]) -> list[list[SegmentRef]]:
        """Passages in groups of at most ``leaf_prompt_tokens`` tokens (a longer passage goes alone)."""
        groups: list[list[SegmentRef]] = []
        size = 0
        for p in passages:
            tokens = token_count(p.text)
            if not groups or size + tokens > self.limits.leaf_prompt_tokens:
                groups.append([])
                size = 0
            groups[-1].append(p)
            size += tokens
        return groups

    def _add(self, walk: _Walk, evidence: Evidence, rank: int) -> None:
        if evidence.text.strip() and evidence.key not in walk.ranks:
            walk.ranks[evidence.key] = rank
            walk.result.evidence.append(evidence)

    def _keep_notes(self, walk: _Walk, notes: list[NoteReply], sources: dict[int, tuple[tuple[str, ...], tuple[int, ...]]]) -> None:
        known = {n.fact.lower() for n in walk.result.notes}
        for note in notes:
            fact = " ".join(note.fact.split())
            if fact and note.source in sources and fact.lower() not in known:
                path, segments = sources[note.source]
                walk.result.notes.append(Note(fact, path, segments))
                known.add(fact.lower())

    def _update_gap(self, walk: _Walk, reply: LevelReply | LeafReply | None) -> None:
        if reply is None:
            return
        if reply.gap.strip():
            walk.result.gap = reply.gap.strip()
        if reply.closed and walk.result.evidence and self._may_close(walk):
            walk.result.closed = True

    def _may_close(self, walk: _Walk) -> bool:
        if walk.result.question_kind != "synthesis":
            return True
        branches = {e.path[1] for e in walk.result.evidence if len(e.path) > 1}
        return len(branches) >= SYNTHESIS_BRANCHES
