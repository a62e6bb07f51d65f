"""Hostile query text through both query paths and the real index of each backend: never a crash."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navicite.errors import QuerySyntaxError
from navicite.index import LexicalIndex, free_text, parse_boolean
from navicite.index.base import Hit

_SPECIALS = list('()"\\:*^ ') + ["AND", "OR", "NOT", "title:", "body:", "foo:", "서울", "東京", "é", "\x00", "\u200b", "\ud800"]

hostile_text = st.one_of(
    st.text(max_size=200),
    st.lists(st.one_of(st.sampled_from(_SPECIALS), st.text(max_size=6)), max_size=40).map(" ".join),
    st.lists(st.sampled_from(_SPECIALS + ["a", "gene", "1"]), max_size=60).map("".join),
)

LONG = [
    "x" * 100_000,
    ("gene " * 20_000)[:100_000],
    ("(" * 50_000 + ")" * 50_000),
    '"' * 100_000,
    ("\\:*^" * 25_000),
    ("서울은 " * 25_000)[:100_000],
    ("title:a AND " * 9_000)[:100_000],
]


@pytest.fixture(scope="module")
def index(backend: Any, tmp_path_factory: pytest.TempPathFactory) -> LexicalIndex:
    """A small index of each backend (see tests/index/conftest.py for the OpenSearch node)."""
    from navicite.documents import Document

    built = backend.create(tmp_path_factory.mktemp("hostile"))
    built.upsert(
        [
            Document("a", "Gene therapy", "A gene and its expression, \\ escaped: 1:2 \"quoted\""),
            Document("b", "서울의 날씨", "서울은 한국의 수도입니다."),
            Document("c", "Title: colons", "AND OR NOT are ordinary words here."),
        ]
    )
    return built


def run_free(index: LexicalIndex, text: str) -> list[Hit]:
    query = free_text(text)
    hits = [] if query is None else index.search(query, 5, snippets=True)
    assert isinstance(hits, list)
    return hits


def run_boolean(index: LexicalIndex, text: str) -> list[Hit] | QuerySyntaxError:
    try:
        query = parse_boolean(text)
    except QuerySyntaxError as exc:
        assert 0 <= exc.position <= len(text)
        return exc
    hits = index.search(query, 5, snippets=True)
    assert isinstance(hits, list)
    return hits


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=hostile_text)
def test_any_text_searches_or_fails_with_a_syntax_error(index: LexicalIndex, text: str) -> None:
    run_free(index, text)
    run_boolean(index, text)


@pytest.mark.parametrize("text", LONG, ids=[f"long{i}" for i in range(len(LONG))])
def test_100kb_queries(index: LexicalIndex, text: str) -> None:
    assert len(text) >= 99_000
    run_free(index, text)
    run_boolean(index, text)


def test_hostile_queries_still_find_things(index: LexicalIndex) -> None:
    assert [h.doc_id for h in run_free(index, 'gene") AND (NOT')] == ["a", "c"]  # c has the words AND, NOT
    assert isinstance(run_boolean(index, 'gene") AND (NOT'), QuerySyntaxError)
    assert [h.doc_id for h in run_boolean(index, '"title: colons"')] == ["c"]  # type: ignore[union-attr]
    assert [h.doc_id for h in run_free(index, "서울\\:*")] == ["b"]
    assert [h.doc_id for h in run_boolean(index, "gene\ud800")] == ["a"]  # type: ignore[union-attr]
