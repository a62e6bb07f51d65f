"""Merge of every query's hits into one candidate pool (docs/method.md §1.4).

Candidates are de-duplicated by id, then whole records by normalised title (the same
paper indexed twice under different ids), and each keeps the full list of
queries that found it. Without a reranker the pool is ordered by reciprocal
rank fusion over portfolios.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any

from navicite.index.base import Hit

#: The usual RRF constant: dampens the advantage of rank 1 over rank 2.
RRF_K = 60

_NOT_WORD = re.compile(r"[\W_]+", re.UNICODE)


def normalise_title(title: str) -> str:
    """Title key for de-duplication: case, accents' composed forms, punctuation and spacing ignored."""
    return _NOT_WORD.sub(" ", unicodedata.normalize("NFKC", title).casefold()).strip()


@dataclass(frozen=True)
class Provenance:
    """Where a candidate was found: portfolio, query text, 1-based rank and the backend's score.

    ``round``: the retrieval round of the query (``retrieve.rounds``); a later round's query
    was built from ``sub_question``.
    """

    portfolio: str
    query: str
    rank: int
    score: float
    round: int = 1
    sub_question: str = ""

    @property
    def label(self) -> str:
        """The portfolio, with its round after the first (``Q``, ``Q2``): each counts apart in the fusion."""
        return self.portfolio if self.round == 1 else f"{self.portfolio}{self.round}"


@dataclass(frozen=True)
class QueryResult:
    """The hits of one query, as the search step returns them; ``error`` says why a query failed."""

    portfolio: str
    query: str
    hits: list[Hit]
    seconds: float = 0.0
    error: str = ""
    round: int = 1
    sub_question: str = ""


@dataclass
class Candidate:
    """One pooled document with its provenance and, later, its scores."""

    doc_id: str
    title: str
    provenance: list[Provenance] = field(default_factory=list)
    score: float = 0.0
    signals: dict[str, float] = field(default_factory=dict)
    merged_ids: list[str] = field(default_factory=list)

    @property
    def round(self) -> int:
        """The latest retrieval round whose queries found this candidate (1 for a one-round search)."""
        return max((p.round for p in self.provenance), default=1)

    @property
    def portfolios(self) -> list[str]:
        """Portfolios that found this candidate (``Q2``: Q of round 2), in first-found order."""
        return list(dict.fromkeys(p.label for p in self.provenance))

    def best_ranks(self) -> dict[str, int]:
        """Best rank per portfolio."""
        out: dict[str, int] = {}
        for p in self.provenance:
            out[p.label] = min(out.get(p.label, p.rank), p.rank)
        return out

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["portfolios"] = self.portfolios
        return data


def reciprocal_rank_fusion(candidate: Candidate, k: int = RRF_K) -> float:
    """Sum over portfolios of 1 / (k + best rank in that portfolio)."""
    return sum(1.0 / (k + rank) for rank in candidate.best_ranks().values())


class CandidatePool:
    """Stage 4 of MPR: query results -> de-duplicated candidates ordered by RRF."""

    def __init__(self, rrf_k: int = RRF_K) -> None:
        self.rrf_k = rrf_k

    def run(self, results: list[QueryResult]) -> list[Candidate]:
        """Pool ``results``; candidates come back best fused score first."""
        by_id: dict[str, Candidate] = {}
        by_title: dict[str, Candidate] = {}
        for result in results:
            for rank, hit in enumerate(result.hits, start=1):
                found = Provenance(result.portfolio, result.query, rank, hit.score, result.round, result.sub_question)
                candidate = by_id.get(hit.doc_id)
                # Passages of one document share its title: only whole records are merged by title.
                title_key = "" if hit.parent else normalise_title(hit.title)
                if candidate is None and title_key:
                    candidate = by_title.get(title_key)
                    if candidate is not None:
                        candidate.merged_ids.append(hit.doc_id)
                        by_id[hit.doc_id] = candidate
                if candidate is None:
                    candidate = Candidate(hit.doc_id, hit.title)
                    by_id[hit.doc_id] = candidate
                    if title_key:
                        by_title[title_key] = candidate
                candidate.provenance.append(found)
        pooled = list({id(c): c for c in by_id.values()}.values())
        for candidate in pooled:
            candidate.score = reciprocal_rank_fusion(candidate, self.rrf_k)
            candidate.signals["rrf"] = candidate.score
        # Stable sort: ties keep the order in which queries found them.
        pooled.sort(key=lambda c: c.score, reverse=True)
        return pooled
