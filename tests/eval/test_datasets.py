"""Data set loaders: layouts, gold ids, and errors that name the file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from navicite.eval.datasets import DatasetError, load_dataset, parse_choices
from navicite.ingest.records import FieldMapping, load_beir, load_jsonl, load_title_corpus, title_document_id


def test_beir_loads_judged_queries_with_grades(beir_dir: Path) -> None:
    data = load_dataset(f"beir:{beir_dir}", "test")
    assert [q.id for q in data.questions] == ["q1", "q2", "q3"]
    assert data.questions[2].gold == {"d2": 1, "d4": 0}
    assert {d.id for d in data.corpus} == {"d1", "d2", "d3", "d4", "d5"}
    # BEIR's ``text`` is the document's text, as navicite ingest reads it.
    assert data.corpus[0].title == "Photosynthesis" and "sunlight" in data.corpus[0].text and not data.corpus[0].abstract


def test_corpora_are_the_documents_navicite_ingest_makes(beir_dir: Path, hotpot_files: Path, tmp_path: Path) -> None:
    assert load_dataset(f"beir:{beir_dir}", "test").corpus == list(load_beir(beir_dir, FieldMapping()))
    shared = hotpot_files.with_name("mini-corpus.json")
    assert load_dataset(f"hotpotqa:{hotpot_files}").corpus == list(load_title_corpus(shared, FieldMapping()))
    (tmp_path / "corpus.jsonl").write_text(json.dumps({"id": "x", "title": "X", "text": "body", "year": 1}) + "\n")
    (tmp_path / "mine.jsonl").write_text(json.dumps({"question": "q?", "gold_ids": ["x"]}) + "\n")
    assert load_dataset(f"jsonl:{tmp_path / 'mine.jsonl'}").corpus == list(load_jsonl(tmp_path / "corpus.jsonl", FieldMapping()))


def test_beir_record_failure_names_file_and_line(beir_dir: Path) -> None:
    corpus = beir_dir / "corpus.jsonl"
    corpus.write_text(corpus.read_text() + json.dumps({"_id": "d9", "year": 2000}) + "\n")
    with pytest.raises(DatasetError, match=rf"{corpus}:6: record has no title and no text"):
        load_dataset(f"beir:{beir_dir}", "test")


def test_beir_empty_record_is_skipped_as_ingest_skips_it(beir_dir: Path) -> None:
    corpus = beir_dir / "corpus.jsonl"
    corpus.write_text(corpus.read_text() + json.dumps({"_id": "d9", "title": "", "text": " "}) + "\n")
    assert "d9" not in {d.id for d in load_dataset(f"beir:{beir_dir}", "test").corpus}


def test_corpus_key_follows_corpus_bytes(beir_dir: Path) -> None:
    key = load_dataset(f"beir:{beir_dir}", "test").corpus_key()
    assert key == load_dataset(f"beir:{beir_dir}", "test").corpus_key()
    with (beir_dir / "corpus.jsonl").open("a") as handle:
        handle.write(json.dumps({"_id": "d6", "title": "", "text": "new"}) + "\n")
    assert load_dataset(f"beir:{beir_dir}", "test").corpus_key() != key


def test_beir_unknown_split_lists_available(beir_dir: Path) -> None:
    with pytest.raises(DatasetError, match=r"available splits: test"):
        load_dataset(f"beir:{beir_dir}", "train")


def test_bad_json_line_names_file_and_line(beir_dir: Path) -> None:
    corpus = beir_dir / "corpus.jsonl"
    lines = corpus.read_text().splitlines()
    lines[2] = '{"_id": "d3", "title": "broken'
    corpus.write_text("\n".join(lines) + "\n")
    with pytest.raises(DatasetError, match=rf"{corpus}:3: not valid JSON") as info:
        load_dataset(f"beir:{beir_dir}", "test")
    assert info.value.exit_code == 2


def test_missing_field_names_file_and_line(beir_dir: Path) -> None:
    queries = beir_dir / "queries.jsonl"
    queries.write_text(queries.read_text() + '{"_id": "q9"}\n')
    with pytest.raises(DatasetError, match=rf"{queries}:4: missing field 'text'"):
        load_dataset(f"beir:{beir_dir}", "test")


def test_bad_qrels_row(beir_dir: Path) -> None:
    qrels = beir_dir / "qrels" / "test.tsv"
    qrels.write_text(qrels.read_text() + "q1\td2\n")
    with pytest.raises(DatasetError, match=rf"{qrels}:6: expected 3 tab-separated columns"):
        load_dataset(f"beir:{beir_dir}", "test")


@pytest.mark.parametrize(
    ("spec", "message"),
    [("nope", "KIND:PATH"), ("word2vec:/tmp", "unknown data set kind 'word2vec'"), ("beir:/no/such/dir", "/no/such/dir: no such file")],
)
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(DatasetError, match=message):
        load_dataset(spec)


def test_hotpot_shared_corpus_and_gold_titles(hotpot_files: Path) -> None:
    data = load_dataset(f"hotpotqa:{hotpot_files}")
    question = data.questions[0]
    assert question.gold == {title_document_id("Ada Lovelace"): 1, title_document_id("Charles Babbage"): 1}
    assert question.answers == ("London",) and question.candidates == ()
    assert len(data.corpus) == 4
    assert data.corpus_files == (hotpot_files.with_name("mini-corpus.json"),)
    babbage = next(d for d in data.corpus if d.id == title_document_id("Charles Babbage"))
    assert babbage.text == "Charles Babbage designed the Analytical Engine. He was born in London."


def test_hotpot_distractor_layout_restricts_to_own_paragraphs(tmp_path: Path) -> None:
    # The Hugging Face column layout, as in distractor-dev-100.json.
    rec = {
        "id": "x1",
        "question": "q?",
        "answer": "yes",
        "supporting_facts": {"title": ["A", "B"], "sent_id": [0, 0]},
        "context": {"title": ["A", "B", "C"], "sentences": [["a."], ["b."], ["c."]]},
    }
    path = tmp_path / "dev.json"
    path.write_text(json.dumps([rec]))
    data = load_dataset(f"hotpotqa:{path}")
    ids = {title: title_document_id(title) for title in "ABC"}
    assert data.questions[0].candidates == (ids["A"], ids["B"], ids["C"])
    assert data.questions[0].gold == {ids["A"]: 1, ids["B"]: 1}
    # The same paragraph in a shared corpus file is the same document.
    (tmp_path / "corpus.json").write_text(json.dumps({"A": ["a."]}))
    assert data.corpus[0] == next(load_title_corpus(tmp_path / "corpus.json", FieldMapping()))


def test_hotpot_malformed_record(tmp_path: Path) -> None:
    path = tmp_path / "dev.json"
    path.write_text(json.dumps([{"question": "q", "answer": "a", "supporting_facts": [], "context": []}, {"answer": "a"}]))
    with pytest.raises(DatasetError, match=r"dev.json record #2: .*supporting_facts"):
        load_dataset(f"hotpotqa:{path}")


def test_hotpot_json_syntax_error_names_line(tmp_path: Path) -> None:
    path = tmp_path / "dev.json"
    path.write_text('[\n  {"question": "q",\n  "answer": }\n]')
    with pytest.raises(DatasetError, match=rf"{path}:3: not valid JSON"):
        load_dataset(f"hotpotqa:{path}")


def test_musique_gold_maps_to_shared_corpus(tmp_path: Path) -> None:
    corpus = [{"title": "T", "text": "one"}, {"title": "T", "text": "two"}, {"title": "U", "text": "three"}]
    question = {
        "id": "m1",
        "question": "q?",
        "answer": "G. Hall",
        "answer_aliases": ["Hall"],
        "paragraphs": [
            {"title": "T", "paragraph_text": "two", "is_supporting": True},
            {"title": "U", "paragraph_text": "three", "is_supporting": False},
        ],
    }
    (tmp_path / "mu-corpus.json").write_text(json.dumps(corpus))
    (tmp_path / "mu-5.json").write_text(json.dumps([question]))
    data = load_dataset(f"musique:{tmp_path / 'mu-5.json'}")
    assert len(data.corpus) == 3
    assert data.corpus == list(load_title_corpus(tmp_path / "mu-corpus.json", FieldMapping()))
    gold = next(iter(data.questions[0].gold))
    assert next(d for d in data.corpus if d.id == gold).text == "two"
    assert data.questions[0].answers == ("G. Hall", "Hall")


def test_leval_multiple_choice(tmp_path: Path) -> None:
    rec = {
        "input": "THE STORY\nOnce upon a time.",
        "instructions": ["Who?\n\n (A) a cat \n (B) a dog "],
        "outputs": ["(B) a dog"],
        "evaluation": "exam",
    }
    path = tmp_path / "quality.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    data = load_dataset(f"leval:{path}")
    question = data.questions[0]
    assert question.text == "Who?"
    assert question.metadata["choices"] == {"A": "a cat", "B": "a dog"}
    assert question.metadata["gold_choice"] == "B"
    assert question.gold == {"quality-1": 1} and data.corpus[0].title == "THE STORY"


def test_leval_mismatched_outputs(tmp_path: Path) -> None:
    path = tmp_path / "sq.jsonl"
    path.write_text("\n" + json.dumps({"input": "x", "instructions": ["a", "b"], "outputs": ["a"]}) + "\n")
    with pytest.raises(DatasetError, match=rf"{path}:2: 2 instructions but 1 outputs"):
        load_dataset(f"leval:{path}")


def test_user_jsonl_needs_corpus_beside(tmp_path: Path) -> None:
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps({"question": "q?", "answers": "a", "gold_ids": ["x"]}) + "\n")
    with pytest.raises(DatasetError, match="corpus.jsonl: no corpus beside mine.jsonl"):
        load_dataset(f"jsonl:{path}")
    (tmp_path / "corpus.jsonl").write_text(json.dumps({"id": "x", "title": "X", "text": "body"}) + "\n")
    data = load_dataset(f"jsonl:{path}")
    assert data.questions[0].gold == {"x": 1} and data.questions[0].answers == ("a",)
    assert data.corpus[0].text == "body"


def test_parse_choices_without_options() -> None:
    assert parse_choices("What is it?") == ("What is it?", {})


KORQUAD_MINI = Path(__file__).resolve().parents[1] / "fixtures" / "korquad_mini.json"


def test_korquad_paragraphs_are_documents_and_gold() -> None:
    data = load_dataset(f"korquad:{KORQUAD_MINI}")
    assert [d.id for d in data.corpus] == ["임종석#0", "임종석#1", "알렉산더_헤이그#0"]
    assert data.corpus[2].title == "알렉산더 헤이그" and data.corpus[2].text.startswith("알렉산더 메이그스 헤이그")
    assert len(data.questions) == 6
    first = data.questions[0]
    assert first.id == "6548850-0-0" and first.gold == {"임종석#0": 1} and first.answers == ("1989년 2월 15일",)
    assert data.questions[-1].gold == {"알렉산더_헤이그#0": 1}
    assert data.corpus[0].metadata == {"doc_id": "임종석"}  # a passage of its article, not merged by title
    assert data.name == "korquad:korquad_mini" and not data.notes


def test_korquad_repeated_paragraph_is_one_document(tmp_path: Path) -> None:
    qa = lambda n: {"id": f"q{n}", "question": f"질문 {n}?", "answers": [{"text": "답", "answer_start": 0}]}  # noqa: E731
    data = {"data": [{"title": "T", "paragraphs": [{"context": "같은 문단", "qas": [qa(1)]}, {"context": "같은 문단", "qas": [qa(2)]}]}]}
    path = tmp_path / "squad.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    loaded = load_dataset(f"korquad:{path}")
    assert [d.id for d in loaded.corpus] == ["T#0"]
    assert [q.gold for q in loaded.questions] == [{"T#0": 1}, {"T#0": 1}]
    assert loaded.notes == ["1 paragraph(s) repeating an earlier one word for word share its document"]


def test_korquad_malformed_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"data": [{"title": "T", "paragraphs": [{"qas": []}]}]}))
    with pytest.raises(DatasetError, match=r"bad.json record #1 paragraph #1: missing field 'context'"):
        load_dataset(f"korquad:{path}")
    path.write_text(json.dumps([1, 2]))
    with pytest.raises(DatasetError, match="SQuAD-format"):
        load_dataset(f"korquad:{path}")
