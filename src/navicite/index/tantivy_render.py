"""Render the query AST into tantivy Query objects.

Built through tantivy's query constructors, never through its query-string
parser, so no user text can change the structure of a query. Leaf text is
analysed with the same analyzers as the indexed text; CJK characters are looked
up in the ``*_cjk`` bigram fields.

A word holding CJK characters (a ``Term``) is scored as a bag of its bigrams, so a
Korean word matches its other inflected forms ("대한민국의" finds "대한민국은"): the word
matches where its first bigram is (the stem comes first, particles and endings last),
and every bigram found adds its BM25 score. Letters and digits glued to CJK characters
("1989" of "1989년") are words of their own. Quoted phrases and prefixes keep every
bigram in order.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, replace

import tantivy

from navicite.index import cjk
from navicite.index.query import And, Not, Or, Phrase, Prefix, Query, Term, searched_fields
from navicite.index.tantivy_schema import cjk_field, utf8_safe, word_analyzer

Occur = tantivy.Occur
_REGEX_SPECIAL = re.compile(r"([\\.+*?()|\[\]{}^$#&\-~])")


def _regex_literal(text: str) -> str:
    # Only ASCII punctuation is escaped: the regex crate rejects escapes of other characters.
    return _REGEX_SPECIAL.sub(r"\\\1", text)


@dataclass
class Renderer:
    """Turns AST nodes into tantivy queries for one schema.

    ``field_boosts`` names the fields searched when a leaf names no field, with their
    weights (for searching: the combined ``all`` field plus, optionally, the title;
    for snippets: the combined field, whose analyzer every part shares). ``routes`` maps
    a part named in a query to the indexed field that answers it (by default its own).
    """

    schema: tantivy.Schema
    stemming: bool
    field_boosts: dict[str, float]
    routes: dict[str, str] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        self._words = word_analyzer(self.stemming)
        self._lower = word_analyzer(False)

    def render(self, query: Query) -> tantivy.Query | None:
        """The tantivy query, or None when nothing in it can match (e.g. only punctuation)."""
        if isinstance(query, (Term, Phrase, Prefix)):
            return _boolean([(Occur.Should, q) for q in self._leaf_clauses(query)])
        if isinstance(query, Not):
            positive = self.render(query.positive)
            if positive is None:
                return None
            negative = self.render(query.negative)
            if negative is None:
                return positive
            return tantivy.Query.boolean_query([(Occur.Must, positive), (Occur.MustNot, negative)])
        if isinstance(query, And):
            parts = [q for q in (self.render(c) for c in query.children) if q is not None]
            return _boosted(_boolean([(Occur.Must, q) for q in parts]), query.boost)
        if isinstance(query, Or):
            return _boosted(_boolean([(Occur.Should, q) for q in self._or_clauses(query)]), query.boost)
        raise TypeError(f"not a query node: {query!r}")

    def _or_clauses(self, query: Or) -> list[tantivy.Query]:
        """Should-clauses of an OR; unboosted nested ORs and field-less leaves are flattened
        into one disjunction, which scores the same and lets tantivy skip blocks (WAND)."""
        clauses: list[tantivy.Query] = []
        for child in query.children:
            if isinstance(child, Or) and child.boost == 1.0:
                clauses.extend(self._or_clauses(child))
            elif isinstance(child, (Term, Phrase, Prefix)):
                clauses.extend(self._leaf_clauses(child))
            else:
                rendered = self.render(child)
                if rendered is not None:
                    clauses.append(rendered)
        return clauses

    def _leaf_clauses(self, leaf: Term | Phrase | Prefix) -> list[tantivy.Query]:
        """One clause per searched field (any of them may match)."""
        leaf = replace(leaf, text=utf8_safe(leaf.text))
        fields = searched_fields(leaf, self.field_boosts, self.routes)
        clauses = []
        cjk_word = isinstance(leaf, Term) and cjk.has_cjk(leaf.text)
        for name, boost in fields.items():
            if cjk_word:
                queries = [self._cjk_word_query(leaf.text, name)]
            else:
                queries = [self._words_query(leaf, name), self._cjk_query(leaf, name)]
            for q in queries:
                if q is not None:
                    clauses.append(_boosted(q, boost))
        return clauses

    def _words_query(self, leaf: Term | Phrase | Prefix, field: str) -> tantivy.Query | None:
        if isinstance(leaf, Prefix):
            return self._prefix_query(leaf.text, field)
        tokens = self._words.analyze(leaf.text)
        if not tokens:
            return None
        if len(tokens) == 1:
            return tantivy.Query.term_query(self.schema, field, tokens[0])
        # A word that analyses into several tokens ("covid-19") must keep them together.
        return tantivy.Query.phrase_query(self.schema, field, tokens)

    def _prefix_query(self, text: str, field: str) -> tantivy.Query | None:
        plain = self._lower.analyze(text)
        if not plain:
            return None
        if len(plain) > 1:
            head = self._words.analyze(" ".join(plain[:-1]))
            words = [*head, plain[-1]] if head else plain[-1:]
            if len(words) > 1:
                return tantivy.Query.phrase_prefix_query(self.schema, field, words)
        last = plain[-1]
        stems = self._words.analyze(last) if self.stemming else []
        # Indexed words are stemmed ("studies" -> "studi"), so "studies*" must also
        # accept the stem itself, or it would find nothing.
        pattern = _regex_literal(last) + ".*"
        if stems and stems[0] != last:
            pattern += "|" + _regex_literal(stems[0])
        return tantivy.Query.regex_query(self.schema, field, pattern)

    def _cjk_word_query(self, text: str, field: str) -> tantivy.Query | None:
        """A word with CJK characters: its anchor required (scoring nothing), its pieces scored.

        Pieces are the bigrams of each CJK run (a lone character stands for itself) in the
        bigram field, and the letters and digits glued to them as words in ``field``. The
        anchor is the word's first piece: a CJK run's first bigram, or the first glued word.
        Measured on KorQuAD (docs/decisions/cjk-bigrams.md): as good as a plain bag of bigrams for free
        text, and better than the bag, the whole run or the run without its last syllable
        inside Boolean portfolio queries.
        """
        bigram_field = cjk_field(field)
        pieces = cjk.word_pieces(text)
        if len(pieces) == 1 and len(pieces[0]) == 1:
            return self._cjk_run_query(pieces[0], bigram_field)  # a one-character word: any pair holding it
        scored: list[tantivy.Query] = []
        for piece in pieces:
            cjk_piece = cjk.has_cjk(piece)
            tokens = cjk.bigrams(piece) if cjk_piece else self._words.analyze(piece)
            name = bigram_field if cjk_piece else field
            scored.extend(tantivy.Query.term_query(self.schema, name, t) for t in dict.fromkeys(tokens))
        if len(scored) <= 1:
            return scored[0] if scored else None  # a two-character word: its one pair, scored
        filter_ = tantivy.Query.const_score_query(scored[0], 0.0)
        return tantivy.Query.boolean_query([(Occur.Must, filter_), *((Occur.Should, q) for q in scored)])

    def _cjk_query(self, leaf: Term | Phrase | Prefix, field: str) -> tantivy.Query | None:
        runs = cjk.cjk_runs(leaf.text)
        if not runs:
            return None
        name = cjk_field(field)
        parts = [self._cjk_run_query(run, name) for run in runs]
        return parts[0] if len(parts) == 1 else _boolean([(Occur.Must, q) for q in parts])

    def _cjk_run_query(self, run: str, field: str) -> tantivy.Query:
        if len(run) == 1:
            # A lone character is the first or second half of an indexed pair, or a pair of its own.
            char = _regex_literal(run)
            return tantivy.Query.regex_query(self.schema, field, f"{char}.?|.{char}")
        pairs = cjk.bigrams(run)
        if len(pairs) == 1:
            return tantivy.Query.term_query(self.schema, field, pairs[0])
        return tantivy.Query.phrase_query(self.schema, field, pairs)


def _boolean(clauses: list[tuple[tantivy.Occur, tantivy.Query]]) -> tantivy.Query | None:
    if not clauses:
        return None
    if len(clauses) == 1 and clauses[0][0] != Occur.MustNot:
        return clauses[0][1]
    return tantivy.Query.boolean_query(clauses)


def _boosted(query: tantivy.Query | None, boost: float) -> tantivy.Query | None:
    if query is None or boost == 1.0:
        return query
    return tantivy.Query.boost_query(query, boost)
