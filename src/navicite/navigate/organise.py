"""Organise: place a long document's segments into a tree of titled topics.

The call plan keeps the cost near one call per segment:

1. *select* (with *create*): one call per batch of ``navigate.segments_per_call``
   segments files each segment under at most ``titles_per_segment`` titles of the
   top level, naming a new title when none fits (while the level has room), and
   summarises what the segment says for each title. Batches run in order because
   each sees the titles made so far.
2. *merge* happens in code: a topic's summaries are concatenated, each marked with
   its segment index, and topics whose summaries cite the same passages become one.
3. *split* and *refine* (:mod:`navicite.navigate.shape`): per topic at the end,
   concurrently: a topic over the leaf budget (its summaries, or the original passages
   they come from) is split into sub-topics until every leaf fits, and a leaf with
   several summaries is rewritten as cited paragraphs. These calls are optional (each
   has a fallback without the model) and stop once the build has made
   ``navigate.max_calls_per_segment`` calls per segment.

The select reply's schema asks for exactly one entry per segment, so a
schema-constrained backend cannot skip one. A segment the model still leaves
unplaced (bad JSON, empty titles or summaries) is asked again in a smaller batch,
alone, then by one *create* call and, if that fails too, filed under a title made
from its own words: every segment stays reachable and the tree is never stored broken.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from pydantic import BaseModel, Field, create_model

from navicite import prompts
from navicite.config import Settings
from navicite.documents import Document, Segment
from navicite.llm.base import LLM, Usage, usage_scope
from navicite.navigate.ask import CallBudget, ask_json
from navicite.navigate.shape import Shaper
from navicite.navigate.tree import (
    BuildCost,
    KnowledgeTree,
    Node,
    Paragraph,
    SegmentRef,
    normalise_title,
    token_count,
    words_of,
)
from navicite.navigate.validate import check

_NOTHING = re.compile(
    r"\b(?:does not|doesn't|do not|did not)\s+(?:contain|mention|include|discuss|provide|say|describe)\b"
    r"|\bno (?:information|mention|details?) (?:about|on|of|regarding)\b",
    re.I,
)
_META_OPENING = re.compile(
    r"^(?:the|this) (?:passage|text|segment|section|excerpt)\s+(?:states|says|notes|mentions|explains|reports|shows|discusses|describes|covers)\s+(?:that\s+)?",
    re.I,
)
#: Longest title kept from a model reply, in characters.
MAX_TITLE_CHARS = 80


class TopicPick(BaseModel):
    """One title chosen for a segment and what the segment says about it."""

    title: str = Field(max_length=200)
    summary: str = Field(max_length=2000)


class SegmentPicks(BaseModel):
    """The titles chosen for one segment."""

    segment: int
    topics: list[TopicPick] = Field(min_length=1, max_length=8)


class SelectReply(BaseModel):
    """The reply of one select call."""

    segments: list[SegmentPicks] = Field(max_length=16)


@lru_cache(maxsize=16)
def select_schema(count: int) -> type[SelectReply]:
    """:class:`SelectReply` with exactly ``count`` segment entries, each with at least one title.

    Backends that constrain output to the schema then cannot leave a segment out, which
    small models otherwise do when given several.
    """
    return create_model(
        f"SelectReply{count}",
        __base__=SelectReply,
        segments=(list[SegmentPicks], Field(min_length=count, max_length=count)),
    )


class CreateReply(BaseModel):
    """The reply of one create call."""

    title: str = Field(max_length=200)
    summary: str = Field(max_length=2000)


@dataclass(frozen=True)
class BuildProgress:
    """Where a build is: phase, steps done of total, and model calls and tokens so far."""

    doc_id: str
    phase: str
    done: int
    total: int
    calls: int
    tokens: int


ProgressFn = Callable[[BuildProgress], None]


@dataclass
class Topic:
    """A top-level topic while the tree grows: its title and the summaries filed under it."""

    title: str
    notes: list[Paragraph]


def clean_summary(summary: str) -> str:
    """A model's summary tidied; empty when it only says the segment has nothing on the topic.

    Small models often file a segment under a title only to write "the passage does not
    mention ...", and open summaries with "The passage states that"; neither is content.
    """
    summary = " ".join(summary.split())
    if _NOTHING.search(summary):
        return ""
    summary = _META_OPENING.sub("", summary)
    return summary[:1].upper() + summary[1:]


def clean_title(title: str) -> str:
    """A model's title tidied: single spaces, no quotes or list marks, at most MAX_TITLE_CHARS characters."""
    title = " ".join(title.split()).strip(" -*#\"'`")
    return title[:MAX_TITLE_CHARS].rstrip()


