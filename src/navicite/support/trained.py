"""The trained support judge: a cross-encoder that reads a claim against a passage's sentence windows.

The network (MiniLM-L6 fine-tuned here on pairs made from real documents, then on the labelled
set's tuning part: ``bench/support_judge_train.py``; its card is ``weights/MODEL_CARD.md``) reads a
claim with one window of one to three consecutive sentences of a passage under its title, the way
it was trained (:func:`navicite.train.support_pairs.windows` cuts both). A passage's probability is
its best window's; several passages read together also get the pair of their best windows
joined. It runs on ONNX Runtime (int8), no torch, and ships as its difference from the MiniLM
weights the embedder installs (:mod:`navicite.rerank.delta`), rebuilt once into the cache.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from navicite.rerank.delta import delta_sha256, rebuild
from navicite.rerank.onnx import OnnxCrossEncoder, copy_runtime_files, is_exported
from navicite.support.base import Passage, Verdict
from navicite.text.windows import premise_text, windows
from navicite.text.sentences import split_sentences

#: The shipped judge: tokenizer, model card, training record and the int8 network as a delta over MiniLM.
SHIPPED = Path(__file__).parent / "weights"
DELTA_FILE = "model_int8.delta"
#: Tokens per (claim, window) pair, as trained.
MAX_LENGTH = 160


def shipped_network(cache_dir: Path) -> Path:
    """The shipped judge's folder, its int8 network rebuilt from the delta into ``cache_dir`` on first use."""
    delta = SHIPPED / DELTA_FILE
    target = cache_dir / "support-onnx" / f"judge-{delta_sha256(delta)[:16]}"
    if not is_exported(target, "int8"):
        copy_runtime_files(SHIPPED, target, "int8")
        rebuild(delta, target / "model_int8.onnx")
    return target


def available() -> bool:
    """Whether this install ships the trained judge's weights."""
    return (SHIPPED / DELTA_FILE).is_file() and (SHIPPED / "tokenizer.json").is_file()


class TrainedJudge:
    """A :class:`~navicite.support.base.SupportJudge` over a cross-encoder folder (exported int8).

    ``threshold``: the probability from which a claim is supported (the calibrated accept point).
    """

    name = "trained"

    def __init__(self, folder: Path, threshold: float = 0.5, threads: int = 1, max_length: int = MAX_LENGTH) -> None:
        self.scorer = OnnxCrossEncoder(folder, "int8", threads=threads)
        self.threshold = threshold
        self.max_length = max_length
        self._lock = threading.Lock()

    def probability(self, premises: Sequence[Passage], claim: str) -> float:
        """The chance that ``premises`` (read together) support all of ``claim``: the best window's."""
        return self.best_window(premises, claim)[0]

    def best_window(self, premises: Sequence[Passage], claim: str) -> tuple[float, str]:
        """:meth:`probability` and the text it was read from (a window, or two sources' best windows joined)."""
        claim = " ".join(claim.split())
        texts: list[str] = []
        owner: list[int] = []
        for k, passage in enumerate(premises):
            sentences = split_sentences(passage.text) or [passage.text]
            for start, end in windows(sentences):
                texts.append(premise_text(passage.title, " ".join(sentences[start:end])))
                owner.append(k)
        if not claim or not texts:
            return 0.0, ""
        with self._lock:
            logits = self.scorer.score(claim, texts, self.max_length, 16)
        at = int(np.argmax(logits))
        best, text = float(logits[at]), texts[at]
        if len(set(owner)) > 1:
            # Two sources read together: the best window of each, one after the other.
            tops = []
            for k in sorted(set(owner)):
                mine = [i for i, o in enumerate(owner) if o == k]
                tops.append(texts[mine[int(np.argmax(logits[mine]))]])
            joined = "\n\n".join(tops[:2])
            with self._lock:
                together = float(self.scorer.score(claim, [joined], self.max_length * 2, 1)[0])
            if together > best:
                best, text = together, joined
        return 1.0 / (1.0 + math.exp(-best)), text

    def entails(self, premises: Sequence[Passage], claim: str, given: Sequence[str] = ()) -> Verdict:
        p = self.probability([q for q in premises if q.text.strip()], claim)
        return Verdict(p >= self.threshold, p, self.name)
