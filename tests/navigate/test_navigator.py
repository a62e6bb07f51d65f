"""The navigation agent's control flow with a scripted model: labels, recursion, budget, gap, memory."""

from __future__ import annotations

import re
from typing import Any

from navicite.llm.base import Message
from navicite.llm.scripted import ScriptedLLM
from navicite.navigate.navigator import Navigator
from navicite.navigate.tree import KnowledgeTree, Node, Paragraph, SegmentRef, token_count

TEXTS = [
    "Rain fell for forty days in 1921.",
    "The soil is clay, rich in iron.",
    "Farmers added lime to the soil in 1930.",
    "The river Ouse floods in spring.",
]


def tree() -> KnowledgeTree:
    """Doc > Climate (leaf 0) | Soil > (Composition leaf 1 | Treatment leaf 2) | Water (leaf 3)."""
    segments = [SegmentRef(i, i * 10, i * 10 + 8, t) for i, t in enumerate(TEXTS)]
    soil = Node("0.2", "Soil", [Paragraph("Soil of the farm: clay, limed.", [1, 2])], children=[
        Node("0.2.1", "Composition", [Paragraph("Clay with iron.", [1])], segments=[1]),
        Node("0.2.2", "Treatment", [Paragraph("Lime added in 1930.", [2])], segments=[2]),
    ])
    root = Node("0", "Farm report", children=[
        Node("0.1", "Climate", [Paragraph("Heavy rain in 1921.", [0])], segments=[0]),
        soil,
        Node("0.3", "Water", [Paragraph("The Ouse floods in spring.", [3])], segments=[3]),
    ])
    return KnowledgeTree("farm", "fp", root, segments)


ENTRY = re.compile(r"^\[(\d+)\] (.+?) \(", re.MULTILINE)
PASSAGE = re.compile(r'<passage n="(\d+)">\n(.*?)\n</passage>', re.DOTALL)


class NavModel:
    """Explores titles in ``explore``, marks titles in ``info`` INFO, picks passages containing ``word``."""

    def __init__(self, kit: Any, explore: set[str], info: set[str] = frozenset(), word: str = "",
                 close_at_leaf: bool = False, kind: str = "localised", notes: bool = False) -> None:
        self.kit, self.explore, self.info, self.word = kit, explore, info, word
        self.close_at_leaf, self.kind, self.notes = close_at_leaf, kind, notes
        self.seen: list[tuple[str, str]] = []

    def __call__(self, messages: list[Message]) -> Any:
        stage = self.kit.stage_of(messages)
        text = "\n".join(m.content for m in messages)
        if stage == "classify":
            self.seen.append(("classify", ""))
            return {"kind": self.kind, "gap": "what was done to the soil"}
        if stage == "level":
            location = re.search(r"You are at: (.*)", text).group(1)  # type: ignore[union-attr]
            self.seen.append(("level", location))
            labels = []
            for number, title in ENTRY.findall(text):
                label = "EXPLORE" if title in self.explore else "INFO" if title in self.info else "SKIP"
                labels.append({"entry": int(number), "label": label})
            reply: dict[str, Any] = {"labels": labels, "gap": f"gap after {location}", "closed": False}
            if self.notes:
                reply["notes"] = [{"fact": f"note at {location}", "source": 1}, {"fact": "bad source", "source": 99}]
            return reply
        location = re.search(r"Topic: (.*)", text).group(1)  # type: ignore[union-attr]
        self.seen.append(("leaf", location))
        chosen = [int(n) for n, body in PASSAGE.findall(text) if self.word and self.word in body]
        reply = {"passages": chosen, "gap": f"gap after {location}", "closed": self.close_at_leaf and bool(chosen)}
        if self.notes:
            reply["notes"] = [{"fact": f"leaf note {location}", "source": 1}]
        return reply


def navigate(kit: Any, model: Any, settings: Any, **kwargs: Any) -> Any:
    return Navigator(ScriptedLLM(default=model, concurrency=2), settings, **kwargs).run("What was done to the soil?", tree())


