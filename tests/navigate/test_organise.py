"""Organise with a rule-based stand-in model: the call plan, and repairs when the model derails."""

from __future__ import annotations

import threading
from typing import Any

from navicite.documents import Document
from navicite.llm.scripted import ScriptedLLM
from navicite.navigate.organise import Organiser, Topic, merge_same_span
from navicite.navigate.tree import KnowledgeTree, Paragraph
from navicite.navigate.validate import problems
from navicite.text.segments import segment


def organise(settings: Any, document: Document, llm: ScriptedLLM) -> KnowledgeTree:
    segments = segment(document, settings.ingest.segment_words, settings.ingest.segment_overlap)
    return Organiser(llm, settings).run(document, segments)


def top_titles(tree: KnowledgeTree) -> list[str]:
    return [c.title for c in tree.root.children]


def test_segments_are_filed_under_shared_topics_and_refined_once(settings: Any, kit: Any) -> None:
    model = kit.TreeModel()
    tree = organise(settings, kit.topic_document(["Climate", "Soil", "Climate", "Water", "Soil"]), kit.rule_llm(model))
    assert top_titles(tree) == ["Climate", "Soil", "Water"]
    climate = tree.root.children[0]
    assert climate.segments == [0, 2] and climate.paragraphs[0].sources == [0, 2]
    # 3 select calls for 5 segments (2 per call), one refine per topic with several notes.
    assert model.seen.count("select") == 3 and model.seen.count("refine") == 2
    assert tree.cost.calls == 5 and tree.cost.calls_per_segment <= 1.5
    assert tree.cost.document_tokens > 0 and tree.cost.calls_per_1k_tokens > 0
    assert problems(tree) == []
    assert [n.id for n, _ in tree.nodes()] == ["0", "0.1", "0.2", "0.3"]


def test_select_prompt_lists_existing_titles_and_the_segment_numbers(settings: Any, kit: Any) -> None:
    llm = kit.rule_llm()
    organise(settings, kit.topic_document(["Climate", "Soil", "Water"]), llm)
    second = llm.calls[1].prompt
    assert "- Climate" in second and "- Soil" in second and '<segment n="2">' in second


def test_bad_json_for_a_batch_is_retried_one_segment_at_a_time(settings: Any, kit: Any) -> None:
    model = kit.TreeModel({"select": ["this is not json", "{still not json"]})
    tree = organise(settings, kit.topic_document(["Climate", "Soil"]), kit.rule_llm(model))
    assert top_titles(tree) == ["Climate", "Soil"]
    assert model.seen[:4] == ["select", "select", "select", "select"]  # failed call, repair, then one per segment
    assert problems(tree) == []


def test_empty_titles_and_summaries_are_repaired_by_asking_again_then_create(settings: Any, kit: Any) -> None:
    bad_select = {"segments": [{"segment": 0, "topics": [{"title": "  ", "summary": "x"}]},
                               {"segment": 0, "topics": [{"title": "Ghost", "summary": " "}]}]}
    empty_single = {"segments": [{"segment": 0, "topics": [{"title": "", "summary": "nothing"}]}]}
    model = kit.TreeModel({"select": [bad_select, empty_single, empty_single],
                           "create": [{"title": "Made title", "summary": "Made summary."}, "not json", "not json"]})
    tree = organise(settings, kit.topic_document(["Climate", "Soil"]), kit.rule_llm(model))
    assert model.seen == ["select", "select", "create", "select", "create", "create"]
    assert "Ghost" not in top_titles(tree)
    assert top_titles(tree)[0] == "Made title"
    # The second segment's create call derailed (bad JSON twice): a title from its own words.
    assert top_titles(tree)[1].startswith("Passage 2: Topic: Soil")
    assert problems(tree) == []


def test_the_select_schema_asks_for_one_entry_per_segment(settings: Any, kit: Any) -> None:
    llm = kit.rule_llm()
    organise(settings, kit.topic_document(["Climate", "Soil", "Water"]), llm)
    first, second = (c.json_schema for c in llm.calls[:2])
    assert (first["properties"]["segments"]["minItems"], first["properties"]["segments"]["maxItems"]) == (2, 2)
    assert second["properties"]["segments"]["minItems"] == 1


