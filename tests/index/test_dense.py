"""Exact cosine search."""

from __future__ import annotations

import numpy as np
import pytest

from navicite.index.dense import DenseIndex


def _unit(rows: list[list[float]]) -> np.ndarray:
    array = np.array(rows, dtype=np.float32)
    return array / np.linalg.norm(array, axis=1, keepdims=True)


def test_search_matches_brute_force_order() -> None:
    rng = np.random.default_rng(0)
    vectors = _unit(rng.normal(size=(50, 8)).tolist())
    index = DenseIndex([f"d{i}" for i in range(50)], vectors)
    query = _unit([rng.normal(size=8).tolist()])[0]
    expected = np.argsort(-(vectors @ query))[:5]
    hits = index.search(query, 5)
    assert [h[0] for h in hits] == [f"d{i}" for i in expected]
    assert hits[0][1] == pytest.approx(float(vectors[expected[0]] @ query), abs=1e-6)


def test_within_restricts_and_ties_break_by_id() -> None:
    index = DenseIndex(["b", "a", "c"], _unit([[1, 0], [1, 0], [0, 1]]))
    assert [h[0] for h in index.search(np.array([1.0, 0.0]), 2)] == ["a", "b"]
    assert [h[0] for h in index.search(np.array([1.0, 0.0]), 5, within=["c", "zz"])] == ["c"]
    assert index.search(np.array([1.0, 0.0]), 0) == []


def test_shape_mismatch_is_rejected() -> None:
    with pytest.raises(ValueError, match="one vector row per id"):
        DenseIndex(["a"], np.zeros((2, 3)))
