"""JSONL/JSON records, BEIR folders and HotpotQA/HippoRAG corpora."""

from __future__ import annotations

from collections.abc import Callable

import json
from pathlib import Path

import pytest


from navicite.documents import Document, content_id
from navicite.ingest.base import Failure
from navicite.ingest.records import (
    EmptyRecord,
    FieldMapping,
    load_beir,
    load_json,
    load_jsonl,
    load_title_corpus,
    record_to_document,
)

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def split(items: list) -> tuple[list[Document], list[Failure]]:
    return [i for i in items if isinstance(i, Document)], [i for i in items if isinstance(i, Failure)]


def test_default_names_are_recognised_and_extras_go_to_metadata() -> None:
    record = {"ID": "x1", "Title": "T", "body": "B", "Abstract": "A", "url": "https://e.org/x1", "year": 2020}
    doc = record_to_document(record, FieldMapping(), "f:1")
    assert doc == Document(id="x1", title="T", abstract="A", text="B", link="https://e.org/x1", metadata={"year": 2020})


def test_explicit_mapping_and_dotted_paths() -> None:
    record = {
        "control_number": 1234,
        "titles": [{"title": "First title"}, {"title": "Second"}],
        "abstracts": [{"value": "An abstract."}],
        "paper": {"full": "The full text."},
    }
    mapping = FieldMapping(id="control_number", text="paper.full")
    doc = record_to_document(record, mapping, "f:1")
    assert isinstance(doc, Document)
    assert (doc.id, doc.title, doc.abstract, doc.text) == ("1234", "First title", "An abstract.", "The full text.")
    assert doc.metadata == {}


def test_beir_metadata_is_merged_not_nested() -> None:
    doc = record_to_document({"_id": "7", "title": "t", "text": "x", "metadata": {"year": 1999}}, FieldMapping(), "f:1")
    assert doc.metadata == {"year": 1999}


def test_missing_id_is_derived_from_content_and_stable() -> None:
    record = {"title": "Same", "text": "Same text"}
    first = record_to_document(record, FieldMapping(), "a:1")
    second = record_to_document(dict(record), FieldMapping(), "b:9")
    assert first.id == second.id == content_id("Same", "", "Same text")
    other = record_to_document({"title": "Same", "text": "Other text"}, FieldMapping(), "a:2")
    assert other.id != first.id


def test_jsonl_bad_line_and_empty_record_name_their_line(tmp_path: Path, write_jsonl: Callable[..., Path]) -> None:
    path = write_jsonl(tmp_path / "c.jsonl", [
        {"id": "1", "title": "one", "text": "first"},
        '{"id": "2", "title": broken',
        {"id": "3", "year": 2001},
        "[1, 2]",
        {"id": "5", "text": "fifth"},
    ])
    docs, failures = split(list(load_jsonl(path, FieldMapping())))
    assert [d.id for d in docs] == ["1", "5"]
    assert [f.path for f in failures] == [f"{path}:2", f"{path}:3", f"{path}:4"]
    assert "malformed JSON" in failures[0].reason
    assert "no title and no text" in failures[1].reason
    assert "expected a JSON object" in failures[2].reason


def test_json_array_and_single_object(tmp_path: Path) -> None:
    array = tmp_path / "a.json"
    array.write_text(json.dumps([{"doi": "10.1/x", "title": "A"}, {"nothing": True}]), encoding="utf-8")
    docs, failures = split(list(load_json(array, FieldMapping())))
    assert [d.id for d in docs] == ["10.1/x"]
    assert failures == [Failure(f"{array}#1", "record has no title and no text")]
    single = tmp_path / "one.json"
    single.write_text(json.dumps({"title": "Only", "contents": "body"}), encoding="utf-8")
    docs, failures = split(list(load_json(single, FieldMapping())))
    assert [(d.title, d.text) for d in docs] == [("Only", "body")] and not failures


