"""A tree as a plain-text outline: titles, sizes and source spans, one node per line."""

from __future__ import annotations

from navicite.navigate.tree import KnowledgeTree, Node, passage_tokens


def spans(indices: list[int]) -> str:
    """Segment indices as compact ranges, e.g. ``0-2,5``."""
    ranges: list[list[int]] = []
    for i in sorted(set(indices)):
        if ranges and ranges[-1][1] == i - 1:
            ranges[-1][1] = i
        else:
            ranges.append([i, i])
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in ranges)


def outline_lines(tree: KnowledgeTree, preview_words: int = 14) -> list[str]:
    """The outline of ``tree``: per node its title, content tokens (a leaf's passage tokens too), segments and word span, and a preview."""
    c = tree.cost
    replayed = f" and {c.cache_hits} answers from the cache" if c.cache_hits else ""
    shape = "organised by the model" if tree.source == "llm" else f"shaped by its {tree.source}"
    lines = [
        f"{tree.root.title}  [{tree.doc_id}]  {len(tree.segments)} {tree.units}, {sum(1 for _ in tree.nodes())} nodes, "
        f"{shape}, built with {c.calls} calls ({c.calls_per_1k_tokens:.2f} per 1,000 tokens){replayed}"
    ]
    for child in tree.root.children:
        lines.extend(_lines(tree, child, 1, preview_words))
    return lines


def _lines(tree: KnowledgeTree, node: Node, depth: int, preview_words: int) -> list[str]:
    segments = sorted(node.reachable_segments())
    words = [(tree.segments[i].start, tree.segments[i].end) for i in segments if 0 <= i < len(tree.segments)]
    span = f"words {min(a for a, _ in words)}-{max(b for _, b in words)}" if words else "no words"
    kind = f"leaf of {passage_tokens(tree.segments, node.segments):,} passage tok" if node.is_leaf else f"{len(node.children)} children"
    preview = " ".join(node.content.split()[:preview_words])
    line = f"{'  ' * depth}- {node.title}  ({node.tokens} tok, {kind}, segments {spans(segments)}, {span})  {preview}..."
    out = [line]
    for child in node.children:
        out.extend(_lines(tree, child, depth + 1, preview_words))
    return out