def test_labels_drive_recursion_info_and_passage_selection(settings: Any, kit: Any) -> None:
    model = NavModel(kit, explore={"Soil", "Treatment", "Composition"}, info={"Water"}, word="lime")
    result = navigate(kit, model, settings)
    assert [(e.kind, e.path, e.segments) for e in result.evidence] == [
        ("summary", ("Farm report", "Water"), (3,)),
        ("passage", ("Farm report", "Soil", "Treatment"), (2,)),
    ]
    passages = [e for e in result.evidence if e.kind == "passage"]
    assert [(e.path, e.segments, e.start, e.end) for e in passages] == [
        (("Farm report", "Soil", "Treatment"), (2,), 20, 28)
    ]  # only the passage mentioning lime
    assert result.evidence[0].text == "The Ouse floods in spring."
    assert sorted(model.seen) == sorted(
        [("level", "Farm report"), ("level", "Farm report > Soil"),
         ("leaf", "Farm report > Soil > Composition"), ("leaf", "Farm report > Soil > Treatment")]
    )
    assert result.steps == 4 and not result.closed
    assert [t.kind for t in result.trace][:2] == ["level", "level"]
    assert result.trace[0].decision["labels"] == {"Climate": "SKIP", "Soil": "EXPLORE", "Water": "INFO"}
    as_dict = result.to_dict()
    assert as_dict["evidence"][0]["path"] == ["Farm report", "Water"]


def test_the_step_budget_bounds_the_calls(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "navigate.step_budget=2")
    model = NavModel(kit, explore={"Soil", "Treatment", "Composition", "Climate"}, word="soil")
    result = navigate(kit, model, settings)
    assert result.steps == 2 and len(model.seen) == 2


def test_a_closed_gap_stops_the_walk(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "navigate.concurrency=1")
    model = NavModel(kit, explore={"Soil", "Treatment", "Composition", "Climate"}, word="soil", close_at_leaf=True)
    result = Navigator(ScriptedLLM(default=model, concurrency=1), settings).run("What was done to the soil?", tree())
    assert result.closed
    # Climate (a leaf without "soil") is read first, then Composition closes the gap: Treatment is never read.
    assert ("leaf", "Farm report > Soil > Treatment") not in model.seen
    assert result.gap.startswith("gap after")


def test_a_derailed_level_step_explores_the_closest_child(settings: Any, kit: Any) -> None:
    answers = ["not json", "still not json"]  # the level step and its repair attempt both fail

    def model(messages: list[Message]) -> Any:
        if answers:
            return answers.pop(0)
        return {"passages": [1, 7], "gap": "", "closed": False}  # 7 names no passage

    result = navigate(kit, model, settings)
    assert result.trace[0].error and "navigate_level" in result.trace[0].error
    # "soil" in the question: the Soil subtree has the closest summary, so it is explored (no model labels).
    assert result.trace[0].decision["labels"] == {"Soil": "EXPLORE"}


def test_unknown_entry_numbers_are_ignored_and_a_failed_leaf_keeps_the_closest_passage(settings: Any, kit: Any) -> None:
    replies = [
        {"labels": [{"entry": 9, "label": "EXPLORE"}, {"entry": 3, "label": "EXPLORE"}], "gap": "g", "closed": False},
        "bad", "bad",
    ]
    result = navigate(kit, ScriptedLLMDefault(replies), settings)
    assert result.trace[0].decision["labels"] == {"Water": "EXPLORE"}
    assert [(e.kind, e.segments) for e in result.evidence] == [("passage", (3,))]
    assert result.trace[1].error


class ScriptedLLMDefault:
    """Replies in order (for a scripted run where the order of calls is fixed)."""

    def __init__(self, replies: list[Any]) -> None:
        self.replies = list(replies)

    def __call__(self, messages: list[Message]) -> Any:
        return self.replies.pop(0)


