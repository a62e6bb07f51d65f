"""Multi-portfolio retrieval as one stage: analyse, build portfolios, search, pool, rerank.

:class:`MultiPortfolioRetriever` composes the smaller stages of this package
(``expand``, ``translate``, ``portfolio``, ``pool``) with the index and a
reranker, and records what each step did and cost in :class:`MPRResult`.

Beyond the published method (docs/method.md), the flat question's BM25 top hits join the pool as portfolio
``B`` (``retrieve.flat_portfolio``, on by default): the Boolean portfolios are
conjunctions of keyword pairs, and on SciFact they alone recall fewer
documents than flat BM25 does (see bench/mpr_bench.py). Each step is a stage of a
:class:`~navicite.stages.StageRecorder` (seconds and LLM calls per step, counted per run,
so concurrent runs on one LLM object do not count each other's calls).

With ``retrieve.rounds`` above 1, multi-hop questions get more rounds. With
``retrieve.bridge = names`` (the default) one more round searches for the names the best two
passages mention (:mod:`navicite.retrieve.bridge`, no model call) and places what it finds
after the first round's best five. With ``llm``, after a round one LLM call
(:class:`~navicite.retrieve.gap.GapFinder`) reads the best passages and says whether they
are enough or what is missing; a sub-question and its keywords then get their own Q/S, B and
D searches, whose hits join the pool with their round, and the pool is reranked against the
question and every sub-question (a candidate keeps its best score). Those rounds stop on
"enough", on an unusable reply, when a round finds no new passage, or at the limit.
:attr:`MPRResult.rounds` records each round.
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from navicite.config import Settings
from navicite.documents import PARENT_KEY
from navicite.errors import NaviciteError
from navicite.index.base import Hit, LexicalIndex
from navicite.index.parse import free_text
from navicite.index.query import to_text
from navicite.llm.base import LLM, LLMError
from navicite.rerank.base import Reranker, RerankItem, Scored, candidate_text, release
from navicite.retrieve.expand import QueryAnalyzer, analysis_by_llm
from navicite.retrieve.fallback import StatisticalAnalyzer
from navicite.retrieve.bridge import KEEP_AHEAD, READ_PASSAGES, Bridge, find_bridges, follows_a_name, with_bridges
from navicite.retrieve.gap import Gap, GapFinder, Glimpse, opening, round_analysis
from navicite.retrieve.keywords import Analysis
from navicite.retrieve.pool import Candidate, CandidatePool, QueryResult
from navicite.retrieve.portfolio import PortfolioBuilder, PortfolioQuery, PortfolioSet, Translation
from navicite.retrieve.translate import KeywordTranslator, target_language
from navicite.stages import StageRecorder
from navicite.text.language import detect_language

_FLAT_REASON = "retrieve.method=flat: the question's own BM25 hits only"
_NO_G_LATER = "keywords of later rounds are not translated"


def query_dict(result: QueryResult) -> dict[str, Any]:
    """One query's line in a trace: portfolio, query text, hits, seconds, error, round."""
    return {"portfolio": result.portfolio, "query": result.query, "hits": len(result.hits),
            "seconds": round(result.seconds, 4), "error": result.error, "round": result.round}


@dataclass
class Round:
    """One missing-information call and the round it started (``retrieve.rounds``).

    ``number``: the round the call planned (2 for the call after round 1); ``read``: the
    passages the model was shown; ``gap``: its verdict (None when the reply was unusable,
    ``problem`` says why); ``queries`` and ``new``: the round's searches and the passages
    they added to the pool (none when the verdict was "enough").
    """

    number: int
    read: list[str]
    gap: Gap | None
    problem: str = ""
    queries: list[QueryResult] = field(default_factory=list)
    new: list[Candidate] = field(default_factory=list)
    #: Who planned the round: "llm" (the missing-information call) or "names" (the passages' names).
    by: str = "llm"

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.number,
            "by": self.by,
            "read": list(self.read),
            **(self.gap.to_dict() if self.gap is not None else {"enough": None}),
            "problem": self.problem,
            "queries": [query_dict(r) for r in self.queries],
            "new": [{"doc_id": c.doc_id, "title": c.title} for c in self.new],
        }


