"""The Python API: a collection of real files, searched and asked through one object."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from navicite import Collection, Document
from navicite.config import load_settings
from navicite.errors import QuerySyntaxError, UserInputError

#: ../shared/data beside the repository, or where NAVICITE_SHARED_DATA says (a worktree elsewhere).
SHARED_DATA = Path(os.environ.get("NAVICITE_SHARED_DATA") or Path(__file__).resolve().parents[1].parent / "shared" / "data")
SHARED_PDF = SHARED_DATA / "pdf" / "timedep.pdf"
SETTINGS = ["generate.verifier=lexical", "rerank.backend=none"]


def test_add_search_and_ask_a_real_pdf(tmp_path: Path, recorded_llm: Any) -> None:
    if not SHARED_PDF.is_file():
        pytest.skip("../shared/data/pdf is not beside the repository")
    # The model's replies are the real embedded model's, recorded (tests/fixtures/recorded/test_api.json):
    # what is tested is what navicite makes of them.
    model = recorded_llm(load_settings(tmp_path, [*SETTINGS, "llm.backend=embedded", "llm.threads=1"]))
    with Collection(tmp_path, SETTINGS, llm=model) as papers:
        summary = papers.add([SHARED_PDF, Document(id="note", title="A note", text="tmerge is part of the survival package."),
                              Document(id="blank", title=" ", text="")])
        assert summary.added == 2 and len(papers) == 2
        assert [e.id for e in summary.empty] == ["blank"]  # skipped and counted, as records read from files are
        hits = papers.search("tmerge tdc cumtdc", k=3)
        assert hits and hits[0].doc_id != "note" and hits[0].pages and hits[0].place.startswith("p")
        assert any(p.pages for p in papers.passages(hits[0].doc_id))
        answer = papers.ask("Which function builds data sets with time-dependent covariates?")
        # The sentences are the model's; what is checked is navicite's: a verified sentence is marked,
        # and each citation quotes its passage's own text on the page it names.
        [first] = answer.sentences
        assert first.kind == "cited" and first.markers, answer.answer
        marks = "".join(f"[{m}]" for m in first.markers)  # numbered by first use, at the sentence's end
        assert answer.answer.endswith(f" {marks}.") and first.markers == list(range(1, len(first.markers) + 1))
        assert {c.marker for c in answer.citations} == set(first.markers)
        for c in answer.citations:  # a PDF passage names its page; the note is one whole passage
            assert (c.pages and c.passage_id.startswith(c.doc_id + "#p")) if c.doc_id != "note" else c.passage_id == "note"
            passage_text = " ".join(p.text for p in papers.passages(c.doc_id) if p.id == c.passage_id)
            assert c.quote and " ".join(c.quote.split()) in " ".join(passage_text.split())
        assert papers.delete("note") == ["note"] and len(papers) == 1


def test_bad_input_is_a_user_error_and_writes_nothing(tmp_path: Path) -> None:
    with Collection(tmp_path / "home") as papers:
        with pytest.raises(UserInputError):
            papers.add(tmp_path / "missing.pdf")
        with pytest.raises(QuerySyntaxError):
            papers.search("(unclosed AND", boolean=True)
        with pytest.raises(UserInputError, match="no document"):
            papers.passages("nope")
    assert not (tmp_path / "home" / "index").exists()


def test_a_passage_by_id_and_opening_ahead_of_requests(tmp_path: Path) -> None:
    long_text = " ".join(f"Sentence {i} about otters and their stones." for i in range(200))
    with Collection(tmp_path, ["ingest.passage_words=50"]) as papers:
        papers.add([Document("otters", "Otters", long_text), Document("kelp", "Kelp", "Kelp forests shelter fish.")])
        papers.open()
        hit = papers.search("kelp forests", k=1)[0]
        assert papers.passage(hit.passage_id) == papers.passages("kelp")[0]
        second = papers.passages("otters")[1]
        assert papers.passage(second.id) == second and papers.passage("nope#p9") is None


def test_the_ways_in_reach_the_collection_through_public_methods_only() -> None:
    """The MCP server and the evaluation use api.Collection / Engine methods, not what they hold inside."""
    import ast

    src = Path(__file__).resolve().parents[1] / "src" / "navicite"
    for module in ("mcp_server.py", "eval/iter_methods.py"):
        tree = ast.parse((src / module).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            # collection.engine.<part>: a way in reaching inside the public object
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and node.value.attr == "engine":
                raise AssertionError(f"{module}:{node.lineno} reaches inside the engine (.engine.{node.attr})")
            # a.b.c = ...: setting the attribute of a part of another object
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Attribute):
                        raise AssertionError(f"{module}:{node.lineno} sets an attribute inside another object")
