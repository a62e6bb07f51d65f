"""The invariants of a knowledge tree, checked after every build and in tests.

A tree is valid when every segment is reachable from the root through a leaf, every
source index in any node's content names an existing segment, no node's content is
over the token budget, no leaf points to more original text than that budget (a leaf
of one segment is as small as a leaf gets), no node has more children than a level may
hold, and the titles below one parent are non-empty and distinct.
"""

from __future__ import annotations

from navicite.errors import NaviciteError
from navicite.navigate.tree import KnowledgeTree, normalise_title, passage_tokens


class TreeInvariantError(NaviciteError):
    """A tree broke one or more invariants; the message lists them."""

    def __init__(self, doc_id: str, problems: list[str]) -> None:
        self.problems = problems
        shown = "; ".join(problems[:8]) + (f"; and {len(problems) - 8} more" if len(problems) > 8 else "")
        super().__init__(f"the knowledge tree of {doc_id!r} is invalid: {shown}")


def problems(tree: KnowledgeTree, token_budget: int | None = None, max_children: int | None = None) -> list[str]:
    """Every broken invariant of ``tree`` as a sentence; empty when the tree is valid.

    ``token_budget`` and ``max_children`` default to the limits the tree was built with.
    """
    budget = token_budget or tree.limits.get("leaf_token_budget")
    width = max_children or tree.limits.get("max_topics_per_level")
    count = len(tree.segments)
    found: list[str] = []
    if [s.index for s in tree.segments] != list(range(count)):
        found.append("segment indices are not 0..n-1 in order")
    if count == 0:
        found.append("the tree has no segments")
    seen_ids: set[str] = set()
    for node, path in tree.nodes():
        where = " / ".join(path) or "root"
        if node.id in seen_ids:
            found.append(f"node id {node.id} occurs twice")
        seen_ids.add(node.id)
        if node is not tree.root and not node.title.strip():
            found.append(f"a node below {' / '.join(path[:-1]) or 'root'} has an empty title")
        bad = sorted(s for s in node.sources() | set(node.segments) if not 0 <= s < count)
        if bad:
            found.append(f"{where}: source indices {bad} name no segment (there are {count})")
        if any(not p.text.strip() or not p.sources for p in node.paragraphs):
            found.append(f"{where}: a paragraph is empty or cites no segment")
        if budget and node.tokens > budget:
            found.append(f"{where}: {node.tokens} tokens, over the budget of {budget}")
        if budget and node.is_leaf and len(set(node.segments)) > 1:
            passages = passage_tokens(tree.segments, node.segments)
            if passages > budget:
                found.append(f"{where}: its passages have {passages} tokens, over the budget of {budget}")
        if width and len(node.children) > width:
            found.append(f"{where}: {len(node.children)} children, more than {width} per level")
        if node.is_leaf and node is not tree.root and not node.segments:
            found.append(f"{where}: a leaf that points to no segment")
        titles = [normalise_title(c.title) for c in node.children]
        duplicates = sorted({t for t in titles if titles.count(t) > 1 and t})
        if duplicates:
            found.append(f"{where}: titles repeated among its children: {duplicates}")
    unreachable = sorted(set(range(count)) - tree.root.reachable_segments())
    if unreachable:
        found.append(f"segments {unreachable} are not reachable from the root")
    return found


def check(tree: KnowledgeTree, token_budget: int | None = None, max_children: int | None = None) -> None:
    """Raise :class:`TreeInvariantError` when ``tree`` breaks an invariant."""
    found = problems(tree, token_budget, max_children)
    if found:
        raise TreeInvariantError(tree.doc_id, found)
