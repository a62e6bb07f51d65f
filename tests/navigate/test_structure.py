"""Structure-first trees: sections as nodes, passages as leaves, the model only summarising; the fallback."""

from __future__ import annotations

from typing import Any

import pytest

from navicite.documents import Document
from navicite.text.passages import cut_passages
from navicite.navigate.build import TreeBuilder
from navicite.navigate.evidence import Evidence, Navigation
from navicite.navigate.sources import evidence_sources
from navicite.navigate.store import TreeStore, build_params
from navicite.navigate.structure import first_sentences, structure_of
from navicite.navigate.tree import Node, passage_tokens
from navicite.navigate.validate import problems

SMALL = ("ingest.passage_words=20", "navigate.leaf_token_budget=128")
MANUAL = [(1, "Alpha", 8), (2, "Alpha one", 10), (2, "Alpha two", 8), (1, "Beta", 9),
          (1, "Gamma", 4), (2, "Gamma one", 10), (2, "Gamma two", 24)]


@pytest.fixture
def settings(tmp_path: Any, kit: Any) -> Any:
    return kit.tree_settings(tmp_path, *SMALL)


def titles(node: Node) -> list[str]:
    return [c.title for c in node.children]


def test_sections_become_nodes_and_their_passages_leaves_without_a_placing_call(settings: Any, kit: Any) -> None:
    document = kit.sectioned_document(MANUAL)
    model = kit.TreeModel()
    outcome = TreeBuilder(settings, kit.rule_llm(model)).build(document)
    assert (outcome.status, outcome.source, outcome.fallback) == ("built", "headings", None)
    tree = TreeStore.open(settings).get(document.id)
    assert tree is not None and problems(tree) == []
    assert (tree.source, tree.units) == ("headings", "passages")
    # The leaves point to the passages the index holds, in order.
    passages = cut_passages(document, settings.ingest.passage_words)
    assert [s.text for s in tree.segments] == [p.text for p in passages]
    assert titles(tree.root) == ["Alpha", "Beta", "Gamma"]
    alpha, beta, gamma = tree.root.children
    assert titles(alpha) == ["Alpha (introduction)", "Alpha one", "Alpha two"]
    assert beta.is_leaf and beta.paragraphs[0].text.startswith("Sentence 1 of Beta")  # its opening, no heading
    # Gamma two is over the leaf budget: packed in order into parts that each fit.
    two = gamma.children[-1]
    assert titles(two)[:2] == ["Gamma two (part 1)", "Gamma two (part 2)"]
    assert all(passage_tokens(tree.segments, leaf.segments) <= 128 for leaf in two.children)
    assert sorted(s for leaf in two.children for s in leaf.segments) == sorted(two.reachable_segments())
    # No select/create/split call: the model only wrote the summaries of the nodes over sections;
    # the parts cut by size keep their section's opening.
    assert set(model.seen) == {"summarise"}
    assert alpha.paragraphs[0].text == "What Alpha covers, in brief." and gamma.paragraphs[0].text == "What Gamma covers, in brief."
    assert two.paragraphs[0].text.startswith("Sentence 1 of Gamma two") and "Sections: Gamma two (part 1);" in two.paragraphs[0].text
    assert outcome.cost and outcome.cost.calls == len(model.seen) == 1 and outcome.cost.segments == len(passages)


def test_front_matter_and_references_are_their_own_nodes_and_need_no_model(settings: Any, kit: Any) -> None:
    document = kit.sectioned_document(MANUAL, front=6, references=30)
    llm = kit.rule_llm()
    TreeBuilder(settings, llm).build(document)
    tree = TreeStore.open(settings).get(document.id)
    assert tree is not None and problems(tree) == []
    assert titles(tree.root) == ["Front matter", "Alpha", "Beta", "Gamma", "References"]
    front, references = tree.root.children[0], tree.root.children[-1]
    assert front.paragraphs[0].text.startswith("Sentence 1 of the preface")
    # The references are over budget and split, yet their summary is not asked of the model.
    assert references.children and all("Author" in leaf.paragraphs[0].text for leaf in references.children)
    asked = "\n".join(call.prompt for call in llm.calls)
    assert 'title="Gamma"' in asked and 'title="References"' not in asked
    assert references.paragraphs[0].text.startswith("[1] Author 1.")


