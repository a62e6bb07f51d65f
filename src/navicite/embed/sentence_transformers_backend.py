"""An embedder run by sentence-transformers (the ``train`` extra: it needs PyTorch).

The default embedder runs on ONNX Runtime (:mod:`navicite.embed.bert_onnx`); this one is
for models that are not BERT encoders with mean pooling, and is the reference the ONNX
encoder is checked against (``bench/embed_onnx_check.py``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from navicite.embed.base import SHIPPED_LANGUAGES, SHIPPED_MODEL, EmbedderUnavailable
from navicite.embed.models import is_shipped, model_folder


class SentenceTransformerEmbedder:
    """An embedder backed by sentence-transformers (loaded on first use)."""

    def __init__(
        self, model: str = SHIPPED_MODEL, batch_size: int = 64, device: str = "cpu", revision: str | None = None,
    ) -> None:
        self.name = model
        # Only the shipped model's languages are known; another model is trusted with any text.
        self.languages = SHIPPED_LANGUAGES if is_shipped(model) else None
        self.batch_size = batch_size
        self.device = device
        self.revision = revision
        self._model = None

    def _load(self):  # noqa: ANN202 -- the model type belongs to an optional dependency
        if self._model is None:
            folder = model_folder(self.name, self.revision)
            try:
                self._model = _load_model(str(folder), self.device)
            except ImportError as exc:
                raise EmbedderUnavailable(
                    f"embed.model={self.name!r} is not a BERT encoder navicite runs itself and needs sentence-transformers: "
                    "pip install 'navicite[train]'"
                ) from exc
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
def _load_model(location: str, device: str):  # noqa: ANN202
    """One loaded model per folder and device, shared by every embedder in the process."""
    # The folder is local: a load must never trigger a hub lookup (no network on many machines).
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # the weight-loading bar would clutter navicite's own output
    return SentenceTransformer(str(Path(location)), device=device)
