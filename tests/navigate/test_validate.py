"""The tree validator: a valid tree passes, each broken invariant is named."""

from __future__ import annotations

import pytest

from navicite.navigate.tree import KnowledgeTree, Node, Paragraph, SegmentRef
from navicite.navigate.validate import TreeInvariantError, check, problems


def small_tree() -> KnowledgeTree:
    segments = [SegmentRef(i, i * 10, i * 10 + 10, f"text {i}") for i in range(3)]
    a = Node("0.1", "Alpha", [Paragraph("About alpha.", [0, 1])], segments=[0, 1])
    b1 = Node("0.2.1", "Beta one", [Paragraph("Beta detail.", [2])], segments=[2])
    b = Node("0.2", "Beta", [Paragraph("Beta overview.", [2])], children=[b1])
    root = Node("0", "Doc", children=[a, b])
    return KnowledgeTree("d", "fp", root, segments, limits={"leaf_token_budget": 50, "max_topics_per_level": 3})


def test_a_valid_tree_has_no_problems() -> None:
    tree = small_tree()
    assert problems(tree) == []
    check(tree)


def test_an_unreachable_segment_is_reported() -> None:
    tree = small_tree()
    tree.root.children[0].segments = [0]
    tree.root.children[0].paragraphs[0].sources = [0]
    assert problems(tree) == ["segments [1] are not reachable from the root"]


def test_a_source_index_that_names_no_segment_is_reported() -> None:
    tree = small_tree()
    tree.root.children[1].paragraphs[0].sources = [2, 7]
    assert problems(tree) == ["Beta: source indices [7] name no segment (there are 3)"]


def test_a_node_over_budget_is_reported() -> None:
    tree = small_tree()
    tree.root.children[0].paragraphs[0].text = "word " * 60
    [problem] = problems(tree)
    assert problem.startswith("Alpha: ") and problem.endswith("tokens, over the budget of 50")


def test_too_many_children_repeated_and_empty_titles_are_reported() -> None:
    tree = small_tree()
    extra = [Node(f"0.{i}", t, [Paragraph("x.", [0])], segments=[0]) for i, t in ((3, " alpha "), (4, ""))]
    tree.root.children.extend(extra)
    found = problems(tree)
    assert "root: 4 children, more than 3 per level" in found
    assert "root: titles repeated among its children: ['alpha']" in found
    assert "a node below root has an empty title" in found


def test_empty_paragraphs_and_leaves_without_segments_are_reported() -> None:
    tree = small_tree()
    tree.root.children[1].children[0].paragraphs.append(Paragraph("  ", [2]))
    tree.root.children.append(Node("0.3", "Gamma", [Paragraph("g.", [1])]))
    found = problems(tree)
    assert "Beta / Beta one: a paragraph is empty or cites no segment" in found
    assert "Gamma: a leaf that points to no segment" in found


def test_check_raises_with_every_problem() -> None:
    tree = small_tree()
    tree.segments = tree.segments[:2]
    with pytest.raises(TreeInvariantError) as caught:
        check(tree)
    assert "source indices [2] name no segment" in str(caught.value) and len(caught.value.problems) == 2


def test_round_trip_through_dict_keeps_the_tree() -> None:
    tree = small_tree()
    again = KnowledgeTree.from_dict(tree.to_dict())
    assert again.to_dict() == tree.to_dict() and problems(again) == []



def test_a_leaf_pointing_to_more_passage_text_than_the_budget_is_reported() -> None:
    tree = small_tree()
    for i in (0, 1):
        tree.segments[i] = SegmentRef(i, i * 10, i * 10 + 10, "w " * 30)
    assert problems(tree) == ["Alpha: its passages have 60 tokens, over the budget of 50"]


def test_a_leaf_of_one_segment_fits_whatever_the_segment_size() -> None:
    tree = small_tree()
    tree.segments[2] = SegmentRef(2, 20, 30, "word " * 80)
    assert problems(tree) == []
