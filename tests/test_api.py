"""The Python API: a collection of real files, searched and asked through one object."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from navicite import Collection, Document
from navicite.errors import QuerySyntaxError, UserInputError
from navicite.llm.base import Message
from navicite.llm.scripted import ScriptedLLM

SHARED_PDF = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "pdf" / "timedep.pdf"


def _model(messages: list[Message]) -> Any:
    """The analysis (unusable, so the statistical fallback runs), an answer-first draft, one alignment."""
    text = "\n".join(m.content for m in messages)
    if "<source" in text and "sentences" in text and "Draft" in text:
        return {"sentences": [{"index": 1, "kind": "fact", "sources": [1]}]}
    if "<source" in text:
        return "Data sets with time-dependent covariates are built with the tmerge function."
    return "not json"


def test_add_search_and_ask_a_real_pdf(tmp_path: Path) -> None:
    if not SHARED_PDF.is_file():
        pytest.skip("../shared/data/pdf is not beside the repository")
    with Collection(tmp_path, ["generate.verifier=lexical", "rerank.backend=none"],
                    llm=ScriptedLLM(default=_model)) as papers:
        summary = papers.add([SHARED_PDF, Document(id="note", title="A note", text="tmerge is part of the survival package."),
                              Document(id="blank", title=" ", text="")])
        assert summary.added == 2 and len(papers) == 2
        assert [e.id for e in summary.empty] == ["blank"]  # skipped and counted, as records read from files are
        hits = papers.search("tmerge tdc cumtdc", k=3)
        assert hits and hits[0].doc_id != "note" and hits[0].pages and hits[0].place.startswith("p")
        assert any(p.pages for p in papers.passages(hits[0].doc_id))
        answer = papers.ask("Which function builds data sets with time-dependent covariates?")
        assert "tmerge" in answer.answer
        assert answer.citations, answer.answer
        for c in answer.citations:  # a PDF passage names its page; the note is one whole passage
            assert (c.pages and c.passage_id.startswith(c.doc_id + "#p")) if c.doc_id != "note" else c.passage_id == "note"
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
