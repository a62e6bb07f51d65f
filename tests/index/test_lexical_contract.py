"""The LexicalIndex contract, run against every backend: tantivy always, OpenSearch on a real node.

The ``make_index`` and ``sample_index`` fixtures (tests/index/conftest.py) give each test once
per backend. The OpenSearch runs need a node (scripts/search-node.sh start) named by
NAVICITE_TEST_OPENSEARCH; without the variable they are skipped, with it and no node they fail.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from navicite.documents import PARENT_KEY, Document
from navicite.errors import IndexStoreError, UserInputError
from navicite.index import LexicalIndex, free_text, parse_boolean
from navicite.index.base import HIGHLIGHT_END, HIGHLIGHT_START
from navicite.index.query import Term


def ids(hits: list) -> list[str]:
    return [h.doc_id for h in hits]


def search(index: LexicalIndex, text: str, **kw: object) -> list[str]:
    query = free_text(text)
    assert query is not None
    return ids(index.search(query, **kw))


def test_reading_an_absent_index_gives_nothing(make_index: Callable[..., LexicalIndex]) -> None:
    index = make_index()
    assert index.count() == 0
    assert index.search(parse_boolean("anything"), 5) == []
    assert index.get("x") is None and list(index.ids()) == [] and index.delete(["x"]) == []
    assert index.stats().documents == 0


def test_delete_takes_the_passages_of_a_document_along(make_index: Callable[..., LexicalIndex]) -> None:
    index = make_index()
    index.upsert([
        Document("d1#0", "", "kinase one", metadata={PARENT_KEY: "d1"}),
        Document("d1#1", "", "kinase two", metadata={PARENT_KEY: "d1"}),
        Document("d2", "", "kinase three"),
    ])
    assert index.delete(["d1", "d3"]) == ["d1"]
    assert sorted(index.ids()) == ["d2"] and search(index, "kinase") == ["d2"]


def test_upsert_adds_then_skips_unchanged_then_replaces(docs: list[Document], make_index: Callable[..., LexicalIndex]) -> None:
    index = make_index()
    first = index.upsert(docs)
    assert sorted(first.added) == sorted(d.id for d in docs) and not first.replaced and not first.unchanged
    again = index.upsert(docs)
    assert not again.added and not again.replaced and sorted(again.unchanged) == sorted(d.id for d in docs)
    changed = Document("heart", "Heart failure outcomes", "Now about kidneys instead.", "")
    third = index.upsert([changed, Document("new", "A new one")])
    assert third.replaced == ["heart"] and third.added == ["new"]
    assert index.count() == len(docs) + 1
    assert index.get("heart") == changed
    assert "heart" in search(index, "kidneys") and "heart" not in search(index, "diuretics")


def test_same_id_twice_in_one_call_keeps_the_last(make_index: Callable[..., LexicalIndex]) -> None:
    index = make_index()
    report = index.upsert([Document("d", "old words"), Document("d", "new words")])
    assert report.added == ["d"] and index.count() == 1
    assert search(index, "new") == ["d"] and search(index, "old") == []


def test_empty_id_is_refused_and_nothing_is_written(docs: list[Document], make_index: Callable[..., LexicalIndex]) -> None:
    index = make_index()
    index.upsert(docs[:1])
    with pytest.raises(IndexStoreError, match="empty id"):
        index.upsert([Document("ok", "fine"), Document("", "no id")])
    assert list(index.ids()) == ["cells"]


def test_get_round_trips_every_field(docs: list[Document], sample_index: LexicalIndex) -> None:
    for doc in docs:
        assert sample_index.get(doc.id) == doc
    assert sample_index.get("missing") is None


def test_delete_reports_existing_ids_and_removes_them(docs: list[Document], sample_index: LexicalIndex) -> None:
    assert sample_index.delete(["heart", "nope", "genes", "heart"]) == ["heart", "genes"]
    assert sample_index.count() == len(docs) - 2
    assert sample_index.get("heart") is None
    assert search(sample_index, "heart failure genes") == []
    assert sorted(sample_index.ids()) == sorted(d.id for d in docs if d.id not in ("heart", "genes"))


def test_stemming_matches_word_forms(sample_index: LexicalIndex) -> None:
    assert search(sample_index, "study") == ["cells"]
    assert search(sample_index, "gene") == ["genes"]


def test_stemming_off_matches_exact_forms(docs: list[Document], make_index: Callable[..., LexicalIndex]) -> None:
    index = make_index("index.stemming=false")
    index.upsert(docs)
    assert search(index, "study") == [] and search(index, "studies") == ["cells"]


def test_stemming_is_fixed_when_the_index_is_created(docs: list[Document], make_index: Callable[..., LexicalIndex]) -> None:
    make_index().upsert(docs)
    reopened = make_index("index.stemming=false")
    assert search(reopened, "study") == ["cells"]


def test_korean_document_found_by_korean_query(sample_index: LexicalIndex) -> None:
    # "서울" appears only glued to particles ("서울의", "서울은"): whole-word matching would miss it.
    assert search(sample_index, "서울") == ["seoul"]
    assert search(sample_index, "수도") == ["seoul"]
    assert search(sample_index, "한국 날씨") == ["seoul"]
    assert ids(sample_index.search(parse_boolean('"한국의 수도"'), 5)) == ["seoul"]
    assert ids(sample_index.search(parse_boolean("title:날씨"), 5)) == ["seoul"]
    assert ids(sample_index.search(parse_boolean("abstract:날씨 NOT 서울"), 5)) == []
    assert search(sample_index, "부산") == []


def test_korean_word_matches_its_other_inflected_forms(sample_index: LexicalIndex) -> None:
    # The document has "한국의" and "수도입니다"; the queries carry other particles.
    assert search(sample_index, "한국은") == ["seoul"]
    assert search(sample_index, "수도는 어디인가") == ["seoul"]
    assert ids(sample_index.search(parse_boolean("한국에서 AND 수도를"), 5)) == ["seoul"]
    assert ids(sample_index.search(parse_boolean("한국에서 AND 부산은"), 5)) == []
    # An explicit phrase keeps every bigram in order: "한국은" is not in the text.
    assert ids(sample_index.search(parse_boolean('"한국은"'), 5)) == []
    assert ids(sample_index.search(parse_boolean('"한국의"'), 5)) == ["seoul"]


def test_letters_and_digits_glued_to_korean_are_words(make_index: Callable[..., LexicalIndex]) -> None:
    index = make_index()
    index.upsert([
        Document("bert", "BERT를 이용한 분류", "1989년에 발표된 COVID-19는 아니다.", ""),
        Document("other", "Plain English", "A model called BERTology and the year 1990.", ""),
        Document("full", "", "대한민국은 민주공화국이다.", ""),
        Document("part", "", "대한제국은 옛 나라이다.", ""),
    ])
    assert search(index, "BERT") == ["bert"]
    assert search(index, "1989") == ["bert"]
    assert search(index, "1989년") == ["bert"]
    assert ids(index.search(parse_boolean("BERT AND 분류는"), 5)) == ["bert"]
    assert ids(index.search(parse_boolean("19 AND covid"), 5)) == ["bert"]
    # Both share the anchor "대한"; more shared pairs rank higher.
    assert search(index, "대한민국의 헌법") == ["full", "part"]


def test_chinese_and_japanese_found_by_substrings(sample_index: LexicalIndex) -> None:
    assert search(sample_index, "首都") == ["tokyo"]
    assert search(sample_index, "東京") == ["tokyo"]
    assert ids(sample_index.search(parse_boolean("京"), 5)) == ["tokyo"]


def test_python_query_analyzer_matches_the_index_analyzer(make_index: Callable[..., LexicalIndex]) -> None:
    # Queries are analysed in Python with a chain meant to equal tantivy's built-in one:
    # every single word of the text must find the document through a term query.
    text = "Naïve CAFÉ-owners' re-analysed 3.5mg/kg doses; ÉTUDES über Straße running flies ﬁnal"
    index = make_index()
    index.upsert([Document("d", "", "", text)])
    for word in re.findall(r"\w+", text):
        assert ids(index.search(Term(word, field="body"), 1)) == ["d"], word


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("stud*", ["cells"]),
        ("studies*", ["cells"]),
        ("gen*", ["genes"]),
        ('"heart failure"', ["heart"]),
        ('"failure heart"', []),
        ("covid-19", ["cells"]),
        ("mice NOT liver", ["cells"]),
        ("title:mice", []),
        ("abstract:mice AND title:(gene OR heart)", ["genes"]),
        ("heart OR genes", None),
        ("heart AND genes", []),
    ],
)
def test_boolean_queries_select_the_right_documents(sample_index: LexicalIndex, query: str, expected: list[str] | None) -> None:
    found = ids(sample_index.search(parse_boolean(query), 10))
    if expected is None:
        assert sorted(found) == ["genes", "heart"]
    else:
        assert found == expected


def test_part_queries_use_the_combined_text_unless_exact_fields(make_index: Callable[..., LexicalIndex], tmp_path: Path) -> None:
    docs = [
        Document("t", "Kinase", "Other words.", "More words about liver."),
        Document("a", "Other", "Kinase words.", "More words about heart."),
        Document("b", "Other", "Plain words.", "Kinase in the liver."),
    ]
    combined = make_index()
    combined.upsert(docs)
    assert sorted(ids(combined.search(parse_boolean("body:kinase"), 5))) == ["a", "b", "t"]
    assert ids(combined.search(parse_boolean("title:kinase"), 5)) == ["t"]  # the title keeps its own field
    assert ids(combined.search(parse_boolean('body:"kinase in the liver"'), 5)) == ["b"]  # phrases work there too
    exact = make_index("index.exact_fields=true", home=tmp_path / "exact")
    exact.upsert(docs)
    assert ids(exact.search(parse_boolean("body:kinase"), 5)) == ["b"]
    assert ids(exact.search(parse_boolean("abstract:kinase AND NOT body:liver"), 5)) == ["a"]
    # Fixed when the index is created: reopening with the other setting changes nothing.
    assert ids(make_index(home=tmp_path / "exact").search(parse_boolean("body:kinase"), 5)) == ["b"]
    assert len(make_index("index.exact_fields=true").search(parse_boolean("body:kinase"), 5)) == 3


def test_snippets_highlight_field_scoped_words_in_any_part(sample_index: LexicalIndex) -> None:
    [hit] = sample_index.search(parse_boolean("title:gene AND body:liver"), 5, snippets=True)
    assert hit.doc_id == "genes" and f"{HIGHLIGHT_START}liver{HIGHLIGHT_END}" in hit.snippet


def test_title_boost_setting_adds_weight_to_title_matches(make_index: Callable[..., LexicalIndex], tmp_path: Path) -> None:
    # Same words in both documents, so the combined field cannot tell them apart.
    docs = [Document("in-title", "Kinase", "Other words here."), Document("in-abstract", "Other", "Kinase words here.")]
    boosted = make_index("index.title_boost=1")
    boosted.upsert(docs)
    assert search(boosted, "kinase") == ["in-title", "in-abstract"]
    plain = make_index("index.title_boost=0", home=tmp_path / "plain")
    plain.upsert(docs)
    first, second = plain.search(free_text("kinase"), 2)  # type: ignore[arg-type]
    assert first.score == pytest.approx(second.score)


def test_fieldless_words_are_scored_as_one_field(make_index: Callable[..., LexicalIndex], tmp_path: Path) -> None:
    # "spread" has the word once in each of three short fields, "dense" six times in one.
    # Summing per-field BM25 scores counts "spread" three times over and ranks it first;
    # over title + abstract + body as one text, the denser document wins.
    docs = [
        Document("spread", "kinase assay", "kinase study", "kinase data"),
        Document("dense", "Report", "kinase kinase kinase kinase kinase kinase in liver"),
        Document("liver", "Liver", "mice and rats"),
        Document("heart", "Heart", "beta blockers"),
    ]
    index = make_index("index.title_boost=0")
    index.upsert(docs)
    per_field_sum = ids(index.search(parse_boolean("title:kinase OR abstract:kinase OR body:kinase"), 2))
    assert per_field_sum == ["spread", "dense"]
    assert search(index, "kinase") == ["dense", "spread"]
    # ... and with the same scores as an index holding all the text in the body alone.
    merged = [Document(d.id, "", "", " ".join(p for p in (d.title, d.abstract, d.text) if p)) for d in docs]
    one_field = make_index("index.title_boost=0", home=tmp_path / "one")
    one_field.upsert(merged)
    for query in ("kinase", "liver mice", "kinase liver"):
        expected = {h.doc_id: h.score for h in one_field.search(free_text(query), 4)}  # type: ignore[arg-type]
        assert {h.doc_id: h.score for h in index.search(free_text(query), 4)} == pytest.approx(expected)  # type: ignore[arg-type]


def test_phrase_does_not_run_across_fields(sample_index: LexicalIndex) -> None:
    # The title of "heart" ends with "outcomes", its abstract starts with "Patients".
    assert ids(sample_index.search(parse_boolean('"outcomes patients"'), 5)) == []
    assert ids(sample_index.search(parse_boolean('"failure outcomes"'), 5)) == ["heart"]


def test_snippets_come_from_the_field_that_matched(sample_index: LexicalIndex) -> None:
    [hit] = sample_index.search(parse_boolean("outcomes"), 5, snippets=True)
    assert hit.snippet == f"Heart failure {HIGHLIGHT_START}outcomes{HIGHLIGHT_END}"
    [hit] = sample_index.search(parse_boolean("liver AND title:gene"), 5, snippets=True)
    assert f"{HIGHLIGHT_START}liver{HIGHLIGHT_END}" in hit.snippet


def test_query_boost_changes_the_ranking(sample_index: LexicalIndex) -> None:
    plain = ids(sample_index.search(parse_boolean("liver^10 OR failure"), 2))
    flipped = ids(sample_index.search(parse_boolean("liver OR failure^10"), 2))
    assert plain[0] == "genes" and flipped[0] == "heart"


def test_snippets_highlight_matched_words(sample_index: LexicalIndex) -> None:
    [hit] = sample_index.search(parse_boolean("beta"), 5, snippets=True)
    assert hit.doc_id == "heart" and hit.title == "Heart failure outcomes"
    assert f"{HIGHLIGHT_START}beta{HIGHLIGHT_END}" in hit.snippet
    [plain] = sample_index.search(parse_boolean("beta"), 5)
    assert plain.snippet == "" and plain.score == hit.score


def test_snippet_highlights_survive_accented_text(make_index: Callable[..., LexicalIndex]) -> None:
    index = make_index()
    index.upsert([Document("d", "", "", "Café naïve élan — the kinase régime")])
    [hit] = index.search(parse_boolean("kinase"), 1, snippets=True)
    assert f"{HIGHLIGHT_START}kinase{HIGHLIGHT_END}" in hit.snippet and "Café naïve élan" in hit.snippet


def test_hit_carries_link(sample_index: LexicalIndex) -> None:
    [hit] = sample_index.search(parse_boolean("liver"), 3)
    assert hit.link == "https://example.org/genes"
    assert hit.to_dict()["id"] == "genes"


def test_stats_count_languages(docs: list[Document], sample_index: LexicalIndex) -> None:
    stats = sample_index.stats()
    assert stats.documents == len(docs)
    assert stats.languages.get("ko") == 1 and stats.languages.get("ja") == 1
    assert sum(stats.languages.values()) == len(docs)
    assert stats.size_bytes > 0


def test_k_limits_and_empty_renderings(sample_index: LexicalIndex) -> None:
    assert len(sample_index.search(parse_boolean("mice OR heart OR liver"), 1)) == 1
    assert sample_index.search(parse_boolean("mice"), 0) == []
    assert sample_index.search(Term("!!!"), 5) == []


def test_korean_snippet_marks_the_query_text(sample_index: LexicalIndex) -> None:
    [hit] = sample_index.search(free_text("수도"), 3, snippets=True)  # type: ignore[arg-type]
    assert hit.doc_id == "seoul" and f"{HIGHLIGHT_START}수도{HIGHLIGHT_END}" in hit.snippet


def test_unknown_field_in_an_ast_is_a_user_error(sample_index: LexicalIndex) -> None:
    with pytest.raises(UserInputError, match="unknown field 'year'"):
        sample_index.search(Term("2020", field="year"), 3)


def test_text_with_lone_surrogates_is_indexed_and_found(make_index: Callable[..., LexicalIndex]) -> None:
    index = make_index()
    bad = Document("id\udcff", "Broken \udcff bytes", "kinase")
    assert index.upsert([bad]).added == ["id?"]
    assert ids(index.search(free_text("kinase"), 3)) == ["id?"]  # type: ignore[arg-type]
    assert index.upsert([bad]).unchanged == ["id?"]
