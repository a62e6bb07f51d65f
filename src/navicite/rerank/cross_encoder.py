"""A sentence-transformers CrossEncoder from a local path or a hub id (e.g. BAAI/bge-reranker-v2-m3)."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from navicite.errors import ConfigError
from navicite.rerank.base import RerankItem, Scored, top


class CrossEncoderReranker:
    """Scores each (question, text) pair jointly; loaded on first use.

    Args:
        model: a folder saved by sentence-transformers, or a hub id (downloaded on first use).
        max_length: tokens per pair; longer texts are cut by the model's tokenizer.
        batch_size: pairs per forward pass.
    """

    name = "cross-encoder"

    def __init__(self, model: str, max_length: int = 256, batch_size: int = 16, device: str = "cpu") -> None:
        self.model_name = model
        self.max_length = max_length
        self.batch_size = batch_size
        self.device = device
        self._model = None
        self._lock = threading.Lock()

    def _load(self):  # noqa: ANN202 -- the model type belongs to sentence-transformers
        with self._lock:
            if self._model is None:
                if Path(self.model_name).expanduser().is_dir():
                    # A local copy must never trigger a hub lookup.
                    os.environ.setdefault("HF_HUB_OFFLINE", "1")
                try:
                    from sentence_transformers import CrossEncoder

                    self._model = CrossEncoder(self.model_name, max_length=self.max_length, device=self.device)
                except Exception as exc:  # every load failure has the same remedy
                    raise ConfigError(
                        f"cannot load cross-encoder {self.model_name!r} ({exc}); set rerank.model to a local "
                        "sentence-transformers CrossEncoder folder or a hub id, or use rerank.backend=hybrid"
                    ) from exc
        return self._model

    def rerank(self, question: str, items: Sequence[RerankItem], top_n: int) -> list[Scored]:
        if not items:
            return []
        model = self._load()
        raw = model.predict(
            [(question, it.text) for it in items], batch_size=self.batch_size, show_progress_bar=False, convert_to_numpy=True
        )
        scores = np.asarray(raw, dtype=np.float64).reshape(len(items), -1)
        # A two-label model (not relevant / relevant) scores by its last column.
        column = scores[:, -1]
        signals = [{**dict(it.signals), "cross_encoder": float(column[i])} for i, it in enumerate(items)]
        return top([it.doc_id for it in items], column, signals, top_n)
