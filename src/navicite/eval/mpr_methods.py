"""MPR and its comparison methods for ``navicite eval retrieval``.

- ``mpr``: the pool, ordered by reciprocal rank fusion over portfolios (no reranker);
- ``mpr-rerank``: the pool through the configured reranker (``rerank.backend``);
- ``mpr-fallback`` / ``mpr-rerank-fallback``: the same with the statistical analysis (no LLM);
- ``bm25-rerank``: flat BM25 top 100 through the same reranker;
- ``hybrid``: flat BM25 top 100 and dense top 100, fused by the hybrid scorer, no portfolios.

Each method embeds a question once: portfolio D (or
the flat dense search) and the hybrid scorer share one :class:`RememberingEmbedder`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from navicite.embed import Embedder, RememberingEmbedder, reads
from navicite.eval.datasets import EvalQuestion
from navicite.eval.methods import MethodFactory, MethodResult, Trace, restrict
from navicite.eval.resources import EvalResources
from navicite.index.parse import free_text
from navicite.rerank import Reranker, RerankItem, release
from navicite.rerank.base import candidate_text
from navicite.retrieve.mpr import MultiPortfolioRetriever
from navicite.stages import StageRecorder

#: Flat candidates handed to the reranker by ``bm25-rerank`` and ``hybrid``.
FLAT_DEPTH = 100


def _vectors(resources: EvalResources) -> Mapping[str, np.ndarray]:
    """The corpus embeddings the evaluation already computed, by id (so rerankers need not re-embed)."""
    dense = resources.dense
    return dict(zip(dense.ids, dense.vectors))


def _reranker(resources: EvalResources, backend: str | None, embedder: Embedder) -> Reranker:
    from navicite import rerank

    settings = resources.settings
    if backend is not None:
        settings = settings.model_copy(update={"rerank": settings.rerank.model_copy(update={"backend": backend})})
    name = settings.rerank.backend
    # hybrid, and the hybrid first stage of navicite and llm, reuse the corpus embeddings.
    known = _vectors(resources) if name in rerank.EMBEDDING_BACKENDS else None
    return rerank.create(settings, known_vectors=known, llm=resources.llm if name == "llm" else None, embedder=embedder)


class _CorpusDense:
    """Portfolio D over the evaluation corpus's embeddings (built once by the harness)."""

    def __init__(self, resources: EvalResources, embedder: Embedder) -> None:
        self.resources = resources
        self.embedder = embedder

    def search(self, question: str, k: int) -> list[tuple[str, float]] | None:
        if not reads(self.embedder, question):
            return None  # as the collection's StoredDense: no portfolio D for a language the model does not read
        vector = self.embedder.embed([question], query=True)[0]
        return self.resources.dense.search(vector, k)


class MPRMethod:
    """Runs :class:`MultiPortfolioRetriever` per question; ``rounds``, when given, replaces ``retrieve.rounds``."""

    def __init__(
        self, resources: EvalResources, name: str, rerank_backend: str, use_llm: bool, analysis: str | None = "llm",
        rounds: int | None = None,
    ) -> None:
        self.name = name
        self.resources = resources
        llm = resources.llm if use_llm and resources.settings.llm.backend != "none" else None
        settings = resources.settings
        retrieve: dict[str, object] = {} if rounds is None else {"rounds": rounds}
        if use_llm and analysis is not None:  # the method's name says who analyses, whatever the backend's default
            retrieve["analysis"] = analysis
        if retrieve:
            settings = settings.model_copy(update={"retrieve": settings.retrieve.model_copy(update=retrieve)})
        questions = RememberingEmbedder(resources.embedder)
        dense = None
        if resources.settings.retrieve.dense_portfolio:
            _ = resources.dense  # built here, once, not by the first concurrent searches
            dense = _CorpusDense(resources, questions)
        self.retriever = MultiPortfolioRetriever(
            resources.lexical, llm, _reranker(resources, rerank_backend, questions), settings, dense
        )

    def run(self, question: EvalQuestion, k: int) -> MethodResult:
        recorder = StageRecorder()
        result = self.retriever.run(question.text, top_n=max(k, len(question.candidates)), recorder=recorder)
        ranking = [(c.doc_id, float(c.score)) for c in result.ranked]
        return MethodResult(restrict(ranking, question.candidates, k), Trace.of(recorder))

    def close(self) -> None:
        """Release the reranker's vector store."""
        self.retriever.close()


class FlatRerankMethod:
    """Flat BM25 (and, for ``hybrid``, dense) candidates through a reranker."""

    def __init__(self, resources: EvalResources, name: str, rerank_backend: str | None, with_dense: bool) -> None:
        self.name = name
        self.resources = resources
        self.with_dense = with_dense
        self.embedder = RememberingEmbedder(resources.embedder)
        self.reranker = _reranker(resources, rerank_backend, self.embedder)

    def _candidates(self, question: EvalQuestion, recorder: StageRecorder) -> list[RerankItem]:
        index = self.resources.lexical
        query = free_text(question.text)
        with recorder.stage("search"):
            hits = index.search(query, k=FLAT_DEPTH) if query is not None else []
            ids = {h.doc_id: {"bm25": float(h.score)} for h in hits}
            if self.with_dense and reads(self.embedder, question.text):
                vector = self.embedder.embed([question.text], query=True)[0]
                for doc_id, _cosine in self.resources.dense.search(vector, FLAT_DEPTH):
                    ids.setdefault(doc_id, {})
        items = []
        for doc_id, signals in ids.items():
            doc = index.get(doc_id)
            text = "" if doc is None else candidate_text(doc)
            items.append(RerankItem(doc_id, text, signals))
        return items

    def run(self, question: EvalQuestion, k: int) -> MethodResult:
        recorder = StageRecorder()
        items = self._candidates(question, recorder)
        with recorder.stage("rerank"):
            scored = self.reranker.rerank(question.text, items, max(k, len(items)))
        return MethodResult(restrict([(s.doc_id, s.score) for s in scored], question.candidates, k), Trace.of(recorder))

    def close(self) -> None:
        """Release the reranker's vector store."""
        release(self.reranker)


#: The MPR methods and their comparisons, by name (served by :mod:`navicite.eval.registry`).
METHODS: dict[str, MethodFactory] = {
    "mpr": lambda r: MPRMethod(r, "mpr", "none", use_llm=True),
    "mpr-rerank": lambda r: MPRMethod(r, "mpr-rerank", r.settings.rerank.backend, use_llm=True),
    "mpr-fallback": lambda r: MPRMethod(r, "mpr-fallback", "none", use_llm=False),
    "mpr-rerank-fallback": lambda r: MPRMethod(r, "mpr-rerank-fallback", r.settings.rerank.backend, use_llm=False),
    # What `navicite ask` retrieves with: the settings' analysis (statistical with the embedded model) and the LLM for G.
    "mpr-ask": lambda r: MPRMethod(r, "mpr-ask", r.settings.rerank.backend, use_llm=True, analysis=None),
    "bm25-rerank": lambda r: FlatRerankMethod(r, "bm25-rerank", None, with_dense=False),
    "hybrid": lambda r: FlatRerankMethod(r, "hybrid", "hybrid", with_dense=True),
}
