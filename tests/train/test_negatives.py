"""Negative miners: embedding hits, fused hit lists, the shared sampling rule."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from navicite.train.corpora import Passage
from navicite.train.negatives import DenseMiner, FusedMiner, Miner

PASSAGES = [Passage(str(i), f"t{i}", f"text {i}") for i in range(6)]


class AxisEmbedder:
    """Passage i points along axis i; a query names the axes it leans to (a stand-in for the real model)."""

    name = "axes"

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        self.calls += 1
        rows = np.zeros((len(texts), 6), dtype=np.float32)
        for row, text in zip(rows, texts):
            for word in text.split():
                if word.isdigit():
                    row[int(word)] += 1.0
            if text.startswith("q"):
                row[[int(c) for c in text[1:]]] = np.linspace(3, 1, len(text) - 1)
        return rows


class FixedMiner(Miner):
    def __init__(self, order: list[int]) -> None:
        super().__init__(depth=4)
        self.order = order

    def hits(self, query: str, k: int) -> list[Passage]:
        return [PASSAGES[i] for i in self.order[:k]]


def test_dense_miner_ranks_by_cosine_and_caches_the_corpus(tmp_path: Path) -> None:
    embedder = AxisEmbedder()
    miner = DenseMiner(PASSAGES, embedder, cache_dir=tmp_path)
    assert [p.pid for p in miner.hits("q253", 3)] == ["2", "5", "3"]
    DenseMiner(PASSAGES, embedder, cache_dir=tmp_path)
    assert embedder.calls == 2  # the corpus once, the query once: the second miner read the cache


def test_fused_miner_interleaves_without_duplicates() -> None:
    fused = FusedMiner([FixedMiner([0, 1, 2]), FixedMiner([1, 3, 4])])
    assert [p.pid for p in fused.hits("q", 5)] == ["0", "1", "3", "2", "4"]
    negatives = fused.negatives("q", {"1"}, 3, random.Random(2))
    assert len(negatives) == 3 and "1" not in {p.pid for p in negatives}