def test_memory_variant_classifies_and_keeps_grounded_notes(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "navigate.order_entries=document")
    model = NavModel(kit, explore={"Soil", "Treatment"}, word="lime", notes=True)
    llm = ScriptedLLM(default=model, concurrency=2)
    result = Navigator(llm, settings, memory=True).run("What was done to the soil?", tree())
    assert model.seen[0] == ("classify", "") and result.question_kind == "localised"
    assert result.trace[0].kind == "classify"
    facts = {n.fact: (n.path, n.segments) for n in result.notes}
    assert facts["note at Farm report"] == (("Farm report", "Climate"), (0,))  # entry 1 at the root is Climate
    assert facts["leaf note Farm report > Soil > Treatment"] == (("Farm report", "Soil", "Treatment"), (2,))
    assert "bad source" not in facts
    # Later steps see the notes kept so far.
    assert any("note at Farm report" in c.prompt and "Notes kept so far" in c.prompt for c in llm.calls[2:])


def test_a_synthesis_question_closes_only_with_evidence_from_two_topics(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "navigate.concurrency=1")
    model = NavModel(kit, explore={"Climate", "Soil", "Composition", "Treatment", "Water"}, word="1",
                     close_at_leaf=True, kind="synthesis")
    result = Navigator(ScriptedLLM(default=model, concurrency=1), settings, memory=True).run("How did the farm change?", tree())
    # Climate's passage (1921) closes nothing alone; Treatment's (1930) adds a second topic and closes the gap.
    assert result.closed and result.question_kind == "synthesis"
    assert {e.path[1] for e in result.evidence} == {"Climate", "Soil"}
    # The Climate leaf said "closed" too, but for a synthesis question one topic is not enough.
    leaves = [t.path[-1] for t in result.trace if t.kind == "leaf"]
    assert leaves[0] == "Climate" and leaves[-1] == "Treatment"


def test_each_run_has_its_own_step_budget(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "navigate.step_budget=1")
    navigator = Navigator(ScriptedLLM(default=NavModel(kit, explore={"Soil"}, info={"Water"})), settings)
    results = [navigator.run("soil?", tree()) for _ in range(2)]
    assert [r.steps for r in results] == [1, 1]
    assert [[e.path for e in r.evidence] for r in results] == [[("Farm report", "Water")]] * 2


def test_the_fill_adds_passages_sharing_words_with_the_question_after_the_picks(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "navigate.fill_tokens=1000")
    model = NavModel(kit, explore={"Soil", "Treatment"}, info={"Water"}, word="lime")
    result = navigate(kit, model, settings)
    # Navigation found the Water summary and the lime passage (2); of the rest only passage 1
    # mentions soil: 0 (rain) and 3 (river) share no word with the question and stay out.
    assert [(e.kind, e.path, e.segments) for e in result.evidence] == [
        ("summary", ("Farm report", "Water"), (3,)),
        ("passage", ("Farm report", "Soil", "Treatment"), (2,)),
        ("passage", ("Farm report", "Soil", "Composition"), (1,)),
    ]
    assert result.evidence[-1].node_id == "0.2.1" and (result.evidence[-1].start, result.evidence[-1].end) == (10, 18)
    assert [e.via for e in result.evidence] == ["navigation", "navigation", "fill"]
    assert result.trace[-1].kind == "fill" and result.trace[-1].decision == {"passages": [1]}
    assert result.steps == 3  # the fill makes no model call


def test_the_fill_stops_at_its_token_target_and_a_run_may_override_it(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "navigate.fill_tokens=1000")
    navigator = Navigator(ScriptedLLM(default=NavModel(kit, explore=set(), word="")), settings)
    # The walk picks nothing (the model keeps no passage): the whole evidence is the fill's, best BM25 first.
    question = "Was lime added to the soil or the clay?"
    full = navigator.run(question, tree())
    assert [e.segments for e in full.evidence] == [(2,), (1,)] and full.trace[-1].decision == {"passages": [2, 1]}
    # A target the first passage meets stops there; 0 turns the fill off.
    short = navigator.run(question, tree(), fill_tokens=token_count(full.evidence[0].text))
    assert [e.segments for e in short.evidence] == [(2,)]
    assert navigator.run(question, tree(), fill_tokens=0).evidence == []