class Organiser:
    """Builds the knowledge tree of one document from its segments."""

    STAGES = ("tree_select", "tree_create", "tree_refine", "tree_split", "tree_name_parts")

    def __init__(self, llm: LLM, settings: Settings, progress: ProgressFn | None = None) -> None:
        self.llm = llm
        self.settings = settings
        self.limits = settings.navigate
        self.progress = progress

    def run(self, document: Document, segments: list[Segment]) -> KnowledgeTree:
        """The validated tree of ``document`` over ``segments`` (indices 0..n-1).

        Raises:
            TreeInvariantError: the repaired tree still breaks an invariant (a bug, not a model fault).
            LLMUnavailableError: the model cannot be reached at all.
        """
        if not segments:
            raise ValueError(f"document {document.id!r} has no text to organise")
        name = document.title or document.id
        started = time.perf_counter()
        # The build's own calls only: other builds or questions may share the model meanwhile.
        with usage_scope() as calls:
            topics: dict[str, Topic] = {}
            batches = self._batches(segments)
            self._report(document.id, "select", 0, len(batches), calls)
            for done, batch in enumerate(batches, 1):
                self._place_batch(name, batch, topics)
                self._report(document.id, "select", done, len(batches), calls)
            ordered = merge_same_span(list(topics.values()))
            refs = [SegmentRef(s.index, s.start, s.end, s.text) for s in segments]
            budget = self._budget(len(segments), calls)
            children = Shaper(self.llm, self.settings, budget).shape_all(
                [(t.title, t.notes) for t in ordered],
                refs,
                on_done=lambda phase, done, total: self._report(document.id, phase, done, total, calls),
            )
        root = Node(id="0", title=name, children=children)
        if len(children) == 1 and children[0].children:
            # One topic for the whole document (small models often name it after the document):
            # its sub-topics become the top level instead of a level with a single choice.
            root.paragraphs, root.children = children[0].paragraphs, children[0].children
        number_nodes(root)
        tree = KnowledgeTree(
            doc_id=document.id,
            fingerprint=document.fingerprint,
            root=root,
            segments=refs,
            limits={
                "leaf_token_budget": self.limits.leaf_token_budget,
                "max_topics_per_level": self.limits.max_topics_per_level,
            },
        )
        check(tree)
        tree.cost = build_cost(calls, self.STAGES, budget, started, document, len(segments))
        return tree

    def _budget(self, segments: int, calls: list[Usage]) -> CallBudget:
        """The optional calls left once every segment is placed: the build's goal minus what select and create took.

        Cache hits count too, so a rebuild from the cache makes the same choices.
        """
        per_segment = self.limits.max_calls_per_segment
        if not per_segment:
            return CallBudget()
        spent = sum(1 for u in list(calls) if u.stage in ("tree_select", "tree_create"))
        return CallBudget(max(0, math.floor(per_segment * segments) - spent))

    # -- select and create -----------------------------------------------------------------

    def _batches(self, segments: list[Segment]) -> list[list[Segment]]:
        """Consecutive groups of segments, each small enough for one select prompt."""
        room = self._context() - self.limits.select_max_tokens - 600  # instructions and titles
        batches: list[list[Segment]] = []
        for seg in segments:
            last = batches[-1] if batches else None
            if (
                last is not None
                and len(last) < self.limits.segments_per_call
                and sum(token_count(s.text) for s in last) + token_count(seg.text) <= room
            ):
                last.append(seg)
            else:
                batches.append([seg])
        return batches

    def _context(self) -> int:
        return int(getattr(self.llm, "context_size", None) or self.settings.llm.context_size)

    def _place_batch(self, name: str, batch: list[Segment], topics: dict[str, Topic]) -> None:
        """File every segment of ``batch``; segments the reply left out are asked again in smaller batches."""
        picks = self._select(name, batch, topics)
        missing = []
        for seg in batch:
            placed = [self._file(p.title, p.summary, seg.index, topics) for p in picks.get(seg.index, [])]
            if not any(placed):
                missing.append(seg)
        if not missing:
            return
        if len(batch) == 1:
            self._create(name, batch[0], topics)
        elif len(missing) < len(batch):
            self._place_batch(name, missing, topics)
        else:
            for seg in missing:
                self._place_batch(name, [seg], topics)

    def _select(self, name: str, batch: list[Segment], topics: dict[str, Topic]) -> dict[int, list[TopicPick]]:
        """The picks per segment index of one select call; a failed call yields none (then create repairs)."""
        messages = prompts.render(
            "tree_select",
            document=name,
            titles=self._title_list(topics),
            new_titles=self._new_title_rule(topics),
            per_segment=self.limits.titles_per_segment,
            words=self.limits.summary_words,
            segments="\n".join(f'<segment n="{s.index}">\n{s.text}\n</segment>' for s in batch),
        )
        reply = ask_json(self.llm, messages, select_schema(len(batch)), "tree_select", self.limits.select_max_tokens)
        if reply is None:
            if len(batch) == 1:
                return {}
            merged: dict[int, list[TopicPick]] = {}
            for seg in batch:  # a batch the model could not answer is retried one segment at a time
                merged.update(self._select(name, [seg], topics))
            return merged
        wanted = [s.index for s in batch]
        picks: dict[int, list[TopicPick]] = {}
        entries = reply.segments
        positional = len(entries) == len(batch) and any(e.segment not in wanted for e in entries)
        for position, entry in enumerate(entries):
            index = wanted[position] if positional else entry.segment
            if index in wanted:
                picks.setdefault(index, []).extend(entry.topics)
        return {i: p[: self.limits.max_titles] for i, p in picks.items()}

    def _create(self, name: str, seg: Segment, topics: dict[str, Topic]) -> None:
        """Place a segment the select call left out: one create call, else a title from its own words."""
        messages = prompts.render(
            "tree_create", document=name, titles=self._title_list(topics), words=self.limits.summary_words, segment=seg.text
        )
        reply = ask_json(self.llm, messages, CreateReply, "tree_create", self.limits.summary_words * 4 + 64)
        if reply is not None and self._file(reply.title, reply.summary, seg.index, topics):
            return
        words = seg.text.split()
        summary = " ".join(words[: self.limits.summary_words])
        title = f"Passage {seg.index + 1}: " + " ".join(words[:5])
        if not self._file(title, summary, seg.index, topics):
            self._file_nearest(summary, seg.index, topics)

    def _file(self, title: str, summary: str, index: int, topics: dict[str, Topic]) -> bool:
        """Add a summary under ``title`` (new or existing); False when title or summary is unusable."""
        title, summary = clean_title(title), clean_summary(summary)
        key = normalise_title(title)
        if not key or not summary:
            return False
        summary = _cap_words(summary, self.limits.summary_words * 2)
        topic = topics.get(key)
        if topic is None:
            if len(topics) >= self.limits.max_topics_per_level:
                return self._file_nearest(f"{title} {summary}", index, topics, summary)
            topic = topics[key] = Topic(title, [])
        if any(n.sources == [index] and n.text == summary for n in topic.notes):
            return True
        topic.notes.append(Paragraph(summary, [index]))
        return True

    def _file_nearest(self, text: str, index: int, topics: dict[str, Topic], summary: str | None = None) -> bool:
        """File under the existing topic sharing most words with ``text`` (the level is full)."""
        if not topics:
            return False
        probe = words_of(text)
        best = max(topics.values(), key=lambda t: len(probe & words_of(t.title + " " + " ".join(n.text for n in t.notes))))
        best.notes.append(Paragraph(summary or text, [index]))
        return True

    def _title_list(self, topics: dict[str, Topic]) -> str:
        if not topics:
            return "(none yet)"
        return "\n".join(f"- {t.title}" for t in topics.values())

    def _new_title_rule(self, topics: dict[str, Topic]) -> str:
        room = self.limits.max_topics_per_level - len(topics)
        if room <= 0:
            return "The list is full: use only titles from the list."
        return (
            f"When no existing title fits, write a new title (2 to 6 words, concrete, clearly different from the "
            f"existing ones); at most {room} new titles in all."
        )

    # -- shared ------------------------------------------------------------------------------

    def _report(self, doc_id: str, phase: str, done: int, total: int, calls: list[Usage]) -> None:
        if self.progress is None:
            return
        cost = cost_of(calls, self.STAGES)
        self.progress(BuildProgress(doc_id, phase, done, total, cost.calls, cost.prompt_tokens + cost.completion_tokens))


