"""Questions over one's own documents: questions file, all_of and page scoring, methods, the run itself."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from navicite.config import load_settings
from navicite.errors import ConfigError, UserInputError
from navicite.eval.datasets import DatasetError
from navicite.eval.docqa import (
    DocQARunner,
    DocQuestion,
    EvalMethod,
    RecordWriter,
    cited_pages,
    holds_all_of,
    load_questions,
    markdown,
    pages_hold_answer,
    parse_method,
    parse_methods,
)
from navicite.collection import CollectionStore
from navicite.llm.base import Message
from navicite.llm.scripted import ScriptedLLM
from navicite.text.passages import page_text

PDF_DIR = Path(__file__).resolve().parents[3] / "shared" / "data" / "pdf"
TIMEDEP = PDF_DIR / "timedep.pdf"

#: Whole-run settings of the tests: no model for retrieval, no embeddings, a lexical verifier.
BASE = ["llm.backend=none", "rerank.backend=none", "generate.verifier=lexical"]

DRAFTS = {
    "bees": "Honey bees make honey from nectar.",
    "tides": "The moon causes the tides.",
}


def write_questions(path: Path, rows: list[dict[str, Any] | str]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def scripted(messages: list[Message]) -> Any:
    """Drafts an answer chosen by the question's subject and cites source 1 for every sentence."""
    text = "\n".join(m.content for m in messages)
    if "An answer was written" in text:
        return {"sentences": [{"index": 1, "kind": "fact", "sources": [1]}]}
    if "Take the answer out of a sentence" in text:
        return {"answer": "honey" if "bees" in text else "the moon"}
    question = text.rsplit("Question:", 1)[-1].lower()
    return DRAFTS["bees"] if "bees" in question else DRAFTS["tides"]


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "bees.md").write_text("# Bees\n\nHoney bees make honey from nectar in the hive. The queen lays the eggs.\n")
    (folder / "tides.md").write_text("# Tides\n\nThe moon's gravity pulls the oceans and causes the tides twice a day.\n")
    return folder


@pytest.fixture
def questions(tmp_path: Path) -> Path:
    return write_questions(tmp_path / "questions.jsonl", [
        {"file": "bees.md", "question": "What do honey bees make from nectar?", "answer": "honey", "all_of": [["honey"]]},
        # Right moon, but the reference also wants the pull of gravity: every group must be met.
        {"file": "tides.md", "question": "What causes the tides?", "answer": "the moon's gravity",
         "all_of": [["moon"], ["gravity", "pull"]]},
    ])


# --------------------------------------------------------------------------- questions file


def test_load_questions_reads_groups_file_and_falls_back_to_the_answer(tmp_path: Path) -> None:
    path = write_questions(tmp_path / "q.jsonl", [
        {"file": "a.pdf", "question": " Which? ", "answer": "x", "all_of": [["Tau-A", "tau a"], ["b"]]},
        "",
        {"question": "What?", "answer": "finegray"},
    ])
    first, second = load_questions(path)
    assert first == DocQuestion(1, "Which?", "x", (("Tau-A", "tau a"), ("b",)), "a.pdf")
    assert second.line == 3 and second.all_of == (("finegray",),) and second.file is None


@pytest.mark.skipif(not (PDF_DIR / "questions.jsonl").is_file(), reason="shared PDF questions not found")
def test_load_questions_reads_the_shared_pdf_questions() -> None:
    loaded = load_questions(PDF_DIR / "questions.jsonl")
    assert len(loaded) == 8 and loaded[0].file == "timedep.pdf" and loaded[0].all_of == (("tmerge",),)


@pytest.mark.parametrize(("rows", "message"), [
    (['{"question": "ok", "answer": "a"}', '{"question": '], "q.jsonl:2: not valid JSON"),
    (['{"answer": "a"}'], "q.jsonl:1: missing field 'question'"),
    (['{"question": "q", "all_of": ["tmerge"]}'], "q.jsonl:1: field 'all_of' should be a list of non-empty lists"),
    (['{"question": "q", "all_of": [[]]}'], "q.jsonl:1: field 'all_of'"),
    (['{"question": "q"}'], "q.jsonl:1: give 'all_of'"),
    (['{"question": "q", "answer": "a", "file": 3}'], "q.jsonl:1: field 'file' should be str"),
    ([], "no questions"),
])
def test_load_questions_names_file_and_line_of_bad_input(tmp_path: Path, rows: list[str], message: str) -> None:
    path = write_questions(tmp_path / "q.jsonl", rows) if rows else tmp_path / "q.jsonl"
    if not rows:
        path.write_text("\n")
    with pytest.raises(DatasetError, match=message.replace("(", r"\(")):
        load_questions(path)


def test_load_questions_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match="missing.jsonl: no such questions file"):
        load_questions(tmp_path / "missing.jsonl")


