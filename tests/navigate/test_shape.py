"""Split and refine with a rule-based stand-in model: leaves are bounded by their passages too.

The stories of L-Eval QuALITY gave trees of two leaves per story: each segment's summary is
short, so a topic's content never reached the budget although its leaves pointed to most of
the story. These tests pin the fix: a topic whose passages exceed the leaf budget is split.
"""

from __future__ import annotations

from typing import Any

from navicite.documents import Document
from navicite.llm.scripted import ScriptedLLM
from navicite.navigate.organise import Organiser
from navicite.navigate.shape import Shaper
from navicite.navigate.tree import KnowledgeTree, Paragraph, SegmentRef, passage_tokens
from navicite.navigate.validate import problems
from navicite.text.segments import segment


def organise(settings: Any, document: Document, llm: ScriptedLLM) -> KnowledgeTree:
    segments = segment(document, settings.ingest.segment_words, settings.ingest.segment_overlap)
    return Organiser(llm, settings).run(document, segments)


def leaves(tree: KnowledgeTree) -> list[Any]:
    return [node for node, _ in tree.nodes() if node.is_leaf and node is not tree.root]


def refs(count: int, words: int = 100) -> list[SegmentRef]:
    return [SegmentRef(i, i * words, (i + 1) * words, " ".join(f"seg{i}word{j}" for j in range(words))) for i in range(count)]


def one_story(kit: Any, segments: int = 6) -> Document:
    """One topic throughout, with summaries far smaller than the text they summarise (the QuALITY case)."""
    return kit.topic_document(["Voyage"] * segments, words_per_segment=100)


def test_a_topic_whose_passages_exceed_the_budget_is_split_though_its_summaries_are_short(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "ingest.segment_words=100", "navigate.leaf_token_budget=350")
    model = kit.TreeModel()
    document = one_story(kit)
    tree = organise(settings, document, kit.rule_llm(model))
    voyage = tree.root  # the only topic, so its sub-topics are the top level
    assert voyage.tokens < 350  # the content alone never asked for a split
    assert not voyage.is_leaf and "split" in model.seen
    assert problems(tree) == []
    for leaf in leaves(tree):
        assert len(leaf.segments) == 1 or passage_tokens(tree.segments, leaf.segments) <= 350
    assert sorted(s for leaf in leaves(tree) for s in leaf.segments) == list(range(6))
    assert len(leaves(tree)) >= 3


def test_the_split_prompt_shows_each_paragraphs_passages_and_the_passages_a_leaf_holds(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "ingest.segment_words=100", "navigate.leaf_token_budget=350")
    llm = kit.rule_llm()
    tree = organise(settings, one_story(kit, 4), llm)
    split = next(c.prompt for c in llm.calls if "divided into sub-topics" in c.prompt)
    assert "P1 (passage 0): Segment 0 says Voyage facts." in split
    mean = sum(passage_tokens(tree.segments, [i]) for i in range(4)) / 4
    assert round(350 / mean) == 2 and "at most 2 different passages" in split


def test_leaves_are_refined_after_the_split_so_refined_paragraphs_do_not_join_distant_segments(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "ingest.segment_words=100", "navigate.leaf_token_budget=350")
    model = kit.TreeModel()
    tree = organise(settings, one_story(kit, 4), kit.rule_llm(model))
    # 2 select calls, 1 split into halves of two segments each, then 1 refine per two-note leaf.
    assert model.seen == ["select", "select", "split", "refine", "refine"]
    assert [(leaf.segments, [p.sources for p in leaf.paragraphs]) for leaf in leaves(tree)] == [
        ([0, 1], [[0, 1]]),
        ([2, 3], [[2, 3]]),
    ]


def test_a_failed_split_packs_consecutive_notes_by_their_passages(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "ingest.segment_words=100", "navigate.leaf_token_budget=350")
    model = kit.TreeModel({"split": ["not json"] * 4})
    tree = organise(settings, one_story(kit, 5), kit.rule_llm(model))
    assert [(c.title, c.segments) for c in tree.root.children] == [("Episode 1", [0, 1]), ("Episode 2", [2, 3]), ("Episode 3", [4])]
    assert problems(tree) == []


