"""The query AST: one tree that every lexical backend renders to its own syntax.

User text never reaches a backend's parser directly: it becomes ``Term``,
``Phrase`` and ``Prefix`` leaves (through :func:`navicite.index.parse.free_text`
or :func:`navicite.index.parse.parse_boolean`), and each backend escapes
what it renders.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Union

#: Fields every backend knows. ``None`` as a field means "all text fields, with their boosts".
FIELDS = ("title", "abstract", "body")


@dataclass(frozen=True)
class Term:
    """A single word (analysed like the indexed text)."""

    text: str
    field: str | None = None
    boost: float = 1.0


@dataclass(frozen=True)
class Phrase:
    """Words that must occur next to each other, in order."""

    text: str
    field: str | None = None
    boost: float = 1.0


@dataclass(frozen=True)
class Prefix:
    """Any word starting with ``text`` (``gene*``)."""

    text: str
    field: str | None = None
    boost: float = 1.0


@dataclass(frozen=True)
class And:
    """All children must match."""

    children: tuple[Query, ...]
    boost: float = 1.0


@dataclass(frozen=True)
class Or:
    """At least one child must match; more matches score higher."""

    children: tuple[Query, ...]
    boost: float = 1.0


@dataclass(frozen=True)
class Not:
    """Documents matching ``positive`` but not ``negative``."""

    positive: Query
    negative: Query


Query = Union[Term, Phrase, Prefix, And, Or, Not]


def to_text(query: Query) -> str:
    """Human-readable Boolean form, as ``--boolean`` accepts it (for traces and display)."""
    if isinstance(query, Term):
        text = _quote_if_needed(query.text)
    elif isinstance(query, Phrase):
        text = '"' + query.text.replace('"', "") + '"'
    elif isinstance(query, Prefix):
        text = _quote_if_needed(query.text) + "*"
    elif isinstance(query, (And, Or)):
        joiner = " AND " if isinstance(query, And) else " OR "
        parts = [to_text(c) if not isinstance(c, (And, Or, Not)) else f"({to_text(c)})" for c in query.children]
        text = joiner.join(parts)
    elif isinstance(query, Not):
        return f"({to_text(query.positive)}) NOT ({to_text(query.negative)})"
    else:  # pragma: no cover - exhaustive
        raise TypeError(f"not a query node: {query!r}")
    field = getattr(query, "field", None)
    if field:
        text = f"{field}:{text}"
    return text


def searched_fields(leaf: Term | Phrase | Prefix, field_boosts: dict[str, float], routes: dict[str, str]) -> dict[str, float]:
    """The indexed fields a leaf searches, with weights: the field it names (through ``routes``,
    which maps a document part to the field answering it), or else every weighted field of
    ``field_boosts``. Every backend renders a leaf as one clause per field returned.

    Raises:
        UserInputError: the leaf names a field that is not one of :data:`FIELDS`.
    """
    from navicite.errors import UserInputError

    if leaf.field is not None:
        if leaf.field not in FIELDS:
            raise UserInputError(f"unknown field {leaf.field!r} in a query (fields: {', '.join(FIELDS)})")
        return {routes.get(leaf.field, leaf.field): leaf.boost}
    return {name: weight * leaf.boost for name, weight in field_boosts.items() if weight > 0}


def leaves(query: Query, negated: bool = False) -> Iterator[Term | Phrase | Prefix]:
    """The words, phrases and prefixes of a query, left to right.

    Leaves under the excluded side of a ``Not`` are skipped unless ``negated``
    is true (highlighting wants only what a hit matched). Iterative, so any depth works.
    """
    stack: list[Query] = [query]
    while stack:
        node = stack.pop()
        if isinstance(node, (Term, Phrase, Prefix)):
            yield node
        elif isinstance(node, Not):
            stack.extend([node.negative, node.positive] if negated else [node.positive])
        else:
            stack.extend(reversed(node.children))


def _quote_if_needed(word: str) -> str:
    if word and all(ch.isalnum() or ch in "-_'." for ch in word):
        return word
    return '"' + word.replace('"', "") + '"'