# --------------------------------------------------------------------------- scoring


def test_every_group_needs_one_of_its_strings() -> None:
    groups = [["moon"], ["gravity", "pull"]]
    assert holds_all_of("The MOON's pull raises the sea.", groups)
    assert not holds_all_of("The moon causes the tides.", groups)
    assert holds_all_of("Kendall's tau\na is the most conservative", [["tau-a", "tau a"]])  # spacing does not matter
    assert not holds_all_of("anything", [])
    # Texts are searched one by one: a phrase split over two pages does not count.
    assert not holds_all_of(["Kendall's tau", "a is conservative"], [["tau a"]])
    assert holds_all_of(["the moon", "its pull"], groups)


@pytest.fixture(scope="module")
def timedep(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """timedep.pdf as the index stores it (ingested for real, read back with get)."""
    if not TIMEDEP.is_file():
        pytest.skip(f"shared PDF not found at {TIMEDEP}")
    collection = CollectionStore(load_settings(tmp_path_factory.mktemp("pdf-home"), BASE))
    try:
        collection.ingest([TIMEDEP])
        [doc_id] = list(collection.documents.ids())
        return collection.get(doc_id)
    finally:
        collection.close()


def test_page_text_cuts_the_stored_pdf_text_at_its_page_starts(timedep: Any) -> None:
    starts = timedep.metadata["page_starts"]
    assert len(starts) == 30
    pages = [page_text(timedep, p) for p in range(1, 31)]
    assert " ".join(pages).split() == timedep.text.split()  # the pages cover the text once, in order
    assert "tmerge" not in pages[3].lower() and "building time-dependent sets with tmerge" in pages[4].lower()
    assert page_text(timedep, 0) == "" and page_text(timedep, 31) == ""


def test_page_accuracy_reads_the_pages_a_citation_names(timedep: Any) -> None:
    lookup = {timedep.id: timedep}.get
    tmerge = [["tmerge"]]
    on_page_5 = SimpleNamespace(doc_id=timedep.id, pages=[5])
    on_page_1 = SimpleNamespace(doc_id=timedep.id, pages=[1])
    no_pages = SimpleNamespace(doc_id=timedep.id)  # a citation from before the field existed
    assert pages_hold_answer([on_page_1, on_page_5], tmerge, lookup)
    assert not pages_hold_answer([on_page_1], tmerge, lookup)
    assert not pages_hold_answer([no_pages], tmerge, lookup)
    assert not pages_hold_answer([SimpleNamespace(doc_id="other", pages=[5])], tmerge, lookup)
    # jasa first shows on page 9; both groups must be on cited pages, not necessarily the same one.
    assert pages_hold_answer([SimpleNamespace(doc_id=timedep.id, pages=[5, 9])], [["tmerge"], ["jasa"]], lookup)
    assert not pages_hold_answer([on_page_5], [["tmerge"], ["jasa"]], lookup)
    assert cited_pages([on_page_5, SimpleNamespace(doc_id=timedep.id, pages=[5, 6])]) == [(timedep.id, 5), (timedep.id, 6)]


# --------------------------------------------------------------------------- methods


def test_builtin_and_own_methods() -> None:
    assert parse_method("flat") == EvalMethod("flat", ("retrieve.method=flat", "rerank.backend=none"))
    assert parse_method("default") == EvalMethod("default", ())
    own = parse_method('mine=generate.max_sources=2, retrieve.noise_terms=["a","b"]')
    assert own == EvalMethod("mine", ("generate.max_sources=2", 'retrieve.noise_terms=["a","b"]'))
    assert [m.name for m in parse_methods(None)] == ["document", "flat", "default"]


@pytest.mark.parametrize(("spec", "message"), [
    ("best", "not built in"),
    ("mine=generate.max_sources", "not section.key=value"),
    ("mine=ingest.passage_words=80", "every method shares"),
    ("=generate.max_sources=2", "give NAME"),
])
def test_bad_methods(spec: str, message: str) -> None:
    with pytest.raises(UserInputError, match=message):
        parse_method(spec)


def test_a_method_named_twice_is_an_error() -> None:
    with pytest.raises(UserInputError, match="more than once"):
        parse_methods(["flat", "flat=generate.max_sources=1"])


def test_method_overrides_reach_the_settings(tmp_path: Path) -> None:
    runner = DocQARunner(tmp_path / "home", BASE)
    document = runner.method_settings(parse_method("document"))
    flat = runner.method_settings(parse_method("flat"))
    assert document.generate.evidence == "document" and document.retrieve.method == "mpr"
    assert flat.retrieve.method == "flat" and flat.rerank.backend == "none" and flat.generate.evidence == "passages"
    with pytest.raises(ConfigError):
        runner.method_settings(parse_method("typo=generate.no_such_key=1"))


# --------------------------------------------------------------------------- the run


def test_run_asks_every_question_with_every_method(tmp_path: Path, docs: Path, questions: Path) -> None:
    models: list[ScriptedLLM] = []

    def factory(settings: Any) -> ScriptedLLM:
        models.append(ScriptedLLM(default=scripted, concurrency=1))
        return models[-1]

    messages: list[str] = []
    runner = DocQARunner(tmp_path / "home", BASE, cache_home=tmp_path / "cache-home", llm_factory=factory, notify=messages.append)
    methods = [parse_method("default"), parse_method("tight=generate.draft_max_tokens=40"), parse_method("document")]
    writer = RecordWriter(tmp_path / "out")
    report = runner.run([docs], load_questions(questions), methods, questions, writer)
    written = writer.finish(report)

    assert len(models) == 1  # the same llm settings share one model
    assert [m.method for m in report.methods] == ["default", "tight", "document"]
    for figures in report.methods:
        assert figures.questions == 2 and figures.accuracy == 0.5  # the tides answer misses the gravity group
        assert figures.page_accuracy is None  # Markdown has no pages
        assert figures.calls == 3.0 and figures.prompt_tokens > 0 and figures.errors == 0
    bees = report.records[0]
    assert bees.correct and bees.cited and bees.file == "bees.md" and bees.page_correct is None
    assert bees.citations[0]["file"] == "bees.md" and bees.sentences[0]["kind"] == "cited"
    assert bees.usage["calls"] == 3 and bees.seconds > 0

    # The tight method's own override reached the draft call; the others kept the default budget.
    draft_budgets = [c.max_tokens for c in models[0].calls
                     if "An answer was written" not in c.prompt and "Take the answer out of a sentence" not in c.prompt]
    assert len(draft_budgets) == 6
    assert draft_budgets[2:4] == [40, 40] and 40 not in draft_budgets[:2] + draft_budgets[4:]

    lines = (tmp_path / "out" / "per_question.jsonl").read_text().splitlines()
    assert len(lines) == 6 and json.loads(lines[3])["method"] == "tight"
    assert [p.name for p in written] == ["per_question.jsonl", "summary.json", "report.md"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["methods"]["tight"]["overrides"] == ["generate.draft_max_tokens=40"]
    assert {d["file"] for d in summary["documents"]} == {"bees.md", "tides.md"}
    assert "| tight | 2 | 0.500 | " in markdown(report)
    assert any(str(tmp_path / "cache-home" / "cache") in m for m in messages)
    assert (tmp_path / "cache-home" / "cache").is_dir()


def test_questions_file_inside_the_documents_is_left_out(tmp_path: Path, docs: Path) -> None:
    inside = write_questions(docs / "questions.jsonl", [{"question": "What do bees make?", "answer": "honey"}])
    messages: list[str] = []
    runner = DocQARunner(tmp_path / "home", BASE, llm_factory=lambda s: ScriptedLLM(default=scripted), notify=messages.append)
    report = runner.run([docs], load_questions(inside), [parse_method("default")], inside)
    assert len(report.documents) == 2 and report.methods[0].accuracy == 1.0
    assert any("left the questions file" in m for m in messages)


def test_bad_input_stops_before_anything_is_written(tmp_path: Path, docs: Path, questions: Path) -> None:
    runner = DocQARunner(tmp_path / "home", BASE, llm_factory=lambda s: ScriptedLLM(default=scripted))
    writer = RecordWriter(tmp_path / "out")
    with pytest.raises(UserInputError, match="no such file or folder"):
        runner.run([docs, tmp_path / "missing.pdf"], load_questions(questions), [parse_method("default")], questions, writer)
    with pytest.raises(UserInputError, match="--method typo"):
        runner.run([docs], load_questions(questions), [parse_method("typo=generate.no_such_key=1")], questions, writer)
    assert not (tmp_path / "out").exists() and not (tmp_path / "home").exists()


def test_a_second_run_replays_the_answers_from_the_shared_cache(tmp_path: Path, docs: Path, questions: Path) -> None:
    from navicite.llm.cache import CACHE_FILE_NAME, AnswerCache

    def factory(settings: Any) -> ScriptedLLM:
        # Made in the scratch home each run, as the real backends do: only the linked cache folder carries over.
        return ScriptedLLM(default=scripted, concurrency=1, cache=AnswerCache(settings.cache_dir / CACHE_FILE_NAME))

    runner = DocQARunner(tmp_path / "home", BASE, cache_home=tmp_path / "cache-home", llm_factory=factory)
    first, second = (runner.run([docs], load_questions(questions), [parse_method("default")], questions) for _ in range(2))
    assert first.methods[0].cache_hits == 0 and second.methods[0].cache_hits == 6  # draft, align, phrase x 2
    assert (tmp_path / "cache-home" / "cache" / CACHE_FILE_NAME).is_file()
    assert any("answered from the cache" in note for note in second.notes)
