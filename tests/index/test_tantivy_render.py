"""AST -> tantivy query objects (inspected through their debug form)."""

from __future__ import annotations

import pytest

from navicite.errors import UserInputError
from navicite.index import tantivy_schema as ts
from navicite.index.parse import parse_boolean
from navicite.index.query import And, Not, Or, Phrase, Term
from navicite.index.tantivy_render import Renderer


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer(ts.build_schema(ts.Analysis(stemming=True)), True, {ts.ALL: 1.0, "title": 0.5})


def _fields(query: object) -> set[int]:
    """Field numbers in a query's debug form."""
    return {int(part.split(",", 1)[0]) for part in repr(query).split("field=")[1:]}


def test_field_term_is_analysed_like_the_index(renderer: Renderer) -> None:
    assert repr(renderer.render(parse_boolean("title:Studies"))) == 'Query(TermQuery(Term(field=1, type=Str, "studi")))'


def test_fieldless_term_searches_the_combined_field_and_the_boosted_title(renderer: Renderer) -> None:
    query = renderer.render(parse_boolean("gene^3"))
    text = repr(query)
    assert text.count("TermQuery") == 2 and "boost=3" in text and "boost=1.5" in text
    combined_only = Renderer(renderer.schema, True, {ts.ALL: 1.0}).render(Term("gene"))
    title = renderer.render(Term("gene", field="title"))
    assert _fields(query) == _fields(combined_only) | _fields(title) and len(_fields(query)) == 2


def test_field_scoped_term_keeps_its_field(renderer: Renderer) -> None:
    text = repr(renderer.render(parse_boolean("body:gene")))
    assert text.count("TermQuery") == 1 and "boost" not in text


def test_zero_weight_drops_a_field() -> None:
    schema = ts.build_schema(ts.Analysis(stemming=True))
    text = repr(Renderer(schema, True, {ts.ALL: 1.0, "title": 0.0}).render(Term("gene")))
    assert text.count("TermQuery") == 1 and "boost" not in text


def test_multi_token_word_becomes_a_phrase(renderer: Renderer) -> None:
    text = repr(renderer.render(Term("covid-19", field="body")))
    assert "PhraseQuery" in text and '"covid"' in text and '"19"' in text


def test_cjk_word_also_searches_bigrams(renderer: Renderer) -> None:
    text = repr(renderer.render(Phrase("서울은", field="title")))
    assert '"서울은"' in text and '"서울"' in text and '"울은"' in text


def test_cjk_word_is_a_bag_of_bigrams_anchored_on_its_first(renderer: Renderer) -> None:
    text = repr(Renderer(renderer.schema, True, {ts.ALL: 1.0}).render(Term("대한민국의")))
    assert "PhraseQuery" not in text and '"대한민국의"' not in text
    assert text.count("TermQuery") == 5 and 'Must, Const(score=0, query=TermQuery(Term(field=8, type=Str, "대한")))' in text
    assert all(f'"{pair}"' in text for pair in ("대한", "한민", "민국", "국의"))
    glued = repr(Renderer(renderer.schema, True, {ts.ALL: 1.0}).render(Term("1989년에")))
    assert 'Const(score=0, query=TermQuery(Term(field=7, type=Str, "1989")))' in glued and '"년에"' in glued
    assert repr(renderer.render(Term("서울", field="title"))).count("TermQuery") == 1
    assert "RegexQuery" in repr(renderer.render(Term("책", field="title")))


def test_unsearchable_parts_are_dropped(renderer: Renderer) -> None:
    assert renderer.render(Term("!!!")) is None
    assert repr(renderer.render(And((Term("!!!", field="title"), Term("gene", field="title"))))) == repr(
        renderer.render(Term("gene", field="title"))
    )
    positive = Term("gene", field="title")
    assert repr(renderer.render(Not(positive, Term("---")))) == repr(renderer.render(positive))
    assert renderer.render(Not(Term("..."), positive)) is None


def test_nested_unboosted_ors_are_flattened(renderer: Renderer) -> None:
    nested = Or((Term("a", field="title"), Or((Term("b", field="title"), Term("c", field="title")))))
    text = repr(renderer.render(nested))
    assert text.count("BooleanQuery") == 1 and text.count("TermQuery") == 3


def test_unknown_field_is_refused(renderer: Renderer) -> None:
    with pytest.raises(UserInputError):
        renderer.render(Term("x", field="author"))