def test_malformed_json_file_is_one_failure(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("[{", encoding="utf-8")
    items = list(load_json(path, FieldMapping()))
    assert len(items) == 1 and isinstance(items[0], Failure) and items[0].path == str(path)


def test_beir_folder_reads_only_the_corpus(tmp_path: Path, write_beir: Callable[..., Path]) -> None:
    folder = write_beir(tmp_path / "beir", [{"_id": "d1", "title": "t1", "text": "x"}, {"_id": "d2", "title": "t2", "text": "y"}])
    docs, failures = split(list(load_beir(folder, FieldMapping())))
    assert [d.id for d in docs] == ["d1", "d2"] and not failures


def test_beir_records_with_blank_content_are_empty_not_failed(tmp_path: Path, write_beir: Callable[..., Path]) -> None:
    # Cranfield's shape: the fields are there, their values are empty.
    folder = write_beir(tmp_path / "beir", [
        {"_id": "d1", "title": "Wing flutter", "text": "Flutter grows with speed.", "metadata": {}},
        {"_id": "471", "title": "", "text": "", "metadata": {}},
        {"_id": "995", "title": "  ", "text": "\n\t", "metadata": {}},
        {"_id": "d4", "title": "", "text": "Only a text."},
    ])
    items = list(load_beir(folder, FieldMapping()))
    corpus = folder / "corpus.jsonl"
    assert [i.id for i in items if isinstance(i, Document)] == ["d1", "d4"]
    assert [i for i in items if isinstance(i, EmptyRecord)] == [EmptyRecord(f"{corpus}:2", "471"), EmptyRecord(f"{corpus}:3", "995")]
    assert not [i for i in items if isinstance(i, Failure)]
    assert str(EmptyRecord(f"{corpus}:2", "471")) == f"{corpus}:2: record 471 has no title, abstract or text; skipped"


def test_null_or_blank_mapped_fields_are_empty_but_absent_ones_fail() -> None:
    assert record_to_document({"id": "n", "title": None, "abstract": [], "text": None}, FieldMapping(), "f:1") == EmptyRecord("f:1", "n")
    assert record_to_document({"pid": "p", "body": {"x": ""}}, FieldMapping(id="pid", text="body.x"), "f:2") == EmptyRecord("f:2", "p")
    # None of the content fields at all: most likely a wrong mapping, which must not pass quietly.
    assert record_to_document({"pid": "p"}, FieldMapping(id="pid", text="body.x"), "f:3") == Failure("f:3", "record has no title and no text")
    assert record_to_document({"title": "", "text": ""}, FieldMapping(), "f:4") == EmptyRecord("f:4", "")


def test_beir_folder_without_corpus_is_a_failure(tmp_path: Path) -> None:
    items = list(load_beir(tmp_path, FieldMapping()))
    assert len(items) == 1 and "no corpus.jsonl" in items[0].reason


def test_title_corpus_gives_one_document_per_title(tmp_path: Path) -> None:
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps({"Alpha": ["Alpha is a letter.", " It comes first."], "Beta": ["Beta follows."]}), encoding="utf-8")
    docs, failures = split(list(load_title_corpus(path, FieldMapping())))
    assert [(d.title, d.text) for d in docs] == [("Alpha", "Alpha is a letter. It comes first."), ("Beta", "Beta follows.")]
    assert docs[0].id == content_id("title", "Alpha") and not failures
    # json format recognises the same shape
    assert [d.id for d in split(list(load_json(path, FieldMapping())))[0]] == [d.id for d in docs]


@pytest.mark.skipif(not DATA.is_dir(), reason="shared development data not present next to the repository")
def test_shared_hotpotqa_and_musique_corpora() -> None:
    hotpot, failed = split(list(load_title_corpus(DATA / "hotpotqa" / "hipporag-train-corpus.json", FieldMapping())))
    assert len(hotpot) == 994 and len({d.id for d in hotpot}) == 994 and not failed
    musique, failed = split(list(load_title_corpus(DATA / "musique" / "hipporag-train-corpus.json", FieldMapping())))
    # MuSiQue repeats titles across paragraphs, so ids come from title and text together.
    assert len(musique) == 1890 and len({d.id for d in musique}) == 1890 and not failed


def test_title_corpus_entry_without_title_or_text_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps({"Alpha": ["Alpha is a letter."], "": [" ", ""]}), encoding="utf-8")
    items = list(load_title_corpus(path, FieldMapping()))
    assert [type(i).__name__ for i in items] == ["Document", "EmptyRecord"]
    assert items[1] == EmptyRecord(f"{path}#''", "")


def test_title_corpus_format_rejects_other_objects(tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    path.write_text(json.dumps({"title": "x", "text": "y"}), encoding="utf-8")
    [item] = list(load_title_corpus(path, FieldMapping()))
    assert isinstance(item, Failure) and "not a title -> sentences corpus" in item.reason


def test_a_line_nested_thousands_deep_costs_that_line_only(tmp_path: Path) -> None:
    from navicite.ingest.loaders import load

    path = tmp_path / "deep.jsonl"
    deep_value = "[" * 900 + '"t"' + "]" * 900
    lines = [
        json.dumps({"id": "a", "title": "First", "text": "one"}),
        "[" * 5000 + "]" * 5000,  # past the parser's recursion limit
        json.dumps({"id": "b", "title": "Third", "text": "three"}),
        json.dumps({"id": "c", "title": "Fourth", "text": "four"}),
        '{"id": "d", "title": ' + deep_value + ', "text": "five"}',  # parses, but too deep to flatten
        json.dumps({"id": "e", "title": "Sixth", "text": "six"}),
    ]
    path.write_text("\n".join(lines) + "\n")
    docs, failures = split(list(load(path, "jsonl")))
    assert [d.id for d in docs] == ["a", "b", "c", "e"]
    assert [f.path for f in failures] == [f"{path}:2", f"{path}:5"]
    assert "nested too deeply" in failures[0].reason and "nested too deeply" in failures[1].reason