def test_segments_a_reply_leaves_out_are_asked_again_without_the_others(settings: Any, kit: Any) -> None:
    partial = {"segments": [{"segment": 0, "topics": [{"title": "Climate", "summary": "Rain."}]},
                            {"segment": 0, "topics": [{"title": "Climate", "summary": "More rain."}]}]}
    model = kit.TreeModel({"select": [partial]})
    llm = kit.rule_llm(model)
    tree = organise(settings, kit.topic_document(["Climate", "Soil"]), llm)
    assert model.seen[:2] == ["select", "select"] and "<segment n=\"0\">" not in llm.calls[1].prompt
    assert [(c.title, c.segments) for c in tree.root.children] == [("Climate", [0]), ("Soil", [1])]


def test_positional_segment_numbers_are_accepted_when_counts_match(settings: Any, kit: Any) -> None:
    shifted = {"segments": [{"segment": 1, "topics": [{"title": "Climate", "summary": "a"}]},
                            {"segment": 2, "topics": [{"title": "Soil", "summary": "b"}]}]}
    tree = organise(settings, kit.topic_document(["Climate", "Soil"]), kit.rule_llm(kit.TreeModel({"select": [shifted]})))
    assert [(c.title, c.segments) for c in tree.root.children] == [("Climate", [0]), ("Soil", [1])]


def test_a_full_level_takes_no_new_titles(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "navigate.max_topics_per_level=2")
    llm = kit.rule_llm()
    tree = organise(settings, kit.topic_document(["Climate", "Soil", "Water", "Climate rain"]), llm)
    assert top_titles(tree) == ["Climate", "Soil"]
    assert "The list is full" in llm.calls[1].prompt
    assert problems(tree) == []  # segments 2 and 3 were filed under the nearest existing topic


def test_refine_that_drops_segments_or_cites_unknown_ones_is_repaired(settings: Any, kit: Any) -> None:
    bad_refine = {"paragraphs": [{"text": "Merged climate facts.", "sources": [0, 42]}, {"text": "", "sources": [2]}]}
    tree = organise(settings, kit.topic_document(["Climate", "Soil", "Climate"]), kit.rule_llm(kit.TreeModel({"refine": [bad_refine]})))
    climate = tree.root.children[0]
    assert climate.paragraphs[0].text == "Merged climate facts." and climate.paragraphs[0].sources == [0]
    assert [p.sources for p in climate.paragraphs[1:]] == [[2]]  # the lost segment keeps its summary
    assert problems(tree) == []


def test_a_topic_over_budget_is_split_into_children(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "navigate.leaf_token_budget=128", "navigate.summary_words=60")
    long = " ".join(f"fact{i}" for i in range(60))

    def select_long(messages: Any) -> dict[str, Any]:
        reply = kit.TreeModel().select("\n".join(m.content for m in messages))
        for entry in reply["segments"]:
            entry["topics"][0]["summary"] = f"{long} {entry['segment']}"
        return reply

    model = kit.TreeModel({"select": [select_long] * 3})
    tree = organise(settings, kit.topic_document(["Climate"] * 5), kit.rule_llm(model))
    climate = tree.root  # the document's only topic: its sub-topics are the top level
    assert [c.title for c in climate.children] == ["First part", "Second part", "Third part"]
    assert not climate.is_leaf and "split" in model.seen and "refine" not in model.seen
    assert climate.paragraphs[0].text == "An overview." and climate.paragraphs[0].sources == [0, 1, 2, 3, 4]
    assert problems(tree) == []
    assert all(n.tokens <= 128 for n, _ in tree.nodes())


def test_a_split_reply_without_usable_groups_falls_back_to_packing(tmp_path: Any, kit: Any) -> None:
    # No call budget: with 1.5 calls per segment the naming call would not fit after the split.
    settings = kit.tree_settings(tmp_path, "navigate.leaf_token_budget=128", "navigate.max_calls_per_segment=0")
    long = " ".join(f"fact{i}" for i in range(60))

    def select_long(messages: Any) -> dict[str, Any]:
        reply = kit.TreeModel().select("\n".join(m.content for m in messages))
        for entry in reply["segments"]:
            entry["topics"][0]["summary"] = long
        return reply

    bad_split = {"overview": "", "groups": [{"title": "", "paragraphs": [1]}, {"title": "Climate", "paragraphs": [2]}]}
    bad_names = {"titles": ["Rain", "climate", "Rain"]}  # the parent's title and a repeat are refused
    model = kit.TreeModel({"select": [select_long] * 2, "split": [bad_split], "name": [bad_names]})
    tree = organise(settings, kit.topic_document(["Climate"] * 3), kit.rule_llm(model))
    assert [c.title for c in tree.root.children] == ["Rain", "Climate (part 2)", "Climate (part 3)"]
    assert problems(tree) == []


