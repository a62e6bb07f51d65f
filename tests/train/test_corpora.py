"""Training reads its corpora through the loaders navicite ingest uses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from navicite.documents import Document
from navicite.errors import UserInputError
from navicite.ingest.records import FieldMapping, load_beir, load_title_corpus
from navicite.train.corpora import Passage, scifact_corpus, title_text_corpus


def test_passages_are_views_of_the_ingested_documents(tmp_path: Path) -> None:
    beir = tmp_path / "corpus.jsonl"
    beir.write_text("".join(json.dumps(r) + "\n" for r in [{"_id": "7", "title": "T", "text": " Body. ", "metadata": {}}, {"_id": "8", "title": "", "text": ""}]))
    assert scifact_corpus(beir) == [Passage.of(d, "scifact") for d in load_beir(beir, FieldMapping()) if isinstance(d, Document)]
    assert scifact_corpus(beir) == [Passage("scifact:7", "T", "Body.")]  # the blank record is skipped, as ingest skips it
    hotpot = tmp_path / "hotpot.json"
    hotpot.write_text(json.dumps({"Alpha": ["Alpha is a letter.", " It comes first."]}))
    [document] = load_title_corpus(hotpot, FieldMapping())
    assert title_text_corpus(hotpot, "hotpot") == [Passage(f"hotpot:{document.id}", "Alpha", "Alpha is a letter. It comes first.")]


def test_broken_corpus_names_file_and_line(tmp_path: Path) -> None:
    beir = tmp_path / "corpus.jsonl"
    beir.write_text('{"_id": "1", "text": "fine"}\n{"_id": \n')
    with pytest.raises(UserInputError, match=rf"{beir}:2: not valid JSON"):
        scifact_corpus(beir)
    for missing in (lambda: title_text_corpus(tmp_path / "missing.json", "hotpot"), lambda: scifact_corpus(tmp_path / "none.jsonl")):
        with pytest.raises(UserInputError, match="not found"):
            missing()
