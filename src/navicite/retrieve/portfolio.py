"""Query portfolios Q, S, F and G (docs/method.md §1.2), built as query ASTs.

Each portfolio is a different strategy over the same keywords:

- **Q** (precision): ``p_i AND (e1 OR e2 OR e3)`` for the top-3 primaries;
- **S** (synonym recall): ``(p_i OR syn(p_i)...) AND (e1* OR e2* OR e3*)``, minus noise terms;
- **F** (facets): ``(p1 OR p2 OR p3) AND p4`` and ``... AND p5``;
- **G** (cross-lingual): ``(T(p1) OR T(p2) OR T(p3))`` and that group ``AND (T(e1) OR T(e2) OR T(e3))``.

OR-groups hold at most ``or_group_cap`` terms; a multi-word term ``"a b"`` becomes
``("a b" OR (a AND b))``; queries equal up to case are kept once; at most
``max_queries`` queries in all, in the order Q, S, F, G.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from navicite.index.query import And, Not, Or, Phrase, Prefix, Query, Term, to_text
from navicite.retrieve.keywords import Analysis, normalise, unique_terms

PortfolioName = Literal["Q", "S", "F", "G"]

#: Words marking documents that are about a medium rather than a subject (the reference's list).
NOISE_TERMS: tuple[str, ...] = ("image", "photo", "poster", "slides", "review", "patent", "dataset", "press")


@dataclass(frozen=True)
class Translation:
    """Primary and expanded keyword terms translated into ``language``, in the original order, and
    the whole question in that language (empty when the model gave none)."""

    primary: tuple[str, ...]
    expanded: tuple[str, ...]
    language: str
    question: str = ""


@dataclass(frozen=True)
class PortfolioQuery:
    """One query of one portfolio."""

    portfolio: PortfolioName
    query: Query

    @property
    def text(self) -> str:
        """The query in Boolean syntax (see :func:`navicite.index.query.to_text`)."""
        return to_text(self.query)


@dataclass
class PortfolioSet:
    """All queries to run, and why a portfolio produced none."""

    queries: list[PortfolioQuery]
    skipped: dict[str, str] = field(default_factory=dict)

    def by_portfolio(self) -> dict[str, list[PortfolioQuery]]:
        out: dict[str, list[PortfolioQuery]] = {}
        for q in self.queries:
            out.setdefault(q.portfolio, []).append(q)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "queries": [{"portfolio": q.portfolio, "query": q.text} for q in self.queries],
            "skipped": dict(self.skipped),
        }


def term_query(term: str) -> Query:
    """A keyword as a query: one word as a term, several as ``("a b" OR (a AND b))``."""
    parts = term.split()
    if len(parts) == 1:
        return Term(parts[0])
    return Or((Phrase(" ".join(parts)), And(tuple(Term(p) for p in parts))))


def prefix_query(term: str) -> Query:
    """A keyword matched as a prefix; for several words only the last is a prefix."""
    parts = term.split()
    if len(parts) == 1:
        return Prefix(parts[0])
    return Or((Phrase(" ".join(parts)), And((*(Term(p) for p in parts[:-1]), Prefix(parts[-1])))))


class PortfolioBuilder:
    """Stage 2 of MPR: keywords -> :class:`PortfolioSet`.

    Args:
        or_group_cap: most terms in one OR-group.
        max_queries: most queries in all.
        noise_terms: words whose documents portfolio S excludes.
    """

    def __init__(self, or_group_cap: int = 5, max_queries: int = 10, noise_terms: tuple[str, ...] = NOISE_TERMS) -> None:
        self.or_group_cap = or_group_cap
        self.max_queries = max_queries
        self.noise_terms = noise_terms

    def _group(self, terms: list[str], node=term_query) -> Query | None:
        """OR of the (unique, capped) terms; a single term stands alone."""
        kept = unique_terms(terms)[: self.or_group_cap]
        if not kept:
            return None
        nodes = [node(t) for t in kept]
        return nodes[0] if len(nodes) == 1 else Or(tuple(nodes))

    @staticmethod
    def _and(left: Query, right: Query | None) -> Query:
        return left if right is None else And((left, right))

    def portfolio_q(self, analysis: Analysis) -> list[Query]:
        expansions = self._group([e.term for e in analysis.expanded[:3]])
        return [self._and(term_query(p.term), expansions) for p in analysis.primary[:3]]

    def portfolio_s(self, analysis: Analysis) -> list[Query]:
        expansions = self._group([e.term for e in analysis.expanded[:3]], node=prefix_query)
        noise = self._noise()
        out: list[Query] = []
        for p in analysis.primary[:3]:
            anchor = self._group(p.variants())
            assert anchor is not None  # variants() always holds the term itself
            query = self._and(anchor, expansions)
            out.append(Not(query, noise) if noise is not None else query)
        return out

    def _noise(self) -> Query | None:
        # Exclusion list, not a recall group: the OR-group cap does not apply to it.
        words = unique_terms(list(self.noise_terms))
        if not words:
            return None
        return Term(words[0]) if len(words) == 1 else Or(tuple(Term(w) for w in words))

    def portfolio_f(self, analysis: Analysis) -> list[Query]:
        if len(analysis.primary) < 4:
            return []
        anchors = self._group([p.term for p in analysis.primary[:3]])
        assert anchors is not None
        return [And((anchors, term_query(p.term))) for p in analysis.primary[3:5]]

    def portfolio_g(self, translation: Translation) -> list[Query]:
        anchors = self._group(list(translation.primary[:3]))
        if anchors is None:
            return []
        expansions = self._group(list(translation.expanded[:3]))
        return [anchors] if expansions is None else [anchors, And((anchors, expansions))]

    def run(self, analysis: Analysis, translation: Translation | None = None, g_skipped: str | None = None) -> PortfolioSet:
        """Build every portfolio's queries.

        Args:
            analysis: the keywords.
            translation: the keywords in the collection's other language, for G.
            g_skipped: why there is no translation (recorded when ``translation`` is None).
        """
        planned: list[tuple[PortfolioName, list[Query]]] = [
            ("Q", self.portfolio_q(analysis)),
            ("S", self.portfolio_s(analysis)),
            ("F", self.portfolio_f(analysis)),
            ("G", self.portfolio_g(translation) if translation else []),
        ]
        skipped: dict[str, str] = {}
        if translation is None:
            skipped["G"] = g_skipped or "no translation"
        queries: list[PortfolioQuery] = []
        seen: set[str] = set()
        for name, built in planned:
            if not built and name not in skipped:
                skipped[name] = "not enough keywords"
            for query in built:
                key = normalise(to_text(query))
                if key in seen:
                    continue
                seen.add(key)
                queries.append(PortfolioQuery(name, query))
        if len(queries) > self.max_queries:
            for dropped in queries[self.max_queries :]:
                skipped.setdefault(dropped.portfolio, f"queries beyond the limit of {self.max_queries} dropped")
            queries = queries[: self.max_queries]
        return PortfolioSet(queries, skipped)