def test_a_document_with_several_topics_keeps_them_as_the_top_level(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "ingest.segment_words=100", "navigate.leaf_token_budget=350")
    document = kit.topic_document(["Voyage"] * 4 + ["Harbour"], words_per_segment=100)
    tree = organise(settings, document, kit.rule_llm())
    assert [c.title for c in tree.root.children] == ["Voyage", "Harbour"]
    assert [c.title for c in tree.root.children[0].children] == ["First part", "Second part"]
    assert tree.root.paragraphs == [] and problems(tree) == []


def test_summaries_that_say_nothing_are_dropped_and_meta_openings_removed(settings: Any, kit: Any) -> None:
    select = {"segments": [
        {"segment": 0, "topics": [{"title": "Climate", "summary": "The passage states that rain fell in 1921."},
                                  {"title": "Soil", "summary": "The passage does not contain any information about soil."}]},
        {"segment": 1, "topics": [{"title": "Soil", "summary": "Clay soil, limed in 1930."}]},
    ]}
    tree = organise(settings, kit.topic_document(["Climate", "Soil"]), kit.rule_llm(kit.TreeModel({"select": [select]})))
    assert [(c.title, c.segments, c.content) for c in tree.root.children] == [
        ("Climate", [0], "Rain fell in 1921."),
        ("Soil", [1], "Clay soil, limed in 1930."),
    ]


def test_repeated_refined_paragraphs_are_merged(settings: Any, kit: Any) -> None:
    twice = {"paragraphs": [{"text": "Same fact.", "sources": [0]}, {"text": "same  fact.", "sources": [2]}]}
    tree = organise(settings, kit.topic_document(["Climate", "Soil", "Climate"]), kit.rule_llm(kit.TreeModel({"refine": [twice]})))
    assert [(p.text, p.sources) for p in tree.root.children[0].paragraphs] == [("Same fact.", [0, 2])]


def test_progress_reports_phases_with_calls_and_tokens_so_far(settings: Any, kit: Any) -> None:
    events: list[Any] = []
    document = kit.topic_document(["Climate", "Soil", "Climate"])
    segments = segment(document, settings.ingest.segment_words, settings.ingest.segment_overlap)
    Organiser(kit.rule_llm(), settings, progress=events.append).run(document, segments)
    assert [(e.phase, e.done, e.total, e.calls) for e in events] == [
        ("select", 0, 2, 0), ("select", 1, 2, 1), ("select", 2, 2, 2),
        ("split", 1, 2, 2), ("split", 2, 2, 2),  # both topics fit a leaf: no split call
        ("refine", 1, 1, 3),  # only Climate has two notes
    ]
    assert events[-1].tokens > events[1].tokens > 0