def test_summaries_are_batched_bottom_up_and_chapters_see_their_sections(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, *SMALL, "navigate.summaries_per_call=3")
    parts = [(1, "Alpha", 2), (2, "Alpha one", 6), (3, "Alpha one a", 7), (3, "Alpha one b", 7), (2, "Alpha two", 7),
             (1, "Beta", 2), (2, "Beta one", 7), (2, "Beta two", 7)]
    llm = kit.rule_llm()
    tree = TreeBuilder(settings, llm).organise(kit.sectioned_document(parts))
    prompts = [c.prompt for c in llm.calls]
    # Alpha one and Beta first (their children are leaves), then Alpha, whose prompt shows Alpha one's summary.
    assert [p.count("<section n=") for p in prompts] == [2, 1]
    assert 'title="Alpha one"' in prompts[0] and 'title="Beta"' in prompts[0] and 'title="Alpha"' in prompts[1]
    assert "- Alpha one: What Alpha one covers, in brief." in prompts[1]
    assert problems(tree) == []


def test_a_section_cut_into_parts_does_not_delay_its_parent(settings: Any, kit: Any) -> None:
    # Alpha one is only cut by size (its summary needs no model): Alpha and Beta go in one call.
    parts = [(1, "Alpha", 4), (2, "Alpha one", 24), (2, "Alpha two", 6), (1, "Beta", 4), (2, "Beta one", 6), (2, "Beta two", 6)]
    llm = kit.rule_llm()
    tree = TreeBuilder(settings, llm).organise(kit.sectioned_document(parts))
    assert tree.root.children[0].children[1].children  # Alpha one is in parts
    assert len(llm.calls) == 1 and llm.calls[0].prompt.count("<section n=") == 2


@pytest.mark.parametrize(
    "reply",
    [
        "this is not json",
        {"summaries": [{"n": 1, "summary": "   "}, {"n": 2, "summary": "Gamma"}]},
        {"summaries": [{"n": 1, "summary": "The text does not mention it."}, {"n": 2, "summary": "Fine"}]},
        {"summaries": [{"n": 7, "summary": "Only one entry for two sections."}]},
        {"summaries": [{"n": 1, "summary": "Far too long. " * 40}, {"n": 2, "summary": "Far too long. " * 40}]},
    ],
    ids=["bad-json", "empty-or-title", "nothing-or-too-short", "missing", "over-the-length-limit"],
)
def test_a_misbehaving_summary_reply_leaves_first_sentences_never_a_crash(settings: Any, kit: Any, reply: Any) -> None:
    model = kit.TreeModel({"summarise": [reply, reply]})  # the repair request derails too
    tree = TreeBuilder(settings, kit.rule_llm(model)).organise(kit.sectioned_document(MANUAL))
    assert problems(tree) == []
    for node in tree.root.children:
        if node.children:
            text = node.paragraphs[0].text
            assert text and "covers, in brief" not in text and "Sections:" in text
            assert node.paragraphs[0].sources == sorted(node.reachable_segments())


def test_summaries_numbered_otherwise_are_taken_by_position_and_tidied(settings: Any, kit: Any) -> None:
    shifted = {"summaries": [{"n": 5, "summary": "This section provides an overview of Alpha, the first matters."},
                             {"n": 6, "summary": "Gamma is about the last matters. Then it breaks off at the length limit in"}]}
    tree = TreeBuilder(settings, kit.rule_llm(kit.TreeModel({"summarise": [shifted]}))).organise(kit.sectioned_document(MANUAL))
    alpha, _, gamma = tree.root.children
    # A signpost opening ("This section provides an overview of") and a sentence cut off are dropped.
    assert (alpha.paragraphs[0].text, gamma.paragraphs[0].text) == ("Alpha, the first matters.", "Gamma is about the last matters.")


def test_the_call_budget_bounds_summaries_and_declined_ones_keep_their_fallback(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, *SMALL, "navigate.summaries_per_call=1", "navigate.max_calls_per_segment=0.05")
    model = kit.TreeModel()
    outcome = TreeBuilder(settings, kit.rule_llm(model)).build(kit.sectioned_document(MANUAL))
    assert outcome.cost and outcome.cost.declined_calls >= 1 and outcome.status == "built"
    assert len(model.seen) <= 1


