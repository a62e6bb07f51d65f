"""Summaries of a structure tree's inner nodes: several nodes per call, deepest first.

A structure tree (:mod:`navicite.navigate.structure`) takes its shape and titles from the
document; what navigation still needs is, for each node with children, a short account of
what lies below it. One *summarise* call writes up to ``navigate.summaries_per_call`` of them
from what the tree already holds (each child's title and opening sentences or summary). Calls
go bottom-up, so a chapter's summary is written from its sections' summaries; a call never
holds a node together with one of its children.

Every reply is checked: a bad or declined call, a missing entry, an empty text, one that only
repeats the title or says the text has nothing, leaves that node its first-sentences summary.
Summaries are remembered by what they were written from (``memo``), so a rebuild asks only
for nodes whose prompt changed: a section whose opening changed, and the nodes above it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from functools import lru_cache

from pydantic import BaseModel, Field, create_model

from navicite import prompts
from navicite.config import Settings
from navicite.llm.base import LLM
from navicite.navigate.ask import CallBudget, ask_json
from navicite.navigate.organise import clean_summary
from navicite.navigate.structure import first_sentences
from navicite.navigate.tree import KnowledgeTree, Node, Paragraph, normalise_title
from navicite.text.sentences import split_sentences

#: Most words one section shows in a summarise prompt (its children share them).
SECTION_PROMPT_WORDS = 260
#: Words shown per child, at most and at least.
CHILD_WORDS = (30, 10)
#: Most words of sections in one prompt.
PROMPT_WORDS = 1400
#: Characters allowed per asked word of a summary (English averages about six with the space).
CHARS_PER_WORD = 8

# "This section provides an overview of ..." says nothing a reader of the tree needs.
_SIGNPOST = re.compile(
    r"^(?:this|the) (?:section|chapter|part)\s+(?:provides|gives|presents|offers|discusses|describes|covers|explains|introduces|"
    r"contains|details|deals with|is about)\s+(?:an overview of|a summary of|an introduction to|a description of)?\s*",
    re.I,
)


class NodeSummary(BaseModel):
    """One section's summary, by its number in the prompt."""

    n: int
    summary: str = Field(max_length=1500)


class SummaryReply(BaseModel):
    """The reply of one summarise call."""

    summaries: list[NodeSummary] = Field(max_length=16)


@lru_cache(maxsize=64)
def summary_schema(count: int, chars: int) -> type[SummaryReply]:
    """:class:`SummaryReply` with exactly ``count`` entries of at most ``chars`` characters each.

    A backend that constrains output to the schema then cannot skip a section, nor write one
    summary so long that the reply is cut off (the 1.5B model ignores the asked word count).
    """
    entry = create_model(f"NodeSummary{chars}", __base__=NodeSummary, summary=(str, Field(max_length=chars)))
    return create_model(
        f"SummaryReply{count}x{chars}",
        __base__=SummaryReply,
        summaries=(list[entry], Field(min_length=count, max_length=count)),  # type: ignore[valid-type]
    )