@dataclass
class MPRResult:
    """Everything one MPR run produced, in order of the stages."""

    question: str
    analysis: Analysis
    portfolios: PortfolioSet
    results: list[QueryResult]
    pool: list[Candidate]
    ranked: list[Candidate]
    reranker: str
    translation: Translation | None = None
    timings: dict[str, float] = field(default_factory=dict)
    llm: dict[str, dict[str, float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    #: Rounds after the first (empty with ``retrieve.rounds = 1``) and why they stopped.
    rounds: list[Round] = field(default_factory=list)
    stopped: str = ""

    @property
    def in_collection_language(self) -> str:
        """The question as the collection's language writes it: portfolio G's translation, else the question."""
        return self.translation.question if self.translation is not None and self.translation.question else self.question

    @property
    def ranked_against(self) -> list[str]:
        """The texts the pool was reranked against: the question, its translation (G), then each round's sub-question."""
        translated = [self.translation.question] if self.translation is not None and self.translation.question else []
        return [self.question, *translated,
                *(r.gap.sub_question for r in self.rounds if r.gap is not None and r.queries and r.by == "llm")]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``navicite search --mpr --json``)."""
        return {
            "question": self.question,
            "analysis": self.analysis.to_dict(),
            "translation": None if self.translation is None else {
                "language": self.translation.language,
                "primary": list(self.translation.primary),
                "expanded": list(self.translation.expanded),
                **({"question": self.translation.question} if self.translation.question else {}),
            },
            "portfolios": self.portfolios.to_dict(),
            "queries": [query_dict(r) for r in self.results if r.round == 1],
            "pool_size": len(self.pool),
            "reranker": self.reranker,
            "rounds": [r.to_dict() for r in self.rounds],
            "stopped": self.stopped,
            "ranked_against": self.ranked_against,
            "ranked": [c.to_dict() for c in self.ranked],
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
            "llm": self.llm,
            "errors": list(self.errors),
        }




@dataclass(frozen=True)
class _Early:
    """Searches started before the analysis: the flat question's BM25 and portfolio D."""

    flat: Future[list[Hit]]
    dense: Future[QueryResult | None]


class DenseSearch(Protocol):
    """Nearest documents to a question by embedding (one holding files open also has ``close()``)."""

    def search(self, question: str, k: int) -> list[tuple[str, float]] | None:
        """Up to ``k`` (document id, cosine) pairs, best first; None when it has no vectors at all (no portfolio D)."""
        ...


class MultiPortfolioRetriever:
    """The MPR stage: ``run(question) -> MPRResult``.

    Args:
        index: the lexical index to search.
        llm: the chat model for analysis and translation; None for the statistical path.
        reranker: orders the pool (see :func:`navicite.rerank.create`).
        settings: ``retrieve`` and ``rerank`` sections are read.
        dense: nearest documents by embedding, pooled as portfolio D (``retrieve.dense_portfolio``).

    The retriever owns ``reranker`` and ``dense``: :meth:`close` closes them. ``rounds``
    (from ``retrieve.rounds``) is the most retrieval rounds; later rounds need ``llm``.
    """

    def __init__(
        self, index: LexicalIndex, llm: LLM | None, reranker: Reranker, settings: Settings, dense: DenseSearch | None = None
    ) -> None:
        self.index = index
        self.llm = llm
        self.reranker = reranker
        self.dense = dense if settings.retrieve.dense_portfolio else None
        self.cfg = settings.retrieve
        self.flat = settings.retrieve.method == "flat"
        self.top_n = settings.rerank.top_n
        fallback = StatisticalAnalyzer(index, feedback_docs=self.cfg.feedback_docs)
        self.analyzer = QueryAnalyzer(llm, fallback, self.cfg.analysis_max_tokens, by_llm=analysis_by_llm(settings))
        self.translator = KeywordTranslator(llm) if llm is not None else None
        self.builder = PortfolioBuilder(self.cfg.or_group_cap, self.cfg.max_queries, tuple(self.cfg.noise_terms))
        self.pooler = CandidatePool()
        self.rounds = self.cfg.rounds
        self.gaps = GapFinder(llm, self.cfg.round_max_tokens) if llm is not None else None

    # -- steps -------------------------------------------------------------------------------

    def _g_plan(self, analysis: Analysis) -> tuple[str | None, str]:
        target, reason = target_language(analysis.language, self.index.stats().languages, self.cfg.min_language_share)
        if target is not None and self.translator is None:
            return None, "no LLM configured to translate keywords"
        return target, reason

    def _translate(self, question: str, analysis: Analysis) -> tuple[Translation | None, str]:
        target, reason = self._g_plan(analysis)
        if target is None:
            return None, reason
        assert self.translator is not None
        try:
            return self.translator.run(question, analysis, target), ""
        except LLMError as exc:
            return None, f"translation failed: {exc}"

    def _search_one(self, query: PortfolioQuery) -> QueryResult:
        start = time.perf_counter()
        try:
            hits = self.index.search(query.query, k=self.cfg.top_k_per_query)
        except NaviciteError as exc:  # one bad query must not sink the others
            return QueryResult(query.portfolio, query.text, [], time.perf_counter() - start, error=str(exc))
        return QueryResult(query.portfolio, query.text, hits, time.perf_counter() - start)

    def _search_batch(self, queries: list[PortfolioQuery]) -> list[QueryResult] | None:
        """All queries in one request, where the backend offers ``search_many`` (a cluster: one
        round trip instead of one per query); None otherwise, or when the batch fails (then each
        query runs alone, so one bad query does not sink the others)."""
        search_many = getattr(self.index, "search_many", None)
        if search_many is None or not queries:
            return None
        start = time.perf_counter()
        try:
            found = search_many([q.query for q in queries], self.cfg.top_k_per_query)
        except NaviciteError:
            return None
        elapsed = time.perf_counter() - start
        return [QueryResult(q.portfolio, q.text, hits, elapsed) for q, hits in zip(queries, found)]

    def _flat_bm25(self, question: str) -> list[Hit]:
        query = free_text(question)
        depth = max(self.cfg.bm25_depth, self.cfg.top_k_per_query if self.cfg.flat_portfolio or self.flat else 0)
        if query is None or depth == 0:
            return []
        return self.index.search(query, k=depth)

    def _dense_hits(self, question: str) -> QueryResult | None:
        if self.dense is None or self.flat:
            return None
        start = time.perf_counter()
        found = self.dense.search(question, self.cfg.top_k_per_query)
        if found is None:
            return None
        hits = []
        for doc_id, score in found:
            doc = self.index.get(doc_id)
            if doc is not None:  # vectors of since-deleted documents are skipped
                hits.append(Hit(doc_id, score, doc.title, link=doc.link, parent=str(doc.metadata.get(PARENT_KEY, ""))))
        return QueryResult("D", f"nearest by embedding: {question}", hits, time.perf_counter() - start)

    def _search_all(self, question: str, portfolios: PortfolioSet, early: _Early) -> tuple[list[QueryResult], list[Hit]]:
        """Run the portfolios' queries; add D and (``retrieve.flat_portfolio``) B; also return the flat hits."""
        results = self._search_batch(portfolios.queries)
        if results is None:
            workers = max(1, min(self.cfg.concurrency, len(portfolios.queries)))
            with ThreadPoolExecutor(max_workers=workers) as pool:
                results = list(pool.map(self._search_one, portfolios.queries))
        if (nearest := early.dense.result()) is not None:
            results.append(nearest)
        flat = early.flat.result()
        flat_query = free_text(question)
        if (self.cfg.flat_portfolio or self.flat) and flat_query is not None:
            # Portfolio B: the Boolean portfolios are conjunctions and miss documents that
            # share most of the question's words but not a whole keyword pair.
            results.append(QueryResult("B", to_text(flat_query), flat[: self.cfg.top_k_per_query]))
        return results, flat

    def _items(self, pool: list[Candidate], flat: list[Hit]) -> list[RerankItem]:
        bm25 = {h.doc_id: float(h.score) for h in flat}
        items = []
        for candidate in pool:
            doc = self.index.get(candidate.doc_id)
            text = candidate.title if doc is None else candidate_text(doc)
            signals = dict(candidate.signals)
            signals["agreement"] = float(len(candidate.portfolios) + len(candidate.provenance))
            if candidate.doc_id in bm25:
                signals["bm25"] = bm25[candidate.doc_id]
            items.append(RerankItem(candidate.doc_id, text, signals))
        return items

    def _rerank(self, against: list[tuple[str, list[Hit]]], pool: list[Candidate], top_n: int) -> list[Candidate]:
        """Order ``pool`` for each (text, its flat hits) of ``against``: the question, then the sub-questions.

        With several texts a candidate keeps its best score (signal ``against``: which text gave it).
        """
        by_id = {c.doc_id: c for c in pool}
        if len(against) == 1:
            text, flat = against[0]
            scored = self.reranker.rerank(text, self._items(pool, flat), top_n)
        else:
            best: dict[str, Scored] = {}
            for number, (text, flat) in enumerate(against):
                for s in self.reranker.rerank(text, self._items(pool, flat), len(pool)):
                    if s.doc_id not in best or s.score > best[s.doc_id].score:
                        best[s.doc_id] = Scored(s.doc_id, s.score, {**s.signals, "against": float(number)})
            # Stable: ties keep the question's order.
            scored = sorted(best.values(), key=lambda s: s.score, reverse=True)[:top_n]
        ranked = []
        for s in scored:
            candidate = by_id[s.doc_id]
            candidate.score = s.score
            candidate.signals = s.signals
            ranked.append(candidate)
        return ranked

    def _after_analysis(self, question: str, analysis: Analysis, translation: Translation | None, g_reason: str,
                        recorder: StageRecorder, top_n: int | None, early: _Early) -> MPRResult:
        with recorder.stage("search"):
            if self.flat:
                portfolios = PortfolioSet([], {"Q/S/F/G/D": _FLAT_REASON})
            else:
                portfolios = self.builder.run(analysis, translation, g_reason)
            results, flat = self._search_all(question, portfolios, early)
            against = [(question, flat)]
            if translation is not None and translation.question and (query := free_text(translation.question)) is not None:
                # The translated question as free text: its hits join G, and it is reranked against
                # (its BM25 over the collection's language is a signal the question itself lacks).
                translated = self._flat_bm25(translation.question)
                results.append(QueryResult("G", to_text(query), translated[: self.cfg.top_k_per_query]))
                against.append((translation.question, translated))
        with recorder.stage("pool"):
            pool = self.pooler.run(results)
        top_n = top_n or self.top_n
        with recorder.stage("rerank"):
            ranked = self._rerank(against, pool, top_n)
        result = MPRResult(question, analysis, portfolios, results, pool, ranked, self.reranker.name, translation)
        if self.rounds > 1 and not self.flat:
            if self.cfg.bridge == "names":
                if follows_a_name(result.in_collection_language):
                    self._names_round(result, top_n, recorder)
                else:
                    result.stopped = "the question names nothing to follow: one round"
            elif self.gaps is not None:
                self._more_rounds(result, against, top_n, recorder)
        result.errors = [f"{r.query}: {r.error}" for r in result.results if r.error]
        return result

    # -- later rounds ----------------------------------------------------------------------

    def _names_round(self, result: MPRResult, top_n: int, recorder: StageRecorder) -> None:
        """Round 2 by the names the best passages mention (``retrieve.bridge = names``)."""
        with recorder.stage("round2"):
            ranked = [c.doc_id for c in result.ranked]
            found: dict[str, QueryResult] = {}

            def search(text: str) -> list[tuple[str, float]]:
                query = free_text(text)
                hits = [] if query is None else self.index.search(query, k=KEEP_AHEAD + 1)
                found[text] = QueryResult("N", text, hits, round=2)
                return [(h.doc_id, float(h.score)) for h in hits]

            # A question in another language than the collection's is followed in its translation:
            # the passages' names are written in theirs.
            asked = result.in_collection_language
            bridges = find_bridges(asked, ranked, self._passage_text, search)
            names = [b.name for b in bridges]
            queries = []
            for b in bridges:
                hit = next(h for h in found[f"{b.name} {asked}"].hits if h.doc_id == b.doc_id)
                queries.append(QueryResult("N", f"{b.name} {asked}", [hit], round=2, sub_question=b.name))
            known = {doc_id for c in result.pool for doc_id in (c.doc_id, *c.merged_ids)}
            result.results.extend(queries)
            result.pool = self.pooler.run(result.results)
            # Pooling builds new candidates: the ranked ones keep their scores. A duplicate of a
            # pooled passage was merged into it: a bridge hit on it is the pooled one.
            by_id = {doc_id: c for c in result.pool for doc_id in (c.doc_id, *c.merged_ids)}
            for old in result.ranked:
                if old.doc_id in by_id:
                    by_id[old.doc_id].score, by_id[old.doc_id].signals = old.score, old.signals
            step = Round(2, ranked[:READ_PASSAGES], Gap(False, "; ".join(names[:3]), "", "names in the best passages",
                                                         tuple(names)), queries=queries, by="names")
            step.new = [c for c in result.pool if c.doc_id not in known]
            result.rounds.append(step)
            # Each pooled passage once, as the first (best) bridge that reached it.
            placed: list[Bridge] = []
            for b in bridges:
                pooled = by_id[b.doc_id].doc_id if b.doc_id in by_id else None
                if pooled is not None and pooled not in {p.doc_id for p in placed}:
                    placed.append(replace(b, doc_id=pooled))
            order = with_bridges(ranked, placed)
            moved = [b for b in placed if b.doc_id not in ranked[:KEEP_AHEAD]]
            # Scores between the last passage kept ahead and the next of round 1, so that an order
            # by score (the metrics', the sources' cut) is the order placed here.
            above = result.ranked[min(KEEP_AHEAD, len(result.ranked)) - 1].score if result.ranked else 0.0
            moved_ids = {b.doc_id for b in moved}
            below = next((c.score for c in result.ranked[KEEP_AHEAD:] if c.doc_id not in moved_ids), above - 1.0)
            for i, b in enumerate(moved, start=1):
                candidate = by_id[b.doc_id]
                candidate.score = above - (above - below) * i / (len(moved) + 1)
                candidate.signals = {**candidate.signals, "bridge": b.score}
            result.ranked = [by_id[d] for d in order][:top_n]
        result.stopped = "one round of names" if bridges else "round 2 found no names to search"

    def _passage_text(self, doc_id: str) -> str:
        doc = self.index.get(doc_id)
        return "" if doc is None else "\n".join(part for part in (doc.title, doc.abstract, doc.text) if part)

    def _glimpse(self, candidate: Candidate) -> Glimpse:
        doc = self.index.get(candidate.doc_id)
        text = "" if doc is None else (doc.abstract or doc.text)
        return Glimpse(candidate.doc_id, candidate.title, opening(text, self.cfg.round_passage_chars))

    def _round_search(self, number: int, gap: Gap, searched: list[str]) -> tuple[list[QueryResult], list[Hit]]:
        """The searches of round ``number``: Q/S from the gap's new names, B and D on its sub-question."""
        portfolios = self.builder.run(round_analysis(gap, searched), None, _NO_G_LATER)
        with ThreadPoolExecutor(max_workers=2) as side:
            early = _Early(side.submit(self._flat_bm25, gap.sub_question), side.submit(self._dense_hits, gap.sub_question))
            found, flat = self._search_all(gap.sub_question, portfolios, early)
        return [replace(r, round=number, sub_question=gap.sub_question) for r in found], flat

    def _more_rounds(self, result: MPRResult, against: list[tuple[str, list[Hit]]], top_n: int, recorder: StageRecorder) -> None:
        """Rounds 2.. on ``result`` (its results, pool and ranking grow); ``against``: texts to rerank for."""
        assert self.gaps is not None
        for number in range(2, self.rounds + 1):
            with recorder.stage("gap"):  # one stage per call; their seconds add up under "gap"
                shown = [self._glimpse(c) for c in result.ranked[: self.cfg.round_passages]]
                searched = [text for text, _ in against]
                gap, problem = self.gaps.run(result.question, shown, searched)
            step = Round(number, [g.doc_id for g in shown], gap, problem)
            result.rounds.append(step)
            if gap is None or gap.enough:
                result.stopped = problem or f"enough after round {number - 1}"
                return
            with recorder.stage(f"round{number}"):
                step.queries, flat = self._round_search(number, gap, searched)
                result.results.extend(step.queries)
                known = {doc_id for c in result.pool for doc_id in (c.doc_id, *c.merged_ids)}
                result.pool = self.pooler.run(result.results)
                step.new = [c for c in result.pool if c.doc_id not in known]
                # Passages already pooled may answer the sub-question: rerank even when nothing is new.
                against.append((gap.sub_question, flat))
                result.ranked = self._rerank(against, result.pool, top_n)
            if not step.new:
                result.stopped = f"round {number} found no new passages"
                return
        result.stopped = f"round limit ({self.rounds})"

    # -- public ------------------------------------------------------------------------------

    def run(self, question: str, top_n: int | None = None, flat: list[Hit] | None = None,
            recorder: StageRecorder | None = None) -> MPRResult:
        """Retrieve and rank candidates for ``question``; keep ``top_n`` (default ``rerank.top_n``).

        The flat question's BM25 and its nearest passages by embedding need no keywords, so
        they run while the model analyses the question; ``flat``: the flat hits, when the
        caller already has them (from :meth:`flat_hits`). Each step (analyze, translate,
        search, pool, rerank, gap, round2 ...) is a stage of ``recorder`` (default: a new one);
        the result's ``timings`` and ``llm`` are this run's stages'.
        """
        recorder = recorder if recorder is not None else StageRecorder()
        first = len(recorder.stages)
        with ThreadPoolExecutor(max_workers=2) as side:
            early = _Early(
                side.submit(lambda: flat) if flat is not None else side.submit(self._flat_bm25, question),
                side.submit(self._dense_hits, question),
            )
            if self.flat:
                analysis = Analysis([], [], detect_language(question), "fallback", _FLAT_REASON)
                translation, g_reason = None, _FLAT_REASON
            else:
                with recorder.stage("analyze"):
                    analysis = self.analyzer.run(question)
                with recorder.stage("translate"):
                    translation, g_reason = self._translate(question, analysis)
            result = self._after_analysis(question, analysis, translation, g_reason, recorder, top_n, early)
        mine = StageRecorder(recorder.stages[first:])
        result.timings = mine.seconds()
        result.llm = mine.usage()["stages"]
        return result

    def flat_hits(self, question: str) -> list[Hit]:
        """The flat question's BM25 hits (milliseconds): what can be shown before the analysis is done."""
        return self._flat_bm25(question)

    def close(self) -> None:
        """Release the reranker's and portfolio D's files (their vector stores); the retriever is unusable after."""
        release(self.reranker)
        if self.dense is not None:
            release(self.dense)


def create_retriever(
    settings: Settings,
    index: LexicalIndex | None = None,
    llm: LLM | None = None,
    reranker: Reranker | None = None,
) -> MultiPortfolioRetriever:
    """An MPR stage for the collection in ``settings.home``, with the configured LLM and reranker.

    ``llm.backend = none`` means the statistical analysis and no G portfolio.
    """
    from navicite import index as index_package
    from navicite import llm as llm_package
    from navicite import rerank

    if llm is None and settings.llm.backend != "none":
        llm = llm_package.create(settings)
    return MultiPortfolioRetriever(
        index if index is not None else index_package.create(settings),
        llm,
        reranker if reranker is not None else rerank.create(settings),
        settings,
        collection_dense(settings),
    )


def collection_dense(settings: Settings) -> DenseSearch | None:
    """Portfolio D's searcher over the collection's stored document vectors; None without a vector store.

    Nothing is read here: the vectors are loaded by the first search, which finds no
    portfolio D when no document has a vector. The caller closes the searcher.
    """
    from navicite import embed
    from navicite.vectors import STORE_FILE, StoredDense, open_store

    if settings.retrieve.dense_portfolio and settings.index.backend == "opensearch":
        # The vectors live in the cluster, so every process in front of it finds the same passages.
        from navicite.index.opensearch_dense import ClusterDense

        return ClusterDense(settings, embed.create(settings))
    if not settings.retrieve.dense_portfolio or not (settings.home / STORE_FILE).is_file():
        return None
    return StoredDense(open_store(settings.home, settings.embed.model), embed.create(settings))
