"""The engine's modes with a scripted model and a real index and tree store: mpr, navi, hybrid."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from navicite.config import Settings, load_settings
from navicite.documents import Document
from navicite.errors import DocumentNotFound, UserInputError
from navicite.index import create as create_index
from navicite.llm.base import Message
from navicite.llm.scripted import ScriptedLLM
from navicite.navigate.store import TreeStore, build_params
from navicite.navigate.tree import KnowledgeTree, Node, Paragraph, SegmentRef
from navicite.pipeline import Engine
from navicite.text.passages import cut_passages
from navicite.text.segments import segment

SOIL = "The soil of the Ouse farm is clay rich in iron and drains slowly after rain."
LIME = "Farmers added lime to the clay soil in 1930 to make the fields sweeter for barley."
FARM = Document(id="farm", title="Farm report", text=f"{SOIL}\n{LIME}")
CITY = Document(id="city", title="City notes", text="The town hall of the city was rebuilt in stone after the fire of 1850.")
DRAFT = "Farmers added lime to the clay soil in 1930."
ALIGN = {"sentences": [{"index": 1, "kind": "fact", "sources": [1]}]}


def engine_settings(home: Path, *extra: str) -> Settings:
    return load_settings(home, [
        "ingest.segment_words=16", "ingest.segment_overlap=0.0", "navigate.min_document_words=5",
        "navigate.concurrency=1", "generate.verifier=lexical", "llm.backend=none", "rerank.backend=none", *extra,
    ])


def farm_tree(document: Document, settings: Settings) -> KnowledgeTree:
    """Farm report > Soil (segment 0) | Treatment (segment 1), from the document's real segments."""
    parts = segment(document, settings.ingest.segment_words, settings.ingest.segment_overlap)
    assert len(parts) == 2
    root = Node("0", document.title, children=[
        Node("0.1", "Soil", [Paragraph("Clay soil rich in iron.", [0])], segments=[0]),
        Node("0.2", "Treatment", [Paragraph("Lime was added in 1930.", [1])], segments=[1]),
    ])
    return KnowledgeTree(document.id, document.fingerprint, root, [SegmentRef(p.index, p.start, p.end, p.text) for p in parts])


class Model:
    """Explores every entry, picks the passage mentioning lime (closing the gap), then drafts and aligns."""

    def __init__(self) -> None:
        self.stages: list[str] = []

    def __call__(self, messages: list[Message]) -> Any:
        text = "\n".join(m.content for m in messages)
        if "Label every entry" in text:
            self.stages.append("level")
            entries = text.count("\n[")
            return {"labels": [{"entry": i, "label": "EXPLORE"} for i in range(1, entries + 1)], "gap": "when", "closed": False}
        if "Choose the passages" in text:
            self.stages.append("leaf")
            found = "lime" in text.split('<passage n="1">')[1].split("</passage>")[0].lower()
            return {"passages": [1] if found else [], "gap": "" if found else "when", "closed": found}
        if "Take the answer out of a sentence" in text:
            self.stages.append("phrase")
            return {"answer": text.split("Sentence:")[-1].splitlines()[0].split()[-1].rstrip(".")}
        if self.stages and self.stages[-1] == "draft":
            self.stages.append("align")
            return ALIGN
        self.stages.append("draft")
        return DRAFT


@pytest.fixture
def home(tmp_path: Path) -> Path:
    settings = engine_settings(tmp_path)
    index = create_index(settings)
    index.upsert([FARM, CITY])
    index.close()
    return tmp_path


def make_engine(home: Path, with_tree: bool = True) -> tuple[Engine, Model]:
    settings = engine_settings(home)
    if with_tree:
        TreeStore.open(settings).put(farm_tree(FARM, settings), build_params(settings))
    model = Model()
    return Engine(settings, llm=ScriptedLLM(default=model, concurrency=1)), model


