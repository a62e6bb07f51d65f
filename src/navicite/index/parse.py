"""From user text to the query AST: free text (never fails) and Boolean syntax.

Boolean grammar (operators are upper case; lower-case ``and``/``or``/``not``
are ordinary words)::

    query   := or_expr
    or_expr := and_expr ("OR" and_expr)*
    and_expr:= item (["AND"] item | "NOT" item)*      adjacent items are ANDed
    item    := atom ["^" number]
    atom    := "(" or_expr ")" | field ":" atom | '"' words '"' | word ["*"]
    field   := title | abstract | body

``a NOT b`` (or ``a AND NOT b``) keeps what matches ``a`` and drops what matches ``b``; within one
AND group every ``NOT`` item is excluded from all the group's other items. AND
binds tighter than OR. There is no escape character: put text in quotes to
search it literally.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from navicite.errors import QuerySyntaxError
from navicite.index.query import FIELDS, And, Not, Or, Phrase, Prefix, Query, Term

#: Most distinct words a free-text query keeps (the rest add little but cost time).
MAX_FREE_TEXT_TERMS = 64
#: Most leaves (words, phrases, prefixes) a Boolean query may have.
MAX_BOOLEAN_TERMS = 1024
#: Most words, operators and parentheses a Boolean query may have.
MAX_TOKENS = 4 * MAX_BOOLEAN_TERMS
#: Deepest nesting of parentheses a Boolean query may have.
MAX_DEPTH = 32
#: Largest boost accepted after ``^``.
MAX_BOOST = 1000.0

_WORD_RE = re.compile(r"\w+")
_SPECIAL = '()"^'
_OPERATORS = ("AND", "OR", "NOT")
_FIELD_RE = re.compile(r"([A-Za-z_]+):")


def free_text(text: str) -> Query | None:
    """Any text as an OR of its words; None when it has no searchable word.

    Never raises: punctuation, quotes and operators are ignored, repeated
    words count once and only the first :data:`MAX_FREE_TEXT_TERMS` distinct
    words are kept.
    """
    if not isinstance(text, str):
        return None
    seen: set[str] = set()
    terms: list[Query] = []
    for match in _WORD_RE.finditer(text):
        word = match.group()
        key = word.casefold()
        if key in seen:
            continue
        seen.add(key)
        terms.append(Term(word))
        if len(terms) >= MAX_FREE_TEXT_TERMS:
            break
    if not terms:
        return None
    return Or(tuple(terms))


@dataclass(frozen=True)
class _Token:
    kind: str  # "(" ")" "phrase" "word" "field" "^" "AND" "OR" "NOT"
    text: str
    pos: int


def parse_boolean(text: str) -> Query:
    """Parse Boolean syntax such as ``(a OR "b c") AND d* NOT e`` into a query AST.

    Raises:
        QuerySyntaxError: with the 0-based position of the problem (unbalanced
            parentheses or quotes, an operator without an operand, an unknown
            field, an empty query, too many terms or too deep nesting).
    """
    if not isinstance(text, str):
        raise QuerySyntaxError("the query must be text", 0, "")
    tokens = _tokenize(text)
    if not tokens:
        raise QuerySyntaxError("empty query: give at least one word", 0, text)
    return _Parser(text, tokens).parse()


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch in "()":
            tokens.append(_Token(ch, ch, i))
            i += 1
        elif ch == '"':
            end = text.find('"', i + 1)
            if end < 0:
                raise QuerySyntaxError("unclosed quote: add the closing \"", i, text)
            tokens.append(_Token("phrase", text[i + 1 : end], i))
            i = end + 1
        elif ch == "^":
            j = i + 1
            while j < n and (text[j].isdigit() or text[j] == "."):
                j += 1
            tokens.append(_Token("^", text[i + 1 : j], i))
            i = j
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in _SPECIAL:
                j += 1
            tokens.extend(_word_tokens(text, text[i:j], i))
            i = j
        if len(tokens) > MAX_TOKENS:
            raise QuerySyntaxError(f"query too long: more than {MAX_TOKENS} words and operators", i, text)
    return tokens


def _word_tokens(text: str, word: str, pos: int) -> list[_Token]:
    """A run of word characters: an operator, a word, or ``field:`` followed by the rest."""
    if word in _OPERATORS:
        return [_Token(word, word, pos)]
    match = _FIELD_RE.match(word)
    if match is None:
        return [_Token("word", word, pos)]
    name = match.group(1)
    if name not in FIELDS:
        raise QuerySyntaxError(
            f"unknown field {name!r} (fields: {', '.join(FIELDS)}); put the text in quotes to search it literally",
            pos,
            text,
        )
    rest = word[match.end() :]
    tokens = [_Token("field", name, pos)]
    if rest:
        # The rest is taken as it is: "title:a:b" searches the words a and b in titles.
        kind = rest if rest in _OPERATORS else "word"
        tokens.append(_Token(kind, rest, pos + match.end()))
    return tokens


class _Parser:
    """Recursive descent over the tokens; nesting is capped at :data:`MAX_DEPTH`."""

    def __init__(self, text: str, tokens: list[_Token]) -> None:
        self.text = text
        self.tokens = tokens
        self.i = 0
        self.leaves = 0

    def error(self, message: str, pos: int | None = None) -> QuerySyntaxError:
        if pos is None:
            pos = self.peek().pos if self.peek() else len(self.text)
        return QuerySyntaxError(message, pos, self.text)

    def peek(self) -> _Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def parse(self) -> Query:
        query = self.or_expr(0)
        token = self.peek()
        if token is not None:
            # Only an unmatched ")" can stop or_expr early.
            raise self.error("unmatched ')': remove it or add a '(' before it", token.pos)
        if query is None:
            raise self.error("the query has no searchable word", 0)
        return query

    def or_expr(self, depth: int) -> Query | None:
        start = self.i
        parts = [self.and_expr(depth)]
        token = self.peek()
        if self.i == start and token is not None and token.kind == "OR":
            raise self.error("OR needs a term before it", token.pos)
        while (token := self.peek()) is not None and token.kind == "OR":
            self.take()
            parts.append(self.and_expr(depth, after=token))
        kept = tuple(p for p in parts if p is not None)
        if not kept:
            return None
        return kept[0] if len(kept) == 1 else Or(kept)

    def and_expr(self, depth: int, after: _Token | None = None) -> Query | None:
        positives: list[Query | None] = []
        negatives: list[Query | None] = []
        pending: _Token | None = after
        while (token := self.peek()) is not None and token.kind not in ("OR", ")"):
            if token.kind in ("AND", "NOT"):
                if pending is not None and pending.kind == "AND" and token.kind == "NOT" and positives:
                    pending = self.take()  # "a AND NOT b" means "a NOT b"
                    continue
                if pending is not None:
                    raise self.error(f"{token.kind} cannot follow {pending.kind}", token.pos)
                if token.kind == "AND" and not positives and not negatives:
                    raise self.error("AND needs a term before it", token.pos)
                if token.kind == "NOT" and not positives:
                    raise self.error("NOT needs a term before it (a query cannot only exclude)", token.pos)
                pending = self.take()
                continue
            target = negatives if pending is not None and pending.kind == "NOT" else positives
            target.append(self.item(depth))
            pending = None
        if pending is not None:
            where = self.peek().pos if self.peek() else len(self.text)
            raise self.error(f"{pending.kind} needs a term after it", where)
        kept = [p for p in positives if p is not None]
        excluded = [q for q in negatives if q is not None]
        if not kept:
            return None
        positive = kept[0] if len(kept) == 1 else And(tuple(kept))
        if not excluded:
            return positive
        return Not(positive, excluded[0] if len(excluded) == 1 else Or(tuple(excluded)))

    def item(self, depth: int) -> Query | None:
        query = self.atom(depth, field=None)
        token = self.peek()
        if token is not None and token.kind == "^":
            self.take()
            query = _with_boost(query, self.boost(token))
        return query

    def boost(self, token: _Token) -> float:
        try:
            value = float(token.text)
        except ValueError:
            raise self.error("expected a number after '^', e.g. term^2", token.pos) from None
        if not 0 < value <= MAX_BOOST:
            raise self.error(f"boost must be above 0 and at most {MAX_BOOST:g}", token.pos)
        return value

    def atom(self, depth: int, field: str | None) -> Query | None:
        token = self.peek()
        if token is None:
            raise self.error("expected a term at the end of the query", len(self.text))
        if token.kind == "(":
            return self.group(depth, field)
        if token.kind == "field":
            self.take()
            nxt = self.peek()
            if nxt is None or nxt.kind not in ("word", "phrase", "("):
                raise self.error(f"'{token.text}:' needs a word, a phrase or a group after it", token.pos)
            return self.atom(depth, field=token.text)
        if token.kind == "phrase":
            self.take()
            return self.leaf(Phrase(token.text, field), token)
        if token.kind == "word":
            self.take()
            return self.word(token, field)
        if token.kind == ")":
            raise self.error("unmatched ')': remove it or add a '(' before it", token.pos)
        if token.kind == "^":
            raise self.error("'^' needs a term before it, e.g. term^2", token.pos)
        raise self.error(f"{token.kind} needs a term before it", token.pos)  # pragma: no cover - guarded by and_expr

    def group(self, depth: int, field: str | None) -> Query | None:
        opening = self.take()
        if depth + 1 > MAX_DEPTH:
            raise self.error(f"parentheses nested deeper than {MAX_DEPTH}", opening.pos)
        nxt = self.peek()
        if nxt is not None and nxt.kind == ")":
            raise self.error("empty parentheses", nxt.pos)
        inner = self.or_expr(depth + 1)
        closing = self.peek()
        if closing is None or closing.kind != ")":
            raise self.error("unclosed '(': add the closing ')'", opening.pos)
        self.take()
        if inner is not None and field is not None:
            inner = _with_field(inner, field)
        return inner

    def word(self, token: _Token, field: str | None) -> Query | None:
        text = token.text
        star = text.find("*")
        if star >= 0 and star != len(text) - 1:
            raise self.error("'*' is only allowed at the end of a word", token.pos + star)
        if star == 0:
            raise self.error("'*' needs the start of a word before it, e.g. gene*", token.pos)
        if star > 0:
            return self.leaf(Prefix(text[:-1], field), token)
        return self.leaf(Term(text, field), token)

    def leaf(self, query: Term | Phrase | Prefix, token: _Token) -> Query | None:
        if not _WORD_RE.search(query.text):
            if query.__class__ is Phrase:
                raise self.error("the phrase has no searchable word", token.pos)
            return None  # lone punctuation such as "-" or "&" carries no word
        self.leaves += 1
        if self.leaves > MAX_BOOLEAN_TERMS:
            raise self.error(f"query too long: more than {MAX_BOOLEAN_TERMS} terms", token.pos)
        return query


def _with_boost(query: Query | None, boost: float) -> Query | None:
    if query is None:
        return None
    if isinstance(query, Not):
        # Not has no boost of its own: boost what it keeps.
        return Not(_with_boost(query.positive, boost), query.negative)  # type: ignore[arg-type]
    return replace(query, boost=query.boost * boost)


def _with_field(query: Query, field: str) -> Query:
    """``title:(a OR b)``: give every leaf without a field the group's field."""
    if isinstance(query, (Term, Phrase, Prefix)):
        return query if query.field else replace(query, field=field)
    if isinstance(query, Not):
        return Not(_with_field(query.positive, field), _with_field(query.negative, field))
    return replace(query, children=tuple(_with_field(c, field) for c in query.children))