def test_concurrent_builds_on_one_model_count_only_their_own_calls(settings: Any, kit: Any) -> None:
    first = kit.topic_document(["Climate", "Soil", "Climate"], doc_id="a")
    second = kit.topic_document(["Water", "Rock", "Water", "Rock", "Sand"], doc_id="b")
    alone = {d.id: organise(settings, d, kit.rule_llm()).cost.calls for d in (first, second)}
    assert alone == {"a": 3, "b": 5}

    # Both builds hold their first select call until the other has started too, so their
    # calls interleave in the shared usage log.
    model, started, waited = kit.TreeModel(), threading.Barrier(2, timeout=30), set()

    def answer(messages: Any) -> Any:
        text = "\n".join(m.content for m in messages)
        doc = "a" if "Document a" in text else "b"
        if kit.stage_of(messages) == "select" and doc not in waited:
            waited.add(doc)
            started.wait()
        return model(messages)

    shared = ScriptedLLM(default=answer, concurrency=2)
    costs: dict[str, Any] = {}

    def build(document: Document) -> None:
        costs[document.id] = organise(settings, document, shared).cost

    threads = [threading.Thread(target=build, args=(d,)) for d in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {doc_id: cost.calls for doc_id, cost in costs.items()} == alone
    assert len(shared.usage.calls) == 8
    assert costs["a"].prompt_tokens + costs["b"].prompt_tokens == sum(u.prompt_tokens for u in shared.usage.calls)


def test_summaries_opening_with_what_the_passage_discusses_keep_only_the_facts() -> None:
    from navicite.navigate.organise import clean_summary

    assert clean_summary("The passage discusses the White House gate log.") == "The White House gate log."
    assert clean_summary("This text describes how the agents wait outside.") == "How the agents wait outside."


def test_topics_covering_the_same_passages_become_one_topic() -> None:
    def topic(title: str, *sources: int) -> Topic:
        return Topic(title, [Paragraph(f"{title} in {s}.", [s]) for s in sources])

    merged = merge_same_span([
        topic("Level B", 2, 3, 5), topic("Intro", 0, 1), topic("Level C", 5, 3, 2),
        topic("Data collection gathered from the public stream of a social network", 2, 3, 5),
        topic("Dataset", 4), topic("Results", 4),  # one passage: distinct views of it stay apart
    ])
    assert [t.title for t in merged] == ["Level B; Level C", "Intro", "Dataset", "Results"]
    assert [p.sources for p in merged[0].notes] == [[2], [3], [5], [5], [3], [2], [2], [3], [5]]


def test_titles_filing_every_segment_twice_build_one_subtree_not_two(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "ingest.segment_words=100", "navigate.leaf_token_budget=350")

    def two_titles(messages: Any) -> dict[str, Any]:
        reply = kit.TreeModel().select("\n".join(m.content for m in messages))
        for entry in reply["segments"]:
            n = entry["segment"]
            entry["topics"] = [{"title": "Data", "summary": f"Data of {n}."}, {"title": "Method", "summary": f"Method of {n}."}]
        return reply

    model = kit.TreeModel({"select": [two_titles] * 3})
    tree = organise(settings, kit.topic_document(["Voyage"] * 6, words_per_segment=100), kit.rule_llm(model))
    # One topic ("Data; Method"), one split of its six passages, one refine per leaf of two.
    assert model.seen == ["select"] * 3 + ["split"] + ["refine"] * 3
    assert [(c.title, c.segments) for c in tree.root.children] == [
        ("First part", [0, 1]), ("Second part", [2, 3]), ("Third part", [4, 5]),
    ]
    assert problems(tree) == []


def test_the_call_budget_keeps_a_build_to_its_calls_per_segment(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(
        tmp_path, "ingest.segment_words=100", "navigate.leaf_token_budget=350", "navigate.max_calls_per_segment=1.0"
    )

    def two_notes(messages: Any) -> dict[str, Any]:  # two notes per segment: every leaf asks for a refine
        reply = kit.TreeModel().select("\n".join(m.content for m in messages))
        for entry in reply["segments"]:
            entry["topics"].append({"title": entry["topics"][0]["title"], "summary": "More facts."})
        return reply

    model = kit.TreeModel({"select": [two_notes] * 3})
    tree = organise(settings, kit.topic_document(["Voyage"] * 6, words_per_segment=100), kit.rule_llm(model))
    # 5 calls of 6: 3 select, then the split before any refine, then one refine; the next refine
    # is declined with one call left (its repair would not fit), and so is the last.
    assert model.seen == ["select"] * 3 + ["split", "refine"]
    assert tree.cost.calls == 5 and tree.cost.declined_calls == 2
    assert problems(tree) == []  # unrefined leaves keep their notes, each citing its segment

    unlimited = organise(
        kit.tree_settings(tmp_path, "ingest.segment_words=100", "navigate.leaf_token_budget=350", "navigate.max_calls_per_segment=0"),
        kit.topic_document(["Voyage"] * 6, words_per_segment=100),
        kit.rule_llm(kit.TreeModel({"select": [two_notes] * 3})),
    )
    assert unlimited.cost.calls == 7 and unlimited.cost.declined_calls == 0
