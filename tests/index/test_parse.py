"""The two ways from user text to the query AST."""

from __future__ import annotations

import pytest

from navicite.errors import QuerySyntaxError, UserInputError
from navicite.index.parse import MAX_BOOLEAN_TERMS, MAX_DEPTH, MAX_FREE_TEXT_TERMS, free_text, parse_boolean
from navicite.index.query import And, Not, Or, Phrase, Prefix, Term, to_text


def test_free_text_is_an_or_of_distinct_words() -> None:
    query = free_text('What is "the" effect of Vitamin-D on vitamin (D)?')
    assert isinstance(query, Or)
    assert [t.text for t in query.children] == ["What", "is", "the", "effect", "of", "Vitamin", "D", "on"]
    assert all(isinstance(t, Term) and t.field is None for t in query.children)


@pytest.mark.parametrize("text", ["", "   ", "!!! ... ???", '"()"', "^*:\\"])
def test_free_text_without_words_is_none(text: str) -> None:
    assert free_text(text) is None


def test_free_text_caps_the_number_of_terms() -> None:
    query = free_text(" ".join(f"w{i}" for i in range(10_000)))
    assert isinstance(query, Or) and len(query.children) == MAX_FREE_TEXT_TERMS


def test_free_text_keeps_korean_words() -> None:
    query = free_text("서울의 날씨는?")
    assert isinstance(query, Or) and [t.text for t in query.children] == ["서울의", "날씨는"]


def test_boolean_example_from_the_issue() -> None:
    query = parse_boolean('(a OR "b c") AND d* NOT e')
    assert query == Not(And((Or((Term("a"), Phrase("b c"))), Prefix("d"))), Term("e"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a b", And((Term("a"), Term("b")))),
        ("a AND b", And((Term("a"), Term("b")))),
        ("a OR b c", Or((Term("a"), And((Term("b"), Term("c")))))),
        ("a b NOT c NOT d", Not(And((Term("a"), Term("b"))), Or((Term("c"), Term("d"))))),
        ("a AND NOT b", Not(Term("a"), Term("b"))),
        ("title:gene", Term("gene", field="title")),
        ('abstract:"heart failure"', Phrase("heart failure", field="abstract")),
        ("body:(x OR y*)", Or((Term("x", field="body"), Prefix("y", field="body")))),
        ("gene^2.5", Term("gene", boost=2.5)),
        ('"b c"^3', Phrase("b c", boost=3.0)),
        ("(a OR b)^2", Or((Term("a"), Term("b")), boost=2.0)),
        ("title:gene^2", Term("gene", field="title", boost=2.0)),
        ("covid-19", Term("covid-19")),
        ("10:30", Term("10:30")),
        ("a - b", And((Term("a"), Term("b")))),
        ("and or not", And((Term("and"), Term("or"), Term("not")))),
        ("서울*", Prefix("서울")),
    ],
)
def test_boolean_parses(text: str, expected: object) -> None:
    assert parse_boolean(text) == expected


@pytest.mark.parametrize(
    ("text", "position", "words"),
    [
        ("", 0, "empty"),
        ("   ", 0, "empty"),
        ("(a OR b", 0, "unclosed '('"),
        ("a (b", 2, "unclosed '('"),
        ("a)", 1, "unmatched ')'"),
        ('a "b c', 2, "unclosed quote"),
        ("a AND", 5, "AND needs a term after"),
        ("AND a", 0, "AND needs a term before"),
        ("OR a", 0, "OR needs a term before"),
        ("a OR OR b", 5, "OR needs a term after"),
        ("a OR", 4, "OR needs a term after"),
        ("a AND NOT", 9, "NOT needs a term after"),
        ("a OR NOT b", 5, "NOT cannot follow OR"),
        ("a NOT AND b", 6, "AND cannot follow NOT"),
        ("NOT a", 0, "NOT needs a term before"),
        ("a NOT", 5, "NOT needs a term after"),
        ("foo:bar", 0, "unknown field 'foo'"),
        ("a http://x.org", 2, "unknown field 'http'"),
        ("title:", 0, "needs a word"),
        ("a ()", 3, "empty parentheses"),
        ("a^", 1, "number after '^'"),
        ("a^x", 1, "number after '^'"),
        ("a^0", 1, "boost must be above 0"),
        ("^2", 0, "'^' needs a term"),
        ("*", 0, "'*' needs the start of a word"),
        ("a*b", 1, "only allowed at the end"),
        ('a "!!!"', 2, "phrase has no searchable word"),
        ("- & ,", 0, "no searchable word"),
    ],
)
def test_boolean_errors_name_the_position(text: str, position: int, words: str) -> None:
    with pytest.raises(QuerySyntaxError) as info:
        parse_boolean(text)
    assert info.value.position == position
    assert words in str(info.value)
    assert isinstance(info.value, UserInputError) and info.value.exit_code == 2


def test_error_message_points_at_the_problem() -> None:
    with pytest.raises(QuerySyntaxError) as info:
        parse_boolean("gene AND (x OR")
    lines = str(info.value).splitlines()
    assert lines[1].strip() == "gene AND (x OR"
    assert lines[2].index("^") - lines[1].index("g") == info.value.position


def test_nesting_is_capped() -> None:
    ok = "(" * MAX_DEPTH + "a" + ")" * MAX_DEPTH
    assert parse_boolean(ok) == Term("a")
    with pytest.raises(QuerySyntaxError, match="nested deeper"):
        parse_boolean("(" * (MAX_DEPTH + 1) + "a" + ")" * (MAX_DEPTH + 1))


@pytest.mark.parametrize(
    "text",
    ["a " * 50_000, "(" * 100_000, '"' * 100_001, "title:" * 20_000, "a:" * 50_000, "\\" * 100_000, "a^1" * 30_000],
)
def test_very_long_inputs_fail_cleanly_or_parse(text: str) -> None:
    try:
        parse_boolean(text)
    except QuerySyntaxError as exc:
        assert 0 <= exc.position <= len(text)
    free_text(text)


def test_too_many_terms_is_an_error() -> None:
    with pytest.raises(QuerySyntaxError, match=f"more than {MAX_BOOLEAN_TERMS} terms"):
        parse_boolean(" OR ".join(f"w{i}" for i in range(MAX_BOOLEAN_TERMS + 1)))


def test_to_text_round_trips_through_the_parser() -> None:
    query = parse_boolean('title:(gene OR "heart failure") AND cardio* NOT mouse')
    assert parse_boolean(to_text(query)) == query