def test_navi_hands_each_evidence_passage_to_citeg_with_its_path(home: Path) -> None:
    engine, model = make_engine(home)
    events = list(engine.ask_stream("When was lime added to the soil?", "navi"))
    stage = next(e for e in events if e.kind == "stage")
    # The path the walk took; the fill then added the Soil passage (it shares "soil" with the question).
    assert stage.data["name"] == "navigate" and stage.data["paths"] == [["Farm report", "Treatment"]]
    answer = events[-1].data["answer"]
    navigation = answer.trace[0].outputs["navigations"][0]
    assert navigation["trace"][-1]["decision"] == {"passages": [0]}
    assert [(e["path"], e["via"]) for e in navigation["evidence"]] == [
        (["Farm report", "Treatment"], "navigation"), (["Farm report", "Soil"], "fill")
    ]
    assert model.stages == ["level", "leaf", "leaf", "draft", "align", "phrase"]
    assert answer.short_answer == "1930"
    assert "retrieve" not in [t.name for t in answer.trace]
    assert answer.trace[0].name == "navigate"
    assert answer.trace[0].outputs["navigations"][0]["evidence"][0]["passage_id"] == "seg1"
    [citation] = answer.citations
    assert citation.doc_id == "farm" and citation.passage_id == "seg1"
    assert citation.title == "Farm report > Treatment" and "lime" in citation.passage
    assert answer.llm["stages"]["navigate_level"]["calls"] == 1


def test_navi_with_chosen_documents_checks_them(home: Path) -> None:
    engine, _ = make_engine(home)
    with pytest.raises(DocumentNotFound, match="nope"):
        engine.ask("When was lime added?", "navi", ["nope"])
    with pytest.raises(UserInputError, match="navicite tree build city"):
        engine.ask("When was lime added?", "navi", ["city"])
    with pytest.raises(UserInputError, match="mode navi"):
        engine.ask("When was lime added?", "hybrid", ["farm"])


def test_navi_without_trees_says_how_to_build_them(home: Path) -> None:
    engine, model = make_engine(home, with_tree=False)
    with pytest.raises(UserInputError, match="navicite tree build"):
        engine.ask("When was lime added to the soil?", "navi")
    assert model.stages == []
    assert not (home / "trees.sqlite").exists()  # asking never creates the store


def test_navi_skips_a_tree_of_an_older_document_version(home: Path) -> None:
    engine, _ = make_engine(home)
    changed = Document(id="farm", title="Farm report", text=f"{SOIL}\n{LIME} It rained.")
    engine.index.upsert([changed])
    with pytest.raises(UserInputError, match="no document has one"):
        engine.ask("When was lime added to the soil?", "navi")


def test_hybrid_replaces_navigated_documents_and_keeps_the_others(home: Path) -> None:
    engine, model = make_engine(home)
    seen: list[Any] = []
    original = engine.citeg.stream

    def recording(question: str, sources: list[Any], recorder: Any) -> Any:
        seen.extend(sources)
        return original(question, sources, recorder)

    engine.citeg.stream = recording  # type: ignore[method-assign]
    events = list(engine.ask_stream("lime soil clay farm city town hall", "hybrid"))
    names = [e.data["name"] for e in events if e.kind == "stage"]
    assert names == ["retrieve", "navigate"]
    by_doc = {(s.doc_id, s.passage_id) for s in seen}
    assert ("farm", "seg1") in by_doc and ("farm", None) not in by_doc  # the whole farm report is replaced
    assert ("city", "city") in by_doc  # no tree: its one passage (the whole short record) stays
    farm_score = next(s.score for s in seen if s.doc_id == "farm")
    assert farm_score > 0
    answer = events[-1].data["answer"]
    assert [t.name for t in answer.trace[:2]] == ["retrieve", "navigate"]
    assert model.stages[0] == "level"


def test_hybrid_without_trees_is_retrieval_only(home: Path) -> None:
    engine, model = make_engine(home, with_tree=False)
    events = list(engine.ask_stream("lime soil clay farm", "hybrid"))
    assert [e.data["name"] for e in events if e.kind == "stage"] == ["retrieve"]
    assert "level" not in model.stages and events[-1].kind == "answer"


