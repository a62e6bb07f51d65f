"""Conversion of navicite documents to tantivy documents."""

from __future__ import annotations

import json

from navicite.documents import Document
from navicite.index import tantivy_schema as ts


def test_every_part_goes_once_to_the_combined_field_and_is_stored() -> None:
    doc = Document("d1", "Title words", "", "Body text", link="https://example.org/d1", metadata={"year": 2020})
    fields = ts.to_tantivy(doc, "ab" * 32, "en").to_dict()
    assert fields["id"] == ["d1"] and fields["language"] == ["en"]
    assert fields["title"] == ["Title words"]  # the title keeps a word field: it is boosted on its own
    assert "body" not in fields and bytes(fields[ts.STORED_TEXT["body"]][0]) == b"Body text"
    assert "abstract" not in fields and ts.STORED_TEXT["abstract"] not in fields  # empty parts are left out
    assert fields[ts.ALL] == ["Title words", "Body text"]  # one value per part, in order
    assert fields["link"] == ["https://example.org/d1"]
    assert bytes(fields["fingerprint"][0]) == b"ab" * 32
    assert json.loads(bytes(fields["metadata"][0])) == {"year": 2020}
    assert not any(name.endswith("_cjk") for name in fields)  # no CJK text, no bigram fields


def test_exact_fields_also_fill_the_part_word_fields() -> None:
    doc = Document("d1", "Title words", "Abstract words", "Body text")
    fields = ts.to_tantivy(doc, "00", "en", exact_fields=True).to_dict()
    assert fields["abstract"] == ["Abstract words"] and fields["body"] == ["Body text"]
    assert fields[ts.ALL] == ["Title words", "Abstract words", "Body text"]


def test_cjk_parts_get_bigram_fields() -> None:
    doc = Document("k1", "서울의 날씨", "English abstract", "東京都")
    fields = ts.to_tantivy(doc, "00", "ko").to_dict()
    assert fields[ts.cjk_field("title")] == ["서울 울의 날씨"]
    assert ts.cjk_field("abstract") not in fields and ts.cjk_field("body") not in fields
    assert fields[ts.cjk_field(ts.ALL)] == ["서울 울의 날씨", "東京 京都"]
    exact = ts.to_tantivy(doc, "00", "ko", exact_fields=True).to_dict()
    assert ts.cjk_field("abstract") not in exact and exact[ts.cjk_field("body")] == ["東京 京都"]


def test_letters_and_digits_glued_to_cjk_are_also_words() -> None:
    doc = Document("g1", "BERT를 쓴 연구", "", "1989년에 COVID-19는 plain words")
    fields = ts.to_tantivy(doc, "00", "ko").to_dict()
    assert fields[ts.ALL] == ["BERT를 쓴 연구", "BERT", "1989년에 COVID-19는 plain words", "1989 19"]
    assert fields["title"] == ["BERT를 쓴 연구", "BERT"]
    assert ts.to_tantivy(Document("e1", "Plain title", "", "plain"), "00", "en").to_dict()[ts.ALL] == ["Plain title", "plain"]


def test_queries_on_a_part_go_to_its_own_field_only_with_exact_fields() -> None:
    assert ts.Analysis(stemming=True).field_routes == {"title": "title", "abstract": ts.ALL, "body": ts.ALL}
    assert ts.Analysis(stemming=True, exact_fields=True).field_routes == {"title": "title", "abstract": "abstract", "body": "body"}


def test_round_trip_through_a_stored_document() -> None:
    doc = Document("r1", "T", "A", "B é 서울", link="L", metadata={"tags": ["x"]})
    assert ts.from_tantivy(ts.to_tantivy(doc, doc.fingerprint, "en")) == doc
    assert ts.from_tantivy(ts.to_tantivy(doc, doc.fingerprint, "en", exact_fields=True)) == doc