def test_evidence_comes_back_breadth_first_by_each_steps_picks(tmp_path: Any, kit: Any) -> None:
    # One leaf of four long passages, shown two per leaf step (leaf_prompt_tokens=128).
    texts = [f"Passage {n}: " + "the harvest of the valley farms was stored in the barns. " * 4 for n in "ABCD"]
    segments = [SegmentRef(i, i * 60, i * 60 + 55, t) for i, t in enumerate(texts)]
    leaf = Node("0.1", "Harvest", [Paragraph("Harvests stored in barns.", [0, 1, 2, 3])], segments=[0, 1, 2, 3])
    other = Node("0.2", "Weather", [Paragraph("Rain.", [0])], segments=[0])
    long_tree = KnowledgeTree("farm", "fp", Node("0", "Farm report", children=[leaf, other]), segments)
    settings = kit.tree_settings(tmp_path, "navigate.leaf_prompt_tokens=128", "navigate.concurrency=1")
    replies = [
        {"labels": [{"entry": 1, "label": "EXPLORE"}], "gap": "g", "closed": False},
        {"passages": [2, 1], "gap": "g", "closed": False},  # B first, then A
        {"passages": [1, 2], "gap": "g", "closed": False},  # C first, then D
    ]
    result = Navigator(ScriptedLLM(replies, concurrency=1), settings).run("Where was the harvest stored?", long_tree)
    assert [t.decision for t in result.trace if t.kind == "leaf"] == [{"passages": [1, 0]}, {"passages": [2, 3]}]
    # Each step's first pick before any second pick: a budget that holds two passages gets B and C, not A and B.
    assert [e.segments for e in result.evidence] == [(1,), (2,), (0,), (3,)]


def test_a_root_labelled_info_only_with_the_gap_open_still_reads_passages(tmp_path: Any, kit: Any) -> None:
    # The small model labels the likeliest topic INFO, explores nothing and leaves the gap open.
    settings = kit.tree_settings(tmp_path, "navigate.order_entries=document")
    replies = [
        {"labels": [{"entry": 2, "label": "INFO"}, {"entry": 3, "label": "SKIP"}], "gap": "what was done", "closed": False},
        {"labels": [{"entry": 2, "label": "EXPLORE"}], "gap": "what was done", "closed": False},
        {"passages": [1], "gap": "", "closed": True},
    ]
    result = Navigator(ScriptedLLM(replies, concurrency=1), settings).run("What was done to the soil?", tree())
    assert result.trace[0].decision["labels"] == {"Soil": "INFO", "Water": "SKIP"}  # the summary is kept, the subtree read
    assert [(e.kind, e.path) for e in result.evidence] == [
        ("summary", ("Farm report", "Soil")), ("passage", ("Farm report", "Soil", "Treatment"))]
    assert result.closed and result.steps == 3


def test_a_child_the_model_left_unlabelled_can_be_the_one_read(settings: Any, kit: Any) -> None:
    # The real 1.5B model labelled only an unrelated topic INFO and left the right one out.
    replies = [
        {"labels": [{"entry": 2, "label": "INFO"}, {"entry": 3, "label": "SKIP"}], "gap": "rain", "closed": False},
        {"passages": [1], "gap": "", "closed": True},
    ]
    result = Navigator(ScriptedLLM(replies, concurrency=1), settings).run("How heavy was the rain in 1921?", tree())
    assert [(e.kind, e.path) for e in result.evidence] == [
        ("summary", ("Farm report", "Soil")), ("passage", ("Farm report", "Climate"))]
    assert result.trace[0].decision["labels"]["Climate"] == "EXPLORE"


def test_a_root_labelled_info_that_closes_the_gap_ends_the_walk(settings: Any, kit: Any) -> None:
    replies = [{"labels": [{"entry": 2, "label": "INFO"}], "gap": "", "closed": True}]
    result = Navigator(ScriptedLLM(replies, concurrency=1), settings).run("What was done to the soil?", tree())
    assert [e.kind for e in result.evidence] == ["summary"] and result.closed and result.steps == 1


