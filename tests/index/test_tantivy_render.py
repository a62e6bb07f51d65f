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
    return Renderer(ts.build_schema(ts.Analysis(stemming=True)), True, {"title": 2.0, "abstract": 1.0, "body": 0.5})


def test_field_term_is_analysed_like_the_index(renderer: Renderer) -> None:
    assert repr(renderer.render(parse_boolean("title:Studies"))) == 'Query(TermQuery(Term(field=1, type=Str, "studi")))'


def test_fieldless_term_uses_field_boosts_times_its_own(renderer: Renderer) -> None:
    text = repr(renderer.render(parse_boolean("gene^3")))
    assert text.count("TermQuery") == 3 and "boost=6" in text and "boost=3" in text and "boost=1.5" in text


def test_multi_token_word_becomes_a_phrase(renderer: Renderer) -> None:
    text = repr(renderer.render(Term("covid-19", field="body")))
    assert "PhraseQuery" in text and '"covid"' in text and '"19"' in text


def test_cjk_word_also_searches_bigrams(renderer: Renderer) -> None:
    text = repr(renderer.render(Phrase("서울은", field="title")))
    assert '"서울은"' in text and '"서울"' in text and '"울은"' in text


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
