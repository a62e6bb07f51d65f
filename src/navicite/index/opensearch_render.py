"""Render the query AST into OpenSearch query DSL, as JSON structure.

Never a query string: user text only ever becomes the value of a ``match_phrase``, ``term``,
``prefix`` or ``regexp`` leaf, so no ``"``, ``:`` or ``AND`` in it can change a query's shape.
The rules mirror :mod:`navicite.index.tantivy_render` clause for clause (which field a leaf
searches, how a CJK word is scored, what a prefix accepts), so both backends rank alike.
Which leaves can match at all is decided with navicite's own word analysis
(:func:`navicite.index.words.terms`' analyzer): a leaf of punctuation drops out of its
query instead of matching nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from navicite.index import cjk
from navicite.index.opensearch_mapping import ALL, cjk_field, glued_field
from navicite.index.query import And, Not, Or, Phrase, Prefix, Query, Term, searched_fields
from navicite.index.tantivy_schema import utf8_safe, word_analyzer

Clause = dict[str, Any]
#: A prefix or one-character match scores 1.0 (times its boost), as in tantivy; BM25 is on the same
#: scale in both (neither multiplies by k1 + 1).
_CONSTANT = 1.0
_REGEX_SPECIAL = re.compile(r'([\\.?+*|{}\[\]()"#@&<>~^$-])')


@dataclass
class Renderer:
    """Turns AST nodes into query DSL for one index.

    ``field_boosts`` names the fields a leaf without a field searches, with weights; ``routes``
    maps a part named in a query to the field that answers it.
    """

    stemming: bool
    field_boosts: dict[str, float]
    routes: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._words = word_analyzer(self.stemming)
        self._lower = word_analyzer(False)

    def render(self, query: Query) -> Clause | None:
        """The DSL query, or None when nothing in it can match (e.g. only punctuation)."""
        if isinstance(query, (Term, Phrase, Prefix)):
            return _bool("should", self._leaf_clauses(query))
        if isinstance(query, Not):
            positive = self.render(query.positive)
            if positive is None:
                return None
            negative = self.render(query.negative)
            if negative is None:
                return positive
            return {"bool": {"must": [positive], "must_not": [negative]}}
        if isinstance(query, And):
            parts = [q for q in (self.render(c) for c in query.children) if q is not None]
            return _boosted(_bool("must", parts), query.boost)
        if isinstance(query, Or):
            parts = [q for q in (self.render(c) for c in query.children) if q is not None]
            return _boosted(_bool("should", parts), query.boost)
        raise TypeError(f"not a query node: {query!r}")

    def _leaf_clauses(self, leaf: Term | Phrase | Prefix) -> list[Clause]:
        """One clause per searched field (any of them may match)."""
        text = utf8_safe(leaf.text)
        fields = searched_fields(leaf, self.field_boosts, self.routes)
        clauses = []
        cjk_word = isinstance(leaf, Term) and cjk.has_cjk(text)
        for name, boost in fields.items():
            if cjk_word:
                queries = [self._cjk_word_query(text, name)]
            else:
                queries = [self._words_query(leaf, text, name), self._cjk_query(text, name)]
            clauses.extend(_boosted(q, boost) for q in queries if q is not None)
        return clauses

    def _words_query(self, leaf: Term | Phrase | Prefix, text: str, name: str) -> Clause | None:
        if isinstance(leaf, Prefix):
            return self._prefix_query(text, name)
        if not self._words.analyze(text):
            return None
        # One word is a term query, several ("covid-19", a phrase) must stand together.
        found = {"match_phrase": {name: {"query": text}}}
        if name == ALL:
            return found
        # A part's words glued to CJK characters are in a field of their own.
        return {"bool": {"should": [found, {"match_phrase": {glued_field(name): {"query": text}}}]}}

    def _prefix_query(self, text: str, name: str) -> Clause | None:
        plain = self._lower.analyze(text)
        if not plain:
            return None
        if len(plain) > 1:
            return {"match_phrase_prefix": {name: {"query": " ".join(plain), "max_expansions": 50}}}
        last = plain[0]
        stems = self._words.analyze(last) if self.stemming else []
        # Indexed words are stemmed ("studies" -> "studi"): "studies*" also accepts the stem.
        options: list[Clause] = [{"prefix": {name: {"value": last}}}]
        if stems and stems[0] != last:
            options.append({"term": {name: {"value": stems[0]}}})
        return _constant(options)

    def _cjk_word_query(self, text: str, name: str) -> Clause | None:
        """A word with CJK characters: its first piece required (scoring nothing), every piece scored.

        Same rule as the tantivy backend (see ``tantivy_render.Renderer._cjk_word_query``).
        """
        pairs_field = cjk_field(name)
        pieces = cjk.word_pieces(text)
        if len(pieces) == 1 and len(pieces[0]) == 1:
            return self._cjk_run_query(pieces[0], pairs_field)
        scored: list[Clause] = []
        for piece in pieces:
            if cjk.has_cjk(piece):
                scored.extend({"term": {pairs_field: {"value": p}}} for p in dict.fromkeys(cjk.bigrams(piece)))
            else:
                words = name if name == ALL else glued_field(name)
                scored.extend({"term": {words: {"value": w}}} for w in dict.fromkeys(self._words.analyze(piece)))
        if len(scored) <= 1:
            return scored[0] if scored else None
        return {"bool": {"filter": [scored[0]], "should": scored}}

    def _cjk_query(self, text: str, name: str) -> Clause | None:
        runs = cjk.cjk_runs(text)
        if not runs:
            return None
        pairs_field = cjk_field(name)
        return _bool("must", [self._cjk_run_query(run, pairs_field) for run in runs])

    def _cjk_run_query(self, run: str, pairs_field: str) -> Clause:
        if len(run) == 1:
            # A lone character is either half of an indexed pair, or a pair of its own.
            char = _REGEX_SPECIAL.sub(r"\\\1", run)
            return _constant([{"regexp": {pairs_field: {"value": f"{char}.?|.{char}"}}}])
        pairs = cjk.bigrams(run)
        if len(pairs) == 1:
            return {"term": {pairs_field: {"value": pairs[0]}}}
        return {"match_phrase": {pairs_field: {"query": " ".join(pairs)}}}


def _bool(occur: str, clauses: list[Clause]) -> Clause | None:
    if not clauses:
        return None
    if len(clauses) == 1:
        return clauses[0]
    return {"bool": {occur: clauses}}


def _constant(options: list[Clause]) -> Clause:
    inner = options[0] if len(options) == 1 else {"bool": {"should": options}}
    return {"constant_score": {"filter": inner, "boost": _CONSTANT}}


def _boosted(query: Clause | None, boost: float) -> Clause | None:
    if query is None or boost == 1.0:
        return query
    return {"bool": {"must": [query], "boost": boost}}