def cost_of(calls: Iterable[Usage], stages: tuple[str, ...]) -> BuildCost:
    """Calls and tokens of ``stages`` among ``calls`` (one build's, from :func:`usage_scope`).

    Cache hits are counted apart: they cost no model time, so ``calls`` excludes them.
    """
    cost = BuildCost()
    for usage in list(calls):  # a copy: shaping threads may still be appending
        if usage.stage not in stages:
            continue
        if usage.cache_hit:
            cost.cache_hits += 1
            continue
        cost.calls += 1
        cost.prompt_tokens += usage.prompt_tokens
        cost.completion_tokens += usage.completion_tokens
    return cost


def build_cost(calls: Iterable[Usage], stages: tuple[str, ...], budget: CallBudget, started: float, document: Document, units: int) -> BuildCost:
    """The cost of one build: its calls of ``stages``, declined optional calls, seconds since
    ``started`` (a ``perf_counter`` reading), the document's tokens and its ``units`` (segments or passages)."""
    cost = cost_of(calls, stages)
    cost.declined_calls = budget.declined
    cost.seconds = time.perf_counter() - started
    cost.document_tokens = token_count(f"{document.abstract}\n{document.text}")
    cost.segments = units
    return cost


def merge_same_span(topics: list[Topic]) -> list[Topic]:
    """Topics whose notes cite exactly the same two or more segments, as one topic each.

    A small model files a research paper's segments under several titles each, so topics
    like "Data collection" and "Annotation levels" can come to cover the same passages;
    split apart they grow identical subtrees, paid for once per title, and navigation
    reads the same passages under every one. One topic keeps the first title, with the
    others added while the title stays within MAX_TITLE_CHARS, and all their notes.
    """
    merged: dict[frozenset[int], Topic] = {}
    kept: list[Topic] = []
    for topic in topics:
        span = frozenset(s for n in topic.notes for s in n.sources)
        twin = merged.get(span) if len(span) > 1 else None
        if twin is None:
            merged[span] = Topic(topic.title, list(topic.notes))
            kept.append(merged[span])
            continue
        joined = f"{twin.title}; {topic.title}"
        if len(joined) <= MAX_TITLE_CHARS:
            twin.title = joined
        twin.notes.extend(topic.notes)
    return kept


def _cap_words(text: str, limit: int) -> str:
    words = text.split()
    return text if len(words) <= limit else " ".join(words[:limit])


def number_nodes(node: Node) -> None:
    """Give every descendant an id from its position: root 0, its children 0.1, 0.2, ..."""
    for position, child in enumerate(node.children, 1):
        child.id = f"{node.id}.{position}"
        number_nodes(child)
