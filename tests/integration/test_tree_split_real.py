"""Split with the real embedded model: a topic whose passages exceed the leaf budget.

Four short passages filed under one topic (two about a harbour, two about a festival),
with a leaf budget of any two passages: the model is asked for at least two
sub-topics (schema-constrained), and whatever it answers, the subtree is valid and
every leaf fits. Usually one split call and two short refine calls.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from navicite.config import load_settings
from navicite.llm.base import LLM
from navicite.navigate.shape import Shaper
from navicite.navigate.tree import (
    KnowledgeTree,
    Node,
    Paragraph,
    SegmentRef,
    passage_tokens,
)
from navicite.navigate.validate import problems

pytestmark = pytest.mark.llm

PASSAGES = [
    ("Bellmoor harbour was dug by hand in 1789 by two hundred labourers paid by the merchant Edith Crane. "
     "For a century it sheltered the herring fleet; eighty boats were registered there in 1862."),
    ("Sand carried by winter storms filled the harbour entrance. The council paid for dredging in 1870, 1884 "
     "and 1899, gave up in 1911 and closed the harbour; the fleet moved to Port Ellis."),
    ("Every August Bellmoor holds a cheese festival on the village green. It began in 1953 when six dairy "
     "farms sold cheese after a poor harvest; today forty producers come."),
    ("On the festival's first day judges award the Golden Wheel prize for the best hard cheese, won eleven "
     "times by Hollow Farm since 1980; the second day has a cheese rolling race."),
]
NOTES = [
    "The harbour was dug by hand in 1789, paid by Edith Crane; 80 boats in 1862.",
    "Storm sand silted the harbour; dredged 1870, 1884, 1899; closed 1911, fleet to Port Ellis.",
    "The cheese festival began in 1953 with six farms; now forty producers each August.",
    "Golden Wheel prize for hard cheese, won eleven times by Hollow Farm; cheese rolling race.",
]


def test_the_real_model_splits_a_topic_over_its_passage_budget(real_llm: LLM, tmp_path: Path) -> None:
    segments, start = [], 0
    for i, text in enumerate(PASSAGES):
        words = len(text.split())
        segments.append(SegmentRef(i, start, start + words, text))
        start += words
    budget = max(128, max(passage_tokens(segments, [a, b]) for a in range(4) for b in range(a + 1, 4)) + 10)
    assert passage_tokens(segments, range(4)) > budget  # the topic cannot be one leaf
    settings = load_settings(tmp_path, [
        f"navigate.leaf_token_budget={budget}", "navigate.split_max_tokens=160",
        "navigate.refine_max_tokens=160", "navigate.concurrency=1",
    ])
    first = len(real_llm.usage.calls)
    topic = Shaper(real_llm, settings).shape("Bellmoor", [Paragraph(n, [i]) for i, n in enumerate(NOTES)], segments)
    stages = [u.stage for u in real_llm.usage.calls[first:]]
    assert stages[0] == "tree_split" and stages.count("tree_split") <= 3 and len(stages) <= 6

    tree = KnowledgeTree("bellmoor", "fp", Node("0", "Bellmoor guide", children=[topic]), segments,
                         limits={"leaf_token_budget": budget, "max_topics_per_level": 12})
    for number, (node, _) in enumerate(tree.nodes()):
        node.id = str(number)  # the organiser numbers nodes; this test shapes one topic alone
    assert problems(tree) == []
    assert not topic.is_leaf and len(topic.children) >= 2
    leaves = [node for node, _ in tree.nodes() if node.is_leaf and node is not tree.root]
    assert sorted(s for leaf in leaves for s in leaf.segments) == [0, 1, 2, 3]
    assert all(passage_tokens(segments, leaf.segments) <= budget for leaf in leaves)