def test_unknown_mode_is_a_user_error(home: Path) -> None:
    engine, _ = make_engine(home)
    with pytest.raises(UserInputError, match="navi"):
        engine.ask("When?", "tree")  # type: ignore[arg-type]


def test_closing_the_engine_closes_the_retriever_stores_and_a_later_question_reopens_them(home: Path) -> None:
    with Engine(engine_settings(home, "rerank.backend=hybrid")) as engine:
        first = engine.retriever
        assert engine.retrieve("clay soil").ranked[0].doc_id == "farm"
    with pytest.raises(sqlite3.ProgrammingError):
        first.reranker.store.get_many(["x"])  # type: ignore[attr-defined]
    assert engine.retrieve("clay soil").ranked[0].doc_id == "farm"
    assert engine.retriever is not first
    engine.close()
    engine.close()


def test_mpr_shows_the_first_matches_at_once_then_the_chosen_sources_before_the_draft(home: Path) -> None:
    engine, _ = make_engine(home, with_tree=False)
    events = list(engine.ask_stream("lime soil clay farm", "mpr"))
    kinds = [e.kind for e in events]
    assert kinds[0] == "sources" and events[0].data["preliminary"]  # before the analysis call
    assert events[0].data["sources"][0]["doc_id"] == "farm"
    chosen = next(e for e in events[1:] if e.kind == "sources")
    assert not chosen.data.get("preliminary") and kinds.index("stage") < kinds.index("sources", 1) < kinds.index("answer")
    answer = events[-1].data["answer"]
    assert {c.passage_id for c in answer.citations} <= {s["passage_id"] for s in chosen.data["sources"]}


class RoundsModel(Model):
    """Model's draft and alignment, plus the keyword analysis and one missing-information reply."""

    def __call__(self, messages: list[Message]) -> Any:
        text = "\n".join(m.content for m in messages)
        if "You prepare keyword searches" in text:
            self.stages.append("analyze")
            return {"primary": [{"term": "lime", "synonyms": []}, {"term": "soil", "synonyms": []}], "expanded": []}
        if "Some questions need several searches" in text:
            self.stages.append("gap")
            return {"enough": False, "bridge": "town hall", "missing": "when it was rebuilt",
                    "sub_question": "When was the town hall rebuilt?", "keywords": ["town hall", "rebuilt"]}
        return super().__call__(messages)


def test_mpr_rounds_reach_the_stage_event_and_the_answer_trace(home: Path) -> None:
    settings = engine_settings(home, "llm.backend=embedded", "retrieve.rounds=2", "retrieve.bridge=llm", "retrieve.analysis=llm")  # the scripted model stands in
    model = RoundsModel()
    engine = Engine(settings, llm=ScriptedLLM(default=model, concurrency=1))
    events = list(engine.ask_stream("When was lime added to the soil?", "mpr"))
    assert model.stages[:2] == ["analyze", "gap"]
    stage = next(e for e in events if e.kind == "stage")
    [step] = stage.data["rounds"]
    assert step["sub_question"] == "When was the town hall rebuilt?" and step["queries"][0]["round"] == 2
    # Portfolio B of the question ("the") already pooled the city notes: nothing new, so the loop ends.
    assert step["new"] == [] and stage.data["stopped"] == "round 2 found no new passages"
    answer = events[-1].data["answer"]
    retrieve = answer.trace[0].to_dict()
    assert retrieve["outputs"]["rounds"][0]["keywords"] == ["town hall", "rebuilt"]
    assert retrieve["outputs"]["ranked_against"] == ["When was lime added to the soil?", "When was the town hall rebuilt?"]
    assert answer.llm["stages"]["gap"]["calls"] == 1


