"""Portfolio D in the cluster: k-NN search over published passage vectors, against exact search."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from navicite import embed
from navicite.config import load_settings
from navicite.index.dense import DenseIndex
from navicite.index.opensearch_dense import ClusterDense

TEXTS = {
    "kinase": "Kinase inhibitors slow the growth of tumours in mice.",
    "heart": "Beta blockers reduce mortality in chronic heart failure.",
    "liver": "The liver clears most drugs from the blood.",
    "diet": "A high-fat diet raised body weight and liver fat in mice.",
    "sleep": "Short sleep is linked to poor memory in students.",
    "rain": "Heavy rain flooded the valley roads last spring.",
    "chess": "The chess engine searched twenty moves ahead.",
    "bread": "Sourdough bread rises slowly because of wild yeast.",
}
QUESTIONS = ["Which drugs help heart failure patients?", "What does fat in food do to mice?", "How is bread made?"]


def test_knn_in_the_cluster_finds_what_exact_search_finds(opensearch: Any, tmp_path: Path) -> None:
    settings = load_settings(tmp_path, opensearch.overrides)
    embedder = embed.create(settings)
    ids = list(TEXTS)
    vectors = np.asarray(embedder.embed([TEXTS[i] for i in ids]), dtype=np.float32)
    dense = ClusterDense(settings, embedder)
    opensearch.made.append(dense.name)
    assert dense.search(QUESTIONS[0], 3) is None  # nothing published yet: no portfolio D
    assert dense.publish(ids, vectors) == len(ids) and len(dense) == len(ids)
    exact = DenseIndex(ids, vectors)
    for question in QUESTIONS:
        expected = exact.search(embedder.embed([question], query=True)[0], 3)
        found = dense.search(question, 3)
        assert found is not None
        assert [i for i, _ in found] == [i for i, _ in expected], question
        assert [c for _, c in found] == pytest.approx([c for _, c in expected], abs=1e-4)
    # Publishing again replaces the set: a removed passage is no longer found.
    assert dense.publish(ids[1:], vectors[1:]) == len(ids) - 1
    assert "kinase" not in [i for i, _ in dense.search("kinase inhibitors and tumours", 3) or []]


def test_mpr_takes_portfolio_d_from_the_cluster(opensearch: Any, tmp_path: Path) -> None:
    from navicite.retrieve.mpr import collection_dense

    searcher = collection_dense(load_settings(tmp_path, opensearch.overrides))
    assert isinstance(searcher, ClusterDense)
