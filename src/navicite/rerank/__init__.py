"""Re-ranking of pooled candidates behind one protocol; ``create(settings)`` picks the backend.

Backends: ``none`` (keep the pool's fused order), ``hybrid`` (offline default:
embedding cosine + BM25 + portfolio agreement) and ``cross-encoder`` (any
sentence-transformers CrossEncoder, from ``rerank.model``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from navicite.config import Settings
from navicite.errors import ConfigError
from navicite.rerank.base import Reranker, RerankItem, Scored

__all__ = ["Reranker", "RerankItem", "Scored", "create", "register_backend"]

BackendFactory = Callable[..., Reranker]
_BACKENDS: dict[str, BackendFactory] = {}


def register_backend(name: str, factory: BackendFactory) -> None:
    """Add a backend: ``factory(settings, known_vectors=...)`` returns a :class:`Reranker`."""
    _BACKENDS[name] = factory


def _none(settings: Settings, known_vectors: Mapping[str, np.ndarray] | None = None) -> Reranker:
    from navicite.rerank.fusion import FusionReranker

    return FusionReranker()


def _hybrid(settings: Settings, known_vectors: Mapping[str, np.ndarray] | None = None) -> Reranker:
    from navicite import embed
    from navicite.rerank.hybrid import HybridReranker

    cfg = settings.rerank
    weights = {"dense": cfg.dense_weight, "bm25": cfg.bm25_weight, "agreement": cfg.agreement_weight}
    return HybridReranker(embed.create(settings), weights, known_vectors)


def _cross_encoder(settings: Settings, known_vectors: Mapping[str, np.ndarray] | None = None) -> Reranker:
    from navicite.rerank.cross_encoder import CrossEncoderReranker

    cfg = settings.rerank
    if not cfg.model:
        raise ConfigError(
            "rerank.backend=cross-encoder needs rerank.model (a local CrossEncoder folder or a hub id "
            "such as BAAI/bge-reranker-v2-m3)"
        )
    return CrossEncoderReranker(cfg.model, max_length=cfg.max_length, batch_size=cfg.batch_size, device=settings.embed.device)


register_backend("none", _none)
register_backend("hybrid", _hybrid)
register_backend("cross-encoder", _cross_encoder)


def create(settings: Settings, known_vectors: Mapping[str, np.ndarray] | None = None) -> Reranker:
    """The reranker ``rerank.backend`` names.

    Args:
        known_vectors: precomputed passage embeddings by document id, reused by ``hybrid``.

    Raises:
        ConfigError: the backend is unknown here or misconfigured.
    """
    name = settings.rerank.backend
    factory = _BACKENDS.get(name)
    if factory is None:
        raise ConfigError(f"rerank.backend={name!r} is not available; choose one of {', '.join(sorted(_BACKENDS))}")
    return factory(settings, known_vectors=known_vectors)
