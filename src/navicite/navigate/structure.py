"""Trees from a document's own structure: its sections are the nodes, its passages the leaves.

Most long documents carry their tree already: a PDF outline, numbered headings, Markdown or
HTML headings (``metadata["sections"]``, see :mod:`navicite.text.sections`). When that
structure is plausible (:func:`structure_of`), :func:`structure_tree` shapes the tree from it
without a model call: one node per section in document order, nested by level; a section's
passages (the same passages the index holds, so segment ``i`` is passage ``<doc>#p<i>``) are
its leaf, packed in order into parts titled by their pages when they exceed the leaf budget;
text before the first heading is a *Front matter* node, an abstract an *Abstract* node, and a
references list (under its own heading, or after a line "References" / "Bibliography") a node
of its own. Leaves carry their first sentences; inner nodes get a first-sentences summary too, which
:mod:`navicite.navigate.summarise` replaces with the model's where navigation needs it: for
nodes over sub-sections (a section cut into page parts keeps its opening sentences).

Implausible structure (too few headings, too many, numbers out of order, most of the text
before the first heading or under one heading) gives a :class:`Structure` with a ``problem``;
the builder then lets the model organise the document as before.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from navicite.config import NavigateSettings
from navicite.documents import Document, Passage
from navicite.text.passages import MIN_PASSAGE_WORDS, heading_anchor
from navicite.text.sections import Section, follows, heading_number, lines_with_offsets
from navicite.text.sentences import split_sentences
from navicite.navigate.organise import number_nodes
from navicite.navigate.shape import bundle, runs_within
from navicite.navigate.tree import KnowledgeTree, Node, Paragraph, SegmentRef, normalise_title, passage_tokens

#: Fewest sections holding passages that make a tree worth its structure.
MIN_SECTIONS = 3
#: Fewest words per heading on average: denser "headings" are list items, table rows or code.
MIN_WORDS_PER_SECTION = 40
#: Largest share of the text before the first heading.
MAX_FRONT_SHARE = 0.35
#: Largest share of the text under one heading directly (before its first sub-heading or the next heading).
MAX_SECTION_SHARE = 0.6
#: Largest share of consecutive numbered headings whose numbers do not follow one another.
MAX_OUT_OF_ORDER = 0.25
#: Words of a leaf's opening kept as its content (what navigation previews).
LEAD_WORDS = 40

FRONT_MATTER = "Front matter"
ABSTRACT = "Abstract"

_BACK_MATTER = re.compile(r"^(?:\d{1,2}\.?\s+)?(?:references|bibliography|works cited|literature cited|literatur)$", re.I)
_EDGE = re.compile(r"^\W+|\W+$")


@dataclass(frozen=True)
class Structure:
    """A document's sections as a tree can use them, or why it cannot.

    ``source`` is ``"outline"`` or ``"headings"`` (empty without sections); ``sections`` are
    sorted by start, with a references heading added where the text has one; ``problem`` is
    empty when the structure is usable, else a short reason for the fallback to the model.
    """

    source: str
    sections: list[Section] = field(default_factory=list)
    problem: str = ""

    @property
    def usable(self) -> bool:
        """Whether a tree can be shaped from these sections."""
        return not self.problem


def structure_of(document: Document) -> Structure:
    """The usable structure of ``document``, or the reason there is none (cheap: no passages are cut,
    so a ``tree build`` that finds every tree current stays quick)."""
    meta = document.metadata
    sections = sorted(
        (s for s in meta.get("sections") or () if isinstance(s, dict) and isinstance(s.get("start"), int) and s.get("title")),
        key=lambda s: s["start"],
    )
    source = "outline" if meta.get("sections_from") == "outline" else "headings"
    if not sections:
        return Structure("", [], "no outline or headings")
    sections = _with_references(document.text, sections)
    problem = _implausible(sections, len(document.text.split()))
    return Structure(source, sections, problem)


def _with_references(text: str, sections: list[Section]) -> list[Section]:
    """``sections`` with a level-1 heading where a line of the text after the first heading says
    "References" or "Bibliography" (the last such line, titled as written) and no heading does."""
    if any(_BACK_MATTER.match(s["title"].strip()) for s in sections):
        return sections
    found = [(start, line.strip()) for line, start in lines_with_offsets(text) if _BACK_MATTER.match(line.strip())]
    after = [(start, title) for start, title in found if start > sections[0]["start"]]
    if not after:
        return sections
    start, title = after[-1]
    return sorted([*sections, {"start": start, "level": 1, "title": title}], key=lambda s: s["start"])


def _implausible(sections: list[Section], words: int) -> str:
    """Why these sections make no believable tree ("" when they do)."""
    if words / len(sections) < MIN_WORDS_PER_SECTION:
        return f"too many headings: {len(sections)} for {words:,} words"
    ends = [s["start"] for s in sections[1:]] + [words]
    # A heading with fewer words before the next one than a passage needs joins the text after it.
    holding = [s for s, end in zip(sections, ends) if end - s["start"] >= MIN_PASSAGE_WORDS]
    if len(holding) < MIN_SECTIONS:
        return f"only {len(holding)} headings with text of their own (fewer than {MIN_SECTIONS})"
    numbers = [n for n in (heading_number(s["title"]) for s in sections) if n is not None]
    pairs = list(zip(numbers, numbers[1:]))
    broken = sum(not follows(a, b) for a, b in pairs)
    if pairs and broken / len(pairs) > MAX_OUT_OF_ORDER:
        return f"headings out of order: {broken} of {len(pairs)} numbers do not follow the one before"
    first = sections[0]["start"]
    if first > MAX_FRONT_SHARE * words:
        return f"the first heading comes after {first / words:.0%} of the text"
    share, title = max(((end - s["start"]) / words, s["title"]) for s, end in zip(sections, ends))
    if share > MAX_SECTION_SHARE:
        return f"one heading ({title!r}) holds {share:.0%} of the text"
    return ""


def _owners(sections: list[Section], passages: list[Passage]) -> list[int]:
    """Per passage, the index of the innermost section it belongs to; -1 before the first heading, -2 for the abstract."""
    starts = [s["start"] for s in sections]
    owners = []
    for p in passages:
        if p.field != "text":
            owners.append(-2)
            continue
        owners.append(bisect_right(starts, heading_anchor(starts, p.start, p.end)) - 1)
    return owners


@dataclass
class _Part:
    """A section while the tree is shaped: its title, passages of its own and sub-sections."""

    title: str
    level: int
    passages: list[int] = field(default_factory=list)
    children: list[_Part] = field(default_factory=list)
    fixed: bool = False  # front matter, abstract, references: summarised without the model


def structure_tree(
    document: Document, passages: list[Passage], structure: Structure, limits: NavigateSettings
) -> tuple[KnowledgeTree, set[str]]:
    """The tree of ``document`` shaped by ``structure`` (not validated, no cost), and the ids of
    its inner nodes whose summaries need no model: front matter, abstract and references, and
    sections only cut into parts by size (their opening sentences say what the parts hold).

    Every inner node carries a first-sentences summary until the model writes a better one.
    """
    refs = [_ref(p) for p in passages]
    sections = structure.sections
    owners = _owners(sections, passages)
    front = _Part(FRONT_MATTER, 1, [i for i, k in enumerate(owners) if k == -1], fixed=True)
    abstract = _Part(ABSTRACT, 1, [i for i, k in enumerate(owners) if k == -2], fixed=True)
    top: list[_Part] = [abstract, front]
    stack: list[_Part] = []
    for k, s in enumerate(sections):
        part = _Part(s["title"], int(s["level"]), [i for i, owner in enumerate(owners) if owner == k],
                     fixed=bool(_BACK_MATTER.match(s["title"].strip())))
        while stack and stack[-1].level >= part.level:
            stack.pop()
        (stack[-1].children if stack else top).append(part)
        stack.append(part)
    shaper = _Shaper(refs, passages, sections, limits)
    children = [node for node in (shaper.node(part) for part in top) if node is not None]
    children = bundle(document.title or document.id, _distinct(children), limits.max_topics_per_level, limits.leaf_token_budget)
    root = Node(id="0", title=document.title or document.id, children=children)
    if len(children) == 1 and children[0].children:
        root.children = children[0].children
    number_nodes(root)
    fixed = {node.id for node, _ in root.walk() if id(node) in shaper.fixed}
    tree = KnowledgeTree(
        doc_id=document.id,
        fingerprint=document.fingerprint,
        root=root,
        segments=refs,
        limits={"leaf_token_budget": limits.leaf_token_budget, "max_topics_per_level": limits.max_topics_per_level},
        source=structure.source,
        units="passages",
    )
    return tree, fixed


def _ref(passage: Passage) -> SegmentRef:
    """A passage as the tree's unit; an abstract's passage has no place in the text (0:0)."""
    if passage.field != "text":
        return SegmentRef(passage.number, 0, 0, passage.text)
    return SegmentRef(passage.number, passage.start, passage.end, passage.text)


class _Shaper:
    """Turns :class:`_Part` sections into nodes: leaves within budget, inner nodes with first-sentences summaries."""

    def __init__(self, refs: list[SegmentRef], passages: list[Passage], sections: list[Section], limits: NavigateSettings) -> None:
        self.refs = refs
        self.passages = passages
        self.limits = limits
        self.budget = limits.leaf_token_budget
        self.heading_starts = [s["start"] for s in sections]
        self.heading_titles = [s["title"] for s in sections]
        self.fixed: set[int] = set()  # id() of nodes summarised without the model

    def node(self, part: _Part) -> Node | None:
        """The subtree of ``part``; None when it holds no passage at all."""
        children = [n for n in (self.node(c) for c in part.children) if n is not None]
        if part.passages and children:
            children.insert(0, self.leaf_or_parts(f"{part.title} (introduction)", part.passages, part.fixed))
        if not children:
            return self.leaf_or_parts(part.title, part.passages, part.fixed) if part.passages else None
        return self.inner(part.title, children, part.fixed)

    def inner(self, title: str, children: list[Node], fixed: bool) -> Node:
        children = bundle(title, _distinct(children), self.limits.max_topics_per_level, self.budget)
        node = Node(id="", title=title, children=children)
        node.paragraphs = [fallback_summary(node, self.lead_of, self.limits.node_summary_words)]
        if fixed:
            self.fixed.add(id(node))
        return node

    def leaf_or_parts(self, title: str, indices: list[int], fixed: bool) -> Node:
        """One leaf over ``indices``, or, over the leaf budget, an inner node over parts titled by their pages."""
        runs = balanced_runs(self.refs, indices, self.budget)
        if len(runs) == 1:
            return self.leaf(title, runs[0])
        labels = [self.pages_label(run) for run in runs]
        parts = [
            self.leaf(f"{title}, {label}" if label and labels.count(label) == 1 else f"{title} (part {k})", run)
            for k, (label, run) in enumerate(zip(labels, runs), 1)
        ]
        # Parts cut by size add nothing a summary could name beyond the section's own opening.
        return self.inner(title, parts, fixed=True)

    def leaf(self, title: str, indices: list[int]) -> Node:
        first = indices[0]
        return Node(id="", title=title, paragraphs=[Paragraph(self.lead_of(first), [first])], segments=list(indices))

    def pages_label(self, run: list[int]) -> str:
        pages = [p for i in run for p in self.passages[i].pages]
        if not pages:
            return ""
        low, high = min(pages), max(pages)
        return f"p. {low}" if low == high else f"pp. {low}-{high}"

    def lead_of(self, index: int) -> str:
        """The first sentences of passage ``index`` from its section's heading on (a passage may
        open with the last words of the section before), the headings themselves left out."""
        passage = self.passages[index]
        text = passage.text
        if passage.field == "text":
            anchor = heading_anchor(self.heading_starts, passage.start, passage.end)
            lo = bisect_right(self.heading_starts, passage.start - 1)
            hi = bisect_right(self.heading_starts, anchor)
            if lo < hi:  # skip to the last heading of the passage's opening, then past its title
                text = _without_heading(" ".join(text.split()[anchor - passage.start:]), self.heading_titles[hi - 1])
        return first_sentences(text, LEAD_WORDS) or first_sentences(passage.text, LEAD_WORDS)


def balanced_runs(refs: list[SegmentRef], indices: list[int], budget: int) -> list[list[int]]:
    """``indices`` in order as the fewest runs within ``budget`` tokens, of about equal size
    (a section of 1.1 budgets gives two halves, not a full part and a scrap)."""
    total = passage_tokens(refs, indices)
    if total <= budget or len(indices) < 2:
        return [list(indices)]
    for parts in range(math.ceil(total / budget), len(indices) + 1):
        runs = runs_within(refs, indices, min(budget, math.ceil(1.15 * total / parts)))
        if len(runs) <= parts:
            return runs
    return runs_within(refs, indices, budget)


def _without_heading(text: str, title: str) -> str:
    """``text`` without ``title`` at its start, after any marks (words compared without case and
    edge punctuation; "Chapter 2: Survival" matches "Chapter 2 Survival", "## Methods" ends "Methods")."""
    words = text.split()
    skip = next((i for i, w in enumerate(words) if _EDGE.sub("", w)), len(words))  # Markdown's "##"
    wanted = [w for w in (_EDGE.sub("", t).casefold() for t in title.split()) if w]
    got = [_EDGE.sub("", w).casefold() for w in words[skip : skip + len(wanted)]]
    return " ".join(words[skip + len(wanted):]) if wanted and got == wanted else text


def first_sentences(text: str, words: int) -> str:
    """Whole sentences from the start of ``text`` up to ``words`` words (the first sentence cut
    at ``words`` when it alone is longer)."""
    text = " ".join(text.split())
    kept: list[str] = []
    count = 0
    for sentence in split_sentences(text):
        size = len(sentence.split())
        if kept and count + size > words:
            break
        kept.append(sentence)
        count += size
        if count >= words:
            break
    out = " ".join(kept)
    cut = out.split()
    return out if len(cut) <= words else " ".join(cut[:words]) + " ..."


def fallback_summary(node: Node, lead_of: Any, words: int) -> Paragraph:
    """A summary without the model: the opening sentences of the node's first passage and its
    children's titles, citing every passage below the node."""
    reachable = sorted(node.reachable_segments())
    titles = "; ".join(c.title for c in node.children)
    opening = first_sentences(lead_of(reachable[0]), max(10, words // 2)) if reachable else ""
    text = " ".join(f"{opening} Sections: {titles}.".split()) if opening else f"Sections: {titles}."
    return Paragraph(first_sentences(text, words * 2), reachable)


def _distinct(nodes: list[Node]) -> list[Node]:
    """``nodes`` with repeated titles numbered ("Examples", "Examples (2)"), as a level needs them distinct."""
    seen: dict[str, int] = {}
    for node in nodes:
        key = normalise_title(node.title)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            node.title = f"{node.title} ({seen[key]})"
    return nodes