def test_the_names_round_puts_the_second_hop_before_the_draft(tmp_path: Path) -> None:
    album = Document(id="album", title="Hello Love", text="Hello Love is a country album recorded by Hank Snow for RCA.")
    singer = Document(id="singer", title="Hank Snow", text="Hank Snow spent his final years in Madison, Tennessee.")
    others = [Document(id=f"o{i}", title=f"Song {i}", text=f"Radio show {i} plays country records at night.") for i in range(6)]
    question = "Where did the performer of Hello Love die?"

    def read(*extra: str) -> list[str]:
        settings = engine_settings(tmp_path, *extra)
        index = create_index(settings)
        index.upsert([album, singer, *others])
        index.close()
        engine = Engine(settings, llm=ScriptedLLM(default=Model(), concurrency=1))
        chosen = [e for e in engine.ask_stream(question, "mpr") if e.kind == "sources" and not e.data.get("preliminary")]
        return [s["doc_id"] for s in chosen[0].data["sources"]]

    # One round never reaches the singer's passage; the names round finds it by "Hank Snow", and
    # the draft reads it though its score against the question is low.
    assert "singer" not in read()
    assert "singer" in read("retrieve.rounds=2", "retrieve.bridge=names")


def test_navi_over_a_structure_tree_cites_the_index_passages(tmp_path: Path) -> None:
    from navicite.navigate.build import TreeBuilder
    from navicite.text.sections import markdown_sections

    filler = "The farm keeps records of every season and every field in its ledger."
    text = "\n".join([f"# Soil\n{SOIL} {filler} {filler}", f"# Treatment\n{LIME} {filler} {filler}", f"# Harvest\n{filler} {filler} {filler}"])
    book = Document(id="book", title="Farm book", text=text, metadata={"sections": markdown_sections(text)})
    settings = engine_settings(tmp_path, "ingest.passage_words=20")
    index = create_index(settings)
    index.upsert([book])
    index.close()
    outcome = TreeBuilder(settings, ScriptedLLM([])).build(book)  # three leaves: no summary to ask
    assert (outcome.status, outcome.source) == ("built", "headings")
    engine = Engine(settings, llm=ScriptedLLM(default=Model(), concurrency=1))
    answer = engine.ask("When was lime added to the soil?", "navi")
    [citation] = answer.citations
    passages = {p.text: p for p in cut_passages(book, 20)}
    lime = next(p for t, p in passages.items() if "lime" in t)
    assert citation.passage_id == lime.id and citation.section == "Treatment"
    assert citation.title == "Farm book > Treatment"


def test_the_answer_sums_the_calls_of_every_stage_it_lists(home: Path) -> None:
    settings = engine_settings(home, "llm.backend=embedded", "retrieve.rounds=2", "retrieve.bridge=llm", "retrieve.analysis=llm")
    TreeStore.open(settings).put(farm_tree(FARM, settings), build_params(settings))
    engine = Engine(settings, llm=ScriptedLLM(default=RoundsModel(), concurrency=1))
    answer = engine.ask("When was lime added to the soil?", "hybrid")
    names = [t.name for t in answer.trace]
    assert names[:3] == ["retrieve", "navigate", "sources"] and "draft" in names
    by_stage = {t.name: sorted({u.stage for u in t.calls}) for t in answer.trace}
    assert by_stage["retrieve"] == ["analyze", "gap"]
    assert by_stage["navigate"] == ["navigate_leaf", "navigate_level"]
    assert by_stage["draft"] == ["draft"] and by_stage["align"] == ["align"]
    calls = [u for t in answer.trace for u in t.calls]
    assert answer.llm["calls"] == len(calls) == sum(int(t["calls"]) for t in answer.llm["stages"].values())
    assert answer.llm["prompt_tokens"] == sum(u.prompt_tokens for u in calls)
    assert "calls" not in answer.to_dict()["trace"]["stages"][0]  # each entry stays name, seconds, inputs, outputs