@pytest.mark.parametrize(
    ("parts", "why"),
    [
        ([(1, "Alpha", 30), (1, "Beta", 30)], "only 2 headings"),
        ([(1, f"Part {k}", 2) for k in range(12)], "too many headings"),
        ([(1, "Alpha", 4), (1, "Beta", 60), (1, "Gamma", 4)], "holds"),
        ([(1, "3 Alpha", 10), (1, "1 Beta", 10), (1, "7 Gamma", 10), (1, "2 Delta", 10)], "out of order"),
    ],
    ids=["too-few", "too-many", "one-heading-holds-most", "out-of-order"],
)
def test_implausible_headings_fall_back_to_the_model(settings: Any, kit: Any, parts: Any, why: str) -> None:
    document = kit.sectioned_document(parts)
    model = kit.TreeModel()
    outcome = TreeBuilder(settings, kit.rule_llm(model)).build(document)
    assert outcome.status == "built" and outcome.source == "llm" and why in (outcome.fallback or "")
    assert "select" in model.seen and "summarise" not in model.seen
    tree = TreeStore.open(settings).get(document.id)
    assert tree is not None and (tree.source, tree.units) == ("llm", "segments") and problems(tree) == []


def test_a_document_without_headings_is_organised_by_the_model(settings: Any, kit: Any) -> None:
    outcome = TreeBuilder(settings, kit.rule_llm()).build(kit.topic_document(["Climate", "Soil", "Water"]))
    assert (outcome.source, outcome.fallback) == ("llm", "no outline or headings")
    assert outcome.to_dict()["source"] == "llm"


def test_the_setting_llm_forces_the_model_and_switching_rebuilds(tmp_path: Any, kit: Any) -> None:
    document = kit.sectioned_document(MANUAL)
    llm_settings = kit.tree_settings(tmp_path, *SMALL, "navigate.structure=llm")
    assert TreeBuilder(llm_settings, kit.rule_llm()).build(document).source == "llm"
    assert TreeStore.open(llm_settings).is_current(document.id, document.fingerprint, build_params(llm_settings))
    auto = TreeBuilder(kit.tree_settings(tmp_path, *SMALL), kit.rule_llm())
    assert auto.build(document).status == "built"  # the stored tree is the model's: rebuilt from the headings
    assert auto.build(document).status == "current"


def test_a_pdf_like_document_titles_parts_by_pages_and_records_an_outline(settings: Any, kit: Any) -> None:
    base = kit.sectioned_document(MANUAL)
    words = len(base.text.split())
    pages = list(range(0, words, 40))
    document = Document(base.id, base.title, text=base.text,
                        metadata={**base.metadata, "page_starts": pages, "sections_from": "outline"})
    outcome = TreeBuilder(settings, kit.rule_llm()).build(document)
    assert outcome.source == "outline"
    two = TreeStore.open(settings).get(document.id).root.children[-1].children[-1]  # type: ignore[union-attr]
    assert two.children and all(c.title.startswith(("Gamma two, p. ", "Gamma two, pp. ")) for c in two.children)


def test_navigation_evidence_of_a_structure_tree_cites_index_passage_ids(settings: Any, kit: Any) -> None:
    document = kit.sectioned_document(MANUAL)
    tree = TreeBuilder(settings, kit.rule_llm()).organise(document)
    leaf = tree.root.children[1]
    ref = tree.segments[leaf.segments[0]]
    evidence = Evidence(document.id, "passage", ref.text, ("Beta",), leaf.id, (ref.index,), ref.start, ref.end)
    [source] = evidence_sources(Navigation("q", document.id, [evidence], units=tree.units), document)
    assert source.passage_id == f"{document.id}#p{ref.index}" and source.position == ref.index
    assert source.section == ("Beta",)


def test_structure_of_reports_why_a_document_has_none(kit: Any) -> None:
    plain = Document("p", "Plain", text="Just words. " * 200)
    assert structure_of(plain).problem == "no outline or headings"


def test_first_sentences_keeps_whole_sentences_within_the_words() -> None:
    text = "One two three. Four five six seven. Eight nine."
    assert first_sentences(text, 4) == "One two three."
    assert first_sentences(text, 7) == "One two three. Four five six seven."
    assert first_sentences("a b c d e f", 3) == "a b c ..."


def _reworded(kit: Any, *sentences: int) -> Document:
    """MANUAL with these sentences of Gamma one reworded (as many words, so headings keep their offsets)."""
    document = kit.sectioned_document(MANUAL)
    text = document.text
    for k in sentences:
        old = f"Sentence {k} of Gamma one states one plain fact."
        text = text.replace(old, old.replace("plain", "changed"))
    assert text != document.text
    return Document(document.id, document.title, text=text, metadata=document.metadata)