def test_packed_parts_keep_numbered_titles_when_naming_fails(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "ingest.segment_words=100", "navigate.leaf_token_budget=350")
    model = kit.TreeModel({"split": ["not json"] * 4, "name": ["not json"] * 4})
    llm = kit.rule_llm(model)
    tree = organise(settings, one_story(kit, 5), llm)
    assert [c.title for c in tree.root.children] == ["Voyage (part 1)", "Voyage (part 2)", "Voyage (part 3)"]
    naming = next(c.prompt for c in llm.calls if "consecutive parts" in c.prompt)
    assert "Part 3: Topic: Voyage. w4x0 w4x1" in naming and "Segment 4 says" not in naming
    assert problems(tree) == []


def test_more_parts_than_a_level_holds_are_bundled_under_intermediate_nodes(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(
        tmp_path, "ingest.segment_words=100", "navigate.leaf_token_budget=200", "navigate.max_topics_per_level=3"
    )
    model = kit.TreeModel({"split": ["not json"] * 4})
    tree = organise(settings, one_story(kit, 8), kit.rule_llm(model))
    voyage = tree.root
    assert [c.title for c in voyage.children] == ["Voyage (parts 1-3)", "Voyage (parts 4-6)", "Voyage (parts 7-8)"]
    assert [c.title for c in voyage.children[2].children] == ["Episode 7", "Episode 8"]
    assert [len(c.children) for c in voyage.children] == [3, 3, 2]
    assert problems(tree) == []
    assert [leaf.segments for leaf in leaves(tree)] == [[i] for i in range(8)]


def test_a_paragraph_citing_more_text_than_a_leaf_holds_is_kept_once_per_run_of_sources(tmp_path: Any, kit: Any) -> None:
    segments = refs(4)
    budget = passage_tokens(segments, [0, 1])
    shaper = Shaper(kit.rule_llm(), kit.tree_settings(tmp_path, f"navigate.leaf_token_budget={budget}"))
    node = shaper.shape("Everything", [Paragraph("One merged summary of four passages.", [0, 1, 2, 3])], segments)
    assert [(c.segments, c.content) for c in node.children] == [
        ([0, 1], "One merged summary of four passages."),
        ([2, 3], "One merged summary of four passages."),
    ]


def test_a_single_segment_leaf_fits_whatever_its_size(tmp_path: Any, kit: Any) -> None:
    segments = refs(2, words=400)
    shaper = Shaper(kit.rule_llm(), kit.tree_settings(tmp_path, "navigate.leaf_token_budget=128"))
    node = shaper.shape("Big", [Paragraph("Short note.", [1])], segments)
    assert node.is_leaf and node.segments == [1]


def test_the_split_schema_asks_for_enough_groups_for_every_leaf_to_fit(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "ingest.segment_words=100", "navigate.leaf_token_budget=350")
    one_group = {"overview": "All of it.", "groups": [{"title": "Voyage", "paragraphs": [1, 2, 3, 4, 5, 6]}]}
    model = kit.TreeModel({"split": [one_group, one_group]})
    llm = kit.rule_llm(model)
    tree = organise(settings, one_story(kit, 6), llm)
    split = next(c for c in llm.calls if "divided into sub-topics" in c.prompt)
    groups = split.json_schema["properties"]["groups"]
    assert (groups["minItems"], groups["maxItems"]) == (3, 6)  # 6 passages, 2 per leaf
    assert "into 3 to 6 sub-topics" in split.prompt
    # The one-group answer breaks the schema (and its repair too): the topic is packed and its parts named.
    assert [c.title for c in tree.root.children] == ["Episode 1", "Episode 2", "Episode 3"]
    assert problems(tree) == []


def test_part_titles_copied_from_the_prompt_or_too_long_stay_numbered(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "ingest.segment_words=100", "navigate.leaf_token_budget=350")
    # Seen from the embedded model on a QuALITY story: a title from the prompt's examples and a copied first line.
    names = {"titles": ["Election of the new mayor", "Harbour repairs", "forgot to check for leaks and whether or not the valve was closed"]}
    model = kit.TreeModel({"split": ["not json"] * 4, "name": [names]})
    tree = organise(settings, one_story(kit, 5), kit.rule_llm(model))
    assert [c.title for c in tree.root.children] == ["Voyage (part 1)", "Harbour repairs", "Voyage (part 3)"]
    assert problems(tree) == []
