"""Re-ranking of pooled candidates behind one protocol; ``create(settings)`` picks the backend.

Backends: ``none`` (keep the pool's fused order), ``hybrid`` (offline default:
embedding cosine + BM25 + portfolio agreement), ``cross-encoder`` (any
sentence-transformers CrossEncoder, from ``rerank.model``), ``navicite`` (navicite's
own ONNX cross-encoder over the head of the hybrid order) and ``llm`` (the chat
model grades the head of the hybrid order).

A reranker that holds the collection's vector store open is closed with
:func:`release` by whoever created it (the engine, the evaluation methods).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import numpy as np

from navicite.config import Settings
from navicite.errors import ConfigError, IndexStoreError
from navicite.llm.base import LLM
from navicite.rerank.base import Reranker, RerankItem, Scored, release
from navicite.vectors import VectorStore, open_store

if TYPE_CHECKING:
    from navicite.embed import Embedder

__all__ = ["RerankItem", "Reranker", "Scored", "backends", "check_backend", "create", "register_backend", "release"]

BackendFactory = Callable[..., Reranker]
_BACKENDS: dict[str, BackendFactory] = {}


def register_backend(name: str, factory: BackendFactory) -> None:
    """Add a backend, usable as ``rerank.backend=<name>``: ``factory(settings, known_vectors=...)`` returns a :class:`Reranker`."""
    _BACKENDS[name] = factory


def backends() -> list[str]:
    """Names of the registered backends (the values ``rerank.backend`` takes)."""
    return sorted(_BACKENDS)


def check_backend(name: str) -> None:
    """Raise :class:`ConfigError` listing the registered backends unless ``name`` is one of them."""
    if name not in _BACKENDS:
        raise ConfigError(f"rerank.backend={name!r} is not available; choose one of {', '.join(backends())}")


def _none(settings: Settings, known_vectors: Mapping[str, np.ndarray] | None = None) -> Reranker:
    from navicite.rerank.fusion import FusionReranker

    return FusionReranker()


def _hybrid(
    settings: Settings, known_vectors: Mapping[str, np.ndarray] | None = None, embedder: Embedder | None = None
) -> Reranker:
    from navicite import embed
    from navicite.rerank.hybrid import HybridReranker

    cfg = settings.rerank
    weights = {"dense": cfg.hybrid.dense_weight, "bm25": cfg.hybrid.bm25_weight, "agreement": cfg.hybrid.agreement_weight}
    return HybridReranker(embedder or embed.create(settings), weights, known_vectors, collection_vectors(settings))


def collection_vectors(settings: Settings) -> VectorStore | None:
    """The collection's stored passage vectors (the caller closes them), or None where the data directory cannot hold them."""
    if not settings.home.is_dir():
        return None  # no collection here: do not create a data directory as a side effect
    try:
        return open_store(settings.home, settings.embed.model)
    except IndexStoreError:
        return None  # a read-only data directory still re-ranks, embedding as it goes


def _cross_encoder(settings: Settings, known_vectors: Mapping[str, np.ndarray] | None = None) -> Reranker:
    from navicite.rerank.cross_encoder import CrossEncoderReranker

    cfg = settings.rerank
    if not cfg.model:
        raise ConfigError(
            "rerank.backend=cross-encoder needs rerank.model (a local CrossEncoder folder or a hub id "
            "such as BAAI/bge-reranker-v2-m3)"
        )
    return CrossEncoderReranker(cfg.model, max_length=cfg.max_length, batch_size=cfg.batch_size, device=settings.embed.device)


def _navicite(
    settings: Settings, known_vectors: Mapping[str, np.ndarray] | None = None, embedder: Embedder | None = None
) -> Reranker:
    from navicite.rerank.navicite_ce import CascadeReranker, resolve_weights
    from navicite.rerank.onnx import OnnxCrossEncoder

    cfg = settings.rerank
    folder = resolve_weights(cfg.model, cfg.navicite.onnx_variant, settings.cache_dir)
    scorer = OnnxCrossEncoder(folder, cfg.navicite.onnx_variant, threads=cfg.navicite.onnx_threads)
    return CascadeReranker(
        _hybrid(settings, known_vectors, embedder), scorer, depth=cfg.navicite.depth, weight=cfg.navicite.weight,
        max_length=cfg.navicite.max_length, batch_size=cfg.batch_size,
    )


def _llm(
    settings: Settings,
    known_vectors: Mapping[str, np.ndarray] | None = None,
    llm: LLM | None = None,
    embedder: Embedder | None = None,
) -> Reranker:
    from navicite import llm as llm_package
    from navicite.rerank.llm_judge import LLMJudgeReranker

    cfg = settings.rerank
    if llm is None:
        if settings.llm.backend == "none":
            raise ConfigError("rerank.backend=llm needs a chat model: set llm.backend (e.g. embedded), or use rerank.backend=hybrid")
        llm = llm_package.create(settings)
    return LLMJudgeReranker(
        _hybrid(settings, known_vectors, embedder), llm, depth=cfg.llm.depth, batch=cfg.llm.batch, passage_chars=cfg.llm.passage_chars
    )


#: Backends whose first stage is the hybrid scorer: they take ``embedder`` and ``known_vectors``.
EMBEDDING_BACKENDS = ("hybrid", "navicite", "llm")

register_backend("none", _none)
register_backend("hybrid", _hybrid)
register_backend("cross-encoder", _cross_encoder)
register_backend("navicite", _navicite)
register_backend("llm", _llm)


def create(
    settings: Settings,
    known_vectors: Mapping[str, np.ndarray] | None = None,
    llm: LLM | None = None,
    embedder: Embedder | None = None,
) -> Reranker:
    """The reranker ``rerank.backend`` names; close it with :func:`release` when done.

    Args:
        known_vectors: precomputed passage embeddings by document id, reused by the hybrid scorer
            (``hybrid``, and the first stage of ``navicite`` and ``llm``).
        llm: the chat model the ``llm`` backend should share (default: one built from the settings).
        embedder: the embedder the hybrid scorer should share (default: one built from the settings),
            e.g. one that remembers the question's vector for portfolio D.

    Raises:
        ConfigError: the backend is unknown here or misconfigured.
    """
    name = settings.rerank.backend
    check_backend(name)
    factory = _BACKENDS[name]
    # Only the llm backend takes a chat model, and only the hybrid family an embedder; other
    # factories (and those registered from outside) keep the two-argument form.
    extra: dict[str, object] = {"llm": llm} if llm is not None and name == "llm" else {}
    if embedder is not None and name in EMBEDDING_BACKENDS:
        extra["embedder"] = embedder
    return factory(settings, known_vectors=known_vectors, **extra)