def test_auto_widens_the_best_passage_to_its_section_and_says_so(tmp_path: Path) -> None:
    from navicite.collection import CollectionStore
    from navicite.text.sections import markdown_sections

    steps = " ".join(f"Step {i} of the spreading took a whole morning with the horse cart." for i in range(1, 4))
    text = "\n".join([f"# Soil\n{SOIL} The ledger of the farm keeps every field and season.",
                      f"# Treatment\n{LIME} {steps}", "# Harvest\nBarley was cut in August and stored in the barn."])
    book = Document(id="book", title="Farm book", text=text, metadata={"sections": markdown_sections(text)})
    plain = Document(id="plain", title="Farm diary", text=f"{LIME} {steps}")
    settings = engine_settings(tmp_path, "ingest.passage_words=20")
    CollectionStore(settings).upsert([book, plain])
    question = "When was lime added to the soil?"
    events: dict[str, list[Any]] = {}
    for mode in ("mpr", "auto"):
        engine = Engine(settings, llm=ScriptedLLM(default=Model(), concurrency=1))
        events[mode] = list(engine.ask_stream(question, mode))  # type: ignore[arg-type]
    read = {mode: {s["passage_id"] for e in events[mode] if e.kind == "sources" and not e.data.get("preliminary")
                   for s in e.data["sources"]} for mode in events}
    [widen_stage] = [e.data for e in events["auto"] if e.kind == "stage" and e.data["name"] == "widen"]
    assert widen_stage["choice"] == "section" and widen_stage["section"] == ["Treatment"]
    assert "'Treatment' of 'Farm book'" in widen_stage["reason"]
    treatment = [p.id for p in cut_passages(book, 20) if p.section == ("Treatment",)]
    assert len(treatment) >= 2
    # The section's later steps share no word with the question: flat retrieval's score floor drops them.
    assert set(treatment) <= read["auto"] and not set(treatment) <= read["mpr"]
    answer = events["auto"][-1].data["answer"]
    assert "widen" in [t.name for t in answer.trace] and answer.citations


def test_auto_reads_the_opening_of_the_document_for_a_summary(tmp_path: Path) -> None:
    from navicite.collection import CollectionStore
    from navicite.text.sections import markdown_sections

    steps = " ".join(f"Step {i} of the spreading took a whole morning with the horse cart." for i in range(1, 4))
    text = "\n".join([f"# Soil\n{SOIL} The ledger of the farm keeps every field and season.",
                      f"# Treatment\n{LIME} {steps}", "# Harvest\nBarley was cut in August and stored in the barn."])
    book = Document(id="book", title="Farm book", text=text, metadata={"sections": markdown_sections(text)})
    settings = engine_settings(tmp_path, "ingest.passage_words=20")
    CollectionStore(settings).upsert([book])
    events = list(Engine(settings, llm=ScriptedLLM(default=Model(), concurrency=1)).ask_stream(
        "Summarize what the farm book says about lime and barley.", "auto"))
    [widen_stage] = [e.data for e in events if e.kind == "stage" and e.data["name"] == "widen"]
    assert widen_stage["choice"] == "opening" and "summary" in widen_stage["reason"] and "'Farm book'" in widen_stage["reason"]
    [read] = [[s["passage_id"] for s in e.data["sources"]] for e in events if e.kind == "sources" and not e.data.get("preliminary")]
    # The document from its start, in order: the Soil passages (which share no word with the question) first.
    opening = [p.id for p in cut_passages(book, 20)][: len(read)]
    assert read[:2] == opening[:2] and cut_passages(book, 20)[0].section == ("Soil",)
    assert events[-1].kind == "answer"


def test_auto_keeps_flat_retrieval_where_the_best_passage_has_no_heading(home: Path) -> None:
    engine, _ = make_engine(home, with_tree=False)
    events = list(engine.ask_stream("lime soil clay farm", "auto"))
    [widen_stage] = [e.data for e in events if e.kind == "stage" and e.data["name"] == "widen"]
    assert widen_stage["choice"] == "flat" and "no heading" in widen_stage["reason"]
    assert events[-1].kind == "answer"