def test_a_steps_picks_go_by_how_much_of_the_question_they_contain(tmp_path: Any, kit: Any) -> None:
    texts = ["The valley farms keep sheep and goats on the hills.", "The harvest was stored in the stone barns by the mill."]
    segments = [SegmentRef(i, i * 20, i * 20 + 10, t) for i, t in enumerate(texts)]
    leaf = Node("0.1", "Farms", [Paragraph("Farms, animals, harvest.", [0, 1])], segments=[0, 1])
    other = Node("0.2", "Weather", [Paragraph("Rain.", [0])], segments=[0])
    farm = KnowledgeTree("farm", "fp", Node("0", "Farm report", children=[leaf, other]), segments)
    replies = [
        {"labels": [{"entry": 1, "label": "EXPLORE"}], "gap": "g", "closed": False},
        {"passages": [1, 2], "gap": "", "closed": True},  # everything shown, in document order
    ]
    relevance = kit.tree_settings(tmp_path, "navigate.order_entries=relevance")
    result = Navigator(ScriptedLLM(replies, concurrency=1), relevance).run("Where was the harvest stored?", farm)
    assert [e.segments for e in result.evidence] == [(1,), (0,)]
    plain = Navigator(ScriptedLLM(replies, concurrency=1), kit.tree_settings(tmp_path)).run("Where was the harvest stored?", farm)
    assert [e.segments for e in plain.evidence] == [(0,), (1,)]  # the model's order


def test_entries_are_listed_by_the_bm25_score_of_the_passages_under_them(tmp_path: Any, kit: Any) -> None:
    replies = [
        {"labels": [{"entry": 1, "label": "EXPLORE"}], "gap": "what was done", "closed": False},  # what the small model says
        {"labels": [{"entry": 1, "label": "EXPLORE"}], "gap": "what was done", "closed": False},
        {"passages": [1], "gap": "", "closed": True},
    ]
    llm = ScriptedLLM(replies, concurrency=1)
    relevance = kit.tree_settings(tmp_path, "navigate.order_entries=relevance")
    result = Navigator(llm, relevance).run("When was lime added to the soil?", tree())
    root_entries = ENTRY.findall(llm.calls[0].prompt)
    assert [title for _, title in root_entries] == ["Soil", "Climate", "Water"]  # Soil holds the lime passage
    assert [title for _, title in ENTRY.findall(llm.calls[1].prompt)] == ["Treatment", "Composition"]
    assert [e.path for e in result.evidence] == [("Farm report", "Soil", "Treatment")]

    in_document_order = ScriptedLLM(replies, concurrency=1)
    Navigator(in_document_order, kit.tree_settings(tmp_path)).run(
        "When was lime added to the soil?", tree()
    )
    assert [title for _, title in ENTRY.findall(in_document_order.calls[0].prompt)] == ["Climate", "Soil", "Water"]


def test_an_interleaved_fill_alternates_with_the_picks_from_the_start(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "navigate.fill_tokens=1000", "navigate.fill_order=interleave")
    result = navigate(kit, NavModel(kit, explore={"Soil", "Treatment"}, info={"Water"}, word="lime"), settings)
    # Picks: the Water summary, the lime passage (2); the fill's only candidate is passage 1 (soil).
    assert [(e.kind, e.segments) for e in result.evidence] == [("summary", (3,)), ("passage", (1,)), ("passage", (2,))]
    # With a target the first two meet, the walk's second pick still comes back, after them.
    first_two = sum(token_count(e.text) for e in result.evidence[:2])
    short = Navigator(ScriptedLLM(default=NavModel(kit, explore={"Soil", "Treatment"}, info={"Water"}, word="lime")), settings)
    again = short.run("What was done to the soil?", tree(), fill_tokens=first_two)
    assert [e.segments for e in again.evidence] == [(3,), (1,), (2,)]
