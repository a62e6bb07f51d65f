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
        # The draft's words are the script's; what is checked is navicite's: the sentence was verified
        # against a retrieved source, marked, and its citation quotes that source's own text.
        [first] = answer.sentences
        assert first.kind == "cited" and first.markers, answer.answer
        assert answer.answer.endswith(f" [{first.markers[0]}].") and {c.marker for c in answer.citations} == set(first.markers)
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