def test_a_changed_section_rebuilds_only_the_summaries_above_it(tmp_path: Any, kit: Any) -> None:
    from navicite.collection import CollectionStore

    settings = kit.tree_settings(tmp_path, *SMALL, "navigate.summaries_per_call=1")
    collection = CollectionStore(settings)
    collection.upsert([kit.sectioned_document(MANUAL)])
    model = kit.TreeModel()
    llm = kit.rule_llm(model)
    builder = TreeBuilder(settings, llm)
    full = builder.build_collection(collection.documents)[0]
    assert full.status == "built" and full.cost and full.cost.calls == 2  # Alpha and Gamma, one call each

    collection.upsert([_reworded(kit, 1)])  # replaced: the tree goes, its summaries stay
    assert TreeStore.open(settings).doc_ids() == []
    before = len(llm.calls)
    again = builder.build_collection(collection.documents)[0]
    # Gamma one's opening is in Gamma's prompt: Gamma is asked again, Alpha is not.
    assert again.status == "built" and again.cost and again.cost.calls == 1
    [asked] = [c.prompt for c in llm.calls[before:]]
    assert 'title="Gamma"' in asked and "one changed fact" in asked and 'title="Alpha"' not in asked

    collection.upsert([_reworded(kit, 1, 9)])  # and a sentence no summary prompt shows: nothing to ask
    assert builder.build_collection(collection.documents)[0].cost.calls == 0  # type: ignore[union-attr]
    tree = TreeStore.open(settings).get("manual")
    assert tree is not None and [c.paragraphs[0].text for c in tree.root.children if c.children] == [
        "What Alpha covers, in brief.", "What Gamma covers, in brief."]

    collection.delete(["manual"])  # a deleted document takes its summaries along
    assert TreeStore.open(settings).memo("manual") == {}


def test_summaries_the_model_failed_are_asked_again_next_time(settings: Any, kit: Any) -> None:
    model = kit.TreeModel({"summarise": ["not json", "not json"]})
    builder = TreeBuilder(settings, kit.rule_llm(model))
    builder.build(kit.sectioned_document(MANUAL))
    assert len(TreeStore.open(settings).memo("manual")) == 0
    builder.build(kit.sectioned_document(MANUAL), force=True)
    assert model.seen.count("summarise") == 3 and len(TreeStore.open(settings).memo("manual")) == 2


def test_a_document_of_one_passage_is_left_to_the_model(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "ingest.passage_words=400")  # MANUAL is one whole-record passage
    outcome = TreeBuilder(settings, kit.rule_llm()).build(kit.sectioned_document(MANUAL))
    assert outcome.source == "llm" and "one passage only" in (outcome.fallback or "")


def test_extractive_summaries_build_without_the_model_and_switching_rebuilds(tmp_path: Any, kit: Any) -> None:
    document = kit.sectioned_document(MANUAL)
    model = kit.TreeModel()
    extractive = TreeBuilder(kit.tree_settings(tmp_path, *SMALL, "navigate.summaries=extractive"), kit.rule_llm(model))
    outcome = extractive.build(document)
    assert (outcome.status, outcome.source) == ("built", "headings") and outcome.cost and outcome.cost.calls == 0
    assert model.seen == [] and extractive.build(document).status == "current"
    tree = TreeStore.open(extractive.settings).get(document.id)
    assert tree is not None and problems(tree) == []
    alpha = next(n for n in tree.root.children if n.title == "Alpha")
    assert alpha.children and alpha.paragraphs and alpha.paragraphs[0].text  # its opening sentences
    written = TreeBuilder(kit.tree_settings(tmp_path, *SMALL), kit.rule_llm(model))
    assert written.build(document).status == "built" and "summarise" in model.seen  # the extractive tree is not current


def test_a_build_without_the_model_keeps_the_tree_the_model_summarised(tmp_path: Any, kit: Any) -> None:
    document = kit.sectioned_document(MANUAL)
    model = kit.TreeModel()
    assert TreeBuilder(kit.tree_settings(tmp_path, *SMALL), kit.rule_llm(model)).build(document).status == "built"
    settings = kit.tree_settings(tmp_path, *SMALL, "navigate.summaries=extractive")
    assert TreeBuilder(settings, kit.rule_llm(model), structure_only=True).build(document).status == "current"
    assert TreeBuilder(settings, kit.rule_llm(model)).build(document).status == "built"  # asked for extractive ones
