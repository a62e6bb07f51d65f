"""The ``navicite`` backend: navicite's own cross-encoder on the head of the hybrid order.

A MiniLM-sized cross-encoder cannot read 270 pairs of 256 tokens in 2 s on two CPU
cores (about 6 s in int8, docs/models.md), so it runs as a cascade: the hybrid
scorer (cheap when passage vectors are stored) orders every candidate, the
cross-encoder reads only the first ``depth`` of that order at ``max_length``
tokens, and each of those gets ``weight * CE + (1 - weight) * hybrid`` (both
min-max scaled over the head). The head stays above the tail; the tail keeps its
hybrid order. The cost is therefore fixed by ``depth``, not by the pool size.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from navicite.errors import ConfigError
from navicite.rerank.base import HeadReranker, Reranker, Scored, min_max, top
from navicite.rerank.delta import delta_sha256, rebuild
from navicite.rerank.onnx import (
    OnnxCrossEncoder,
    copy_runtime_files,
    export_onnx,
    is_exported,
    variant_file,
)

#: Where the shipped model lives (package data, filled by the release from ``navicite rerank train``):
#: its tokenizer, model card and training record, and the network as a delta over MiniLM.
SHIPPED_WEIGHTS = Path(__file__).parent / "weights"
#: The shipped int8 network, as what training changed over MiniLM (see :mod:`navicite.rerank.delta`).
DELTA_FILE = "model_int8.delta"


def shipped_network(cache_dir: Path) -> Path:
    """The shipped int8 cross-encoder, rebuilt from its delta into ``cache_dir`` on first use."""
    delta = SHIPPED_WEIGHTS / DELTA_FILE
    target = cache_dir / "rerank-onnx" / f"shipped-{delta_sha256(delta)[:16]}"
    if not is_exported(target, "int8"):
        copy_runtime_files(SHIPPED_WEIGHTS, target, "int8")
        rebuild(delta, target / variant_file("int8"))
    return target


def resolve_weights(model: str | None, variant: str, cache_dir: Path) -> Path:
    """The exported folder to run for ``rerank.model`` (``None``: the shipped weights).

    A folder already exported (see :func:`~navicite.rerank.onnx.export_onnx`) is used as
    it is; a Hugging Face cross-encoder folder is exported once into ``cache_dir``.

    Raises:
        ConfigError: no usable model there, with what to do about it.
    """
    folder = SHIPPED_WEIGHTS if model is None else Path(model).expanduser()
    if is_exported(folder, variant):
        return folder
    if model is None and variant == "int8" and (SHIPPED_WEIGHTS / DELTA_FILE).is_file():
        return shipped_network(cache_dir)
    if (folder / "config.json").is_file() and (any(folder.glob("*.safetensors")) or any(folder.glob("*.bin"))):
        stamp = max(p.stat().st_mtime_ns for p in folder.iterdir())
        key = hashlib.sha256(f"{folder.resolve()}:{stamp}".encode()).hexdigest()[:16]
        target = cache_dir / "rerank-onnx" / key
        if not is_exported(target, variant):
            export_onnx(folder, target, quantize=variant == "int8")
        return target
    where = "the shipped weights folder " + str(folder) if model is None else f"rerank.model={model!r}"
    raise ConfigError(
        f"rerank.backend=navicite finds no cross-encoder in {where} (needs {variant_file(variant)} and tokenizer.json, "
        "or a Hugging Face cross-encoder folder to export). Train one with `navicite rerank train --out DIR` and set "
        "rerank.model=DIR, or choose rerank.backend=hybrid."
    )


def scifact_claims_held_out(folders: Sequence[Path | str | None]) -> int | None:
    """How many SciFact train claims a trained model left unseen, from the first ``train_info.json`` found.

    ``None`` (the shipped weights) stands for :data:`SHIPPED_WEIGHTS`. Claims past
    that number were training data: scoring the model on them would report a leak.
    """
    for folder in folders:
        info = (SHIPPED_WEIGHTS if folder is None else Path(folder).expanduser()) / "train_info.json"
        if info.is_file():
            try:
                held = json.loads(info.read_text(encoding="utf-8")).get("data", {}).get("scifact_eval_claims")
            except (OSError, ValueError):
                continue
            return held if isinstance(held, int) else None
    return None


class CascadeReranker(HeadReranker):
    """Prior order for all candidates, cross-encoder scores fused in for the first ``depth``.

    Args:
        prior: orders every candidate cheaply (the hybrid scorer).
        scorer: the cross-encoder.
        depth: candidates of the prior order the cross-encoder reads.
        weight: share of the cross-encoder in the fused head score (0 = prior only, 1 = CE only).
        max_length: tokens per pair.
        batch_size: pairs per forward pass.
    """

    name = "navicite"

    def __init__(
        self, prior: Reranker, scorer: OnnxCrossEncoder, depth: int = 20, weight: float = 0.5,
        max_length: int = 128, batch_size: int = 16,
    ) -> None:
        super().__init__(prior, depth)
        self.scorer = scorer
        self.weight = weight
        self.max_length = max_length
        self.batch_size = batch_size
        self._lock = threading.Lock()

    def rescore(self, question: str, ordered: list[Scored], head_texts: list[str], top_n: int) -> list[Scored]:
        # ONNX Runtime sessions are thread-safe, but two concurrent calls would each ask for all cores.
        with self._lock:
            logits = self.scorer.score(question, head_texts, self.max_length, self.batch_size)
        return fuse(ordered, logits, self.weight, top_n)


def fuse(ordered: Sequence[Scored], logits: np.ndarray, weight: float, top_n: int) -> list[Scored]:
    """The cascade's final order: ``ordered`` (the prior, best first) with ``logits`` for its first ``len(logits)``.

    Each head candidate gets ``weight * CE + (1 - weight) * prior``, both min-max scaled
    over the head; the tail keeps the prior order below the head.
    """
    prior_scores = np.array([s.score for s in ordered], dtype=np.float64)
    depth = len(logits)
    fused = weight * min_max(np.asarray(logits, dtype=np.float64)) + (1.0 - weight) * min_max(prior_scores[:depth])
    # Head scores live in [1, 2], the tail's scaled prior in [0, 1]: the head stays on top.
    final = min_max(prior_scores)
    final[:depth] = 1.0 + fused
    signals = []
    for i, s in enumerate(ordered):
        row = {**s.signals, "hybrid": s.score}
        if i < depth:
            row["navicite"] = float(logits[i])
        signals.append(row)
    return top([s.doc_id for s in ordered], final, signals, top_n)
