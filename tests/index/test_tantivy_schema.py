"""Conversion of navicite documents to tantivy documents."""

from __future__ import annotations

import json

from navicite.documents import Document
from navicite.index import tantivy_schema as ts


def test_every_part_goes_to_its_field_and_once_to_the_combined_field() -> None:
    doc = Document("d1", "Title words", "", "Body text", link="https://example.org/d1", metadata={"year": 2020})
    fields = ts.to_tantivy(doc, "ab" * 32, "en").to_dict()
    assert fields["id"] == ["d1"] and fields["language"] == ["en"]
    assert fields["title"] == ["Title words"] and fields["body"] == ["Body text"]
    assert "abstract" not in fields  # empty parts are left out
    assert fields[ts.ALL] == ["Title words", "Body text"]  # one value per part, in order
    assert fields["link"] == ["https://example.org/d1"]
    assert bytes(fields["fingerprint"][0]) == b"ab" * 32
    assert json.loads(bytes(fields["metadata"][0])) == {"year": 2020}
    assert not any(name.endswith("_cjk") for name in fields)  # no CJK text, no bigram fields


def test_cjk_parts_get_bigram_fields() -> None:
    doc = Document("k1", "서울의 날씨", "English abstract", "東京都")
    fields = ts.to_tantivy(doc, "00", "ko").to_dict()
    assert fields[ts.cjk_field("title")] == ["서울 울의 날씨"]
    assert ts.cjk_field("abstract") not in fields
    assert fields[ts.cjk_field("body")] == ["東京 京都"]
    assert fields[ts.cjk_field(ts.ALL)] == ["서울 울의 날씨", "東京 京都"]


def test_round_trip_through_a_stored_document() -> None:
    doc = Document("r1", "T", "A", "B", link="L", metadata={"tags": ["x"]})
    assert ts.from_tantivy(ts.to_tantivy(doc, doc.fingerprint, "en")) == doc