class Summariser:
    """Writes the summaries of one structure tree's inner nodes in place."""

    def __init__(self, llm: LLM, settings: Settings, budget: CallBudget | None = None, memo: dict[str, str] | None = None) -> None:
        self.llm = llm
        self.limits = settings.navigate
        self.budget = budget or CallBudget()
        self.memo = dict(memo or {})

    def run(
        self, tree: KnowledgeTree, fixed: frozenset[str] | set[str] = frozenset(),
        on_done: Callable[[int, int], None] | None = None,
    ) -> dict[str, str]:
        """Summarise every inner node of ``tree`` but the root and those in ``fixed``; returns the
        summaries by key (those reused from the memo and those the model wrote), the next build's memo.

        A key is what the prompt shows of the node (its title and its children's titles and
        openings or summaries): the summary is written from that alone, so a change the prompt
        would not show asks nothing, and a changed section's opening asks again for the summaries
        above it, each in turn. ``on_done(calls, expected)`` follows the calls (``expected`` is an
        estimate until the end).
        """
        root = tree.root
        document = root.title
        wanted = {id(n) for n, _ in root.walk() if n is not root and n.children and n.id not in fixed}
        targets = _bottom_up(root, wanted)
        expected = -(-len(targets) // self.limits.summaries_per_call)
        kept: dict[str, str] = {}
        batch: list[tuple[Node, str, str]] = []
        calls = 0

        def flush() -> None:
            nonlocal batch, calls
            if batch:
                kept.update(self._summarise(document, batch))
                calls += 1
                if on_done is not None:
                    on_done(calls, max(calls, expected))
            batch = []

        for node in targets:
            if any(child is waiting for waiting, _, _ in batch for child in node.children):
                flush()  # the parent's prompt shows its children's summaries: they come first
            block = self._block(node)
            key = _key(document, node.title, block)
            if key in self.memo:
                self._set(node, self.memo[key])
                kept[key] = self.memo[key]
                continue
            words = sum(len(b.split()) for _, b, _ in batch) + len(block.split())
            if len(batch) >= self.limits.summaries_per_call or (batch and words > PROMPT_WORDS):
                flush()
            batch.append((node, block, key))
        flush()
        if on_done is not None and calls < expected:
            on_done(calls, calls)
        return kept

    def _summarise(self, document: str, batch: list[tuple[Node, str, str]]) -> dict[str, str]:
        """One call for ``batch`` (nodes with their prompt blocks and keys); the summaries the model
        wrote by key (a node left with its fallback stays out of the memo, so it is asked again next time)."""
        messages = prompts.render(
            "tree_summarise",
            document=document,
            count=len(batch),
            words=self.limits.node_summary_words,
            sections="\n".join(
                f'<section n="{k}" title="{_attr(node.title)}">\n{block}\n</section>' for k, (node, block, _) in enumerate(batch, 1)
            ),
        )
        words = self.limits.node_summary_words
        # Each summary is bounded in characters; the reply has room for all of them in indented JSON.
        chars = words * CHARS_PER_WORD
        max_tokens = len(batch) * (chars // 3 + 24) + 48
        reply = ask_json(self.llm, messages, summary_schema(len(batch), chars), "tree_summarise", max_tokens, self.budget)
        replies = _by_number(reply, len(batch)) if reply is not None else {}
        written: dict[str, str] = {}
        for k, (node, _, key) in enumerate(batch, 1):
            text = _usable(replies.get(k, ""), node.title, words)
            if text:
                self._set(node, text)
                written[key] = text
        return written

    def _set(self, node: Node, text: str) -> None:
        node.paragraphs = [Paragraph(text, sorted(node.reachable_segments()))]

    def _block(self, node: Node) -> str:
        """What the prompt shows of ``node``: each child's title with its opening sentences or summary."""
        per_child = max(CHILD_WORDS[1], min(CHILD_WORDS[0], SECTION_PROMPT_WORDS // max(1, len(node.children))))
        return "\n".join(f"- {child.title}: {first_sentences(child.content, per_child)}" for child in node.children)


def _bottom_up(root: Node, targets: set[int]) -> list[Node]:
    """The nodes whose ``id()`` is in ``targets``, those with no target below them first, then
    those over them, ..., in document order within a rank (what one call can hold together)."""
    ranks: dict[int, int] = {}

    def rank(node: Node) -> int:  # 0 for a node no summary below it waits on
        below = max((rank(c) for c in node.children), default=0)
        ranks[id(node)] = below + 1 if id(node) in targets else below
        return ranks[id(node)]

    rank(root)
    order = [n for n, _ in root.walk() if id(n) in targets]
    return sorted(order, key=lambda n: ranks[id(n)])  # stable: document order within a rank


def _by_number(reply: SummaryReply, count: int) -> dict[int, str]:
    """The reply's texts by section number; by position when the numbers are not 1..count but the count is right."""
    entries = reply.summaries
    numbers = [e.n for e in entries]
    if sorted(numbers) != list(range(1, count + 1)) and len(entries) == count:
        return {k: e.summary for k, e in enumerate(entries, 1)}
    return {e.n: e.summary for e in entries if 1 <= e.n <= count}


def _usable(text: str, title: str, words: int) -> str:
    """A model's summary tidied ("This section provides an overview of" dropped), or empty when it
    is no summary (blank, the title again, "does not mention")."""
    text = clean_summary(_SIGNPOST.sub("", " ".join(text.split())))
    if not text or normalise_title(text) == normalise_title(title) or len(text.split()) < 3:
        return ""
    if not text.rstrip().endswith((".", "!", "?")):  # cut at its length limit
        sentences = split_sentences(text)
        # Its whole sentences; a single sentence loses its last (perhaps broken) word.
        text = " ".join(sentences[:-1]) if len(sentences) > 1 else " ".join(text.split()[:-1]).rstrip(",;:") + " ..."
    return first_sentences(text, 2 * words)


def _key(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\x1f")
    return digest.hexdigest()[:24]


def _attr(title: str) -> str:
    return title.replace('"', "'")
