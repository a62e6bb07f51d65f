"""The on-disk passage-vector store, and the hybrid reranker reading it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from navicite import rerank
from navicite.config import Settings
from navicite.errors import IndexStoreError
from navicite.rerank.base import RerankItem
from navicite.vectors import VectorStore, open_store, text_key


def test_round_trip_keeps_models_apart_and_skips_missing(tmp_path: Path) -> None:
    store = open_store(tmp_path, "model-a")
    vec = np.arange(4, dtype=np.float32)
    store.put_many({"k1": vec})
    assert set(store.get_many(["k1", "k2"])) == {"k1"}
    np.testing.assert_array_equal(store.get_many(["k1"])["k1"], vec)
    assert len(store) == 1
    assert open_store(tmp_path, "model-b").get_many(["k1"]) == {}
    # Many keys at once (beyond SQLite's bound-parameter limit) still work.
    store.put_many({f"x{i}": vec for i in range(1200)})
    assert len(store.get_many([f"x{i}" for i in range(1200)])) == 1200
    store.close()


def test_unusable_location_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(IndexStoreError, match="vector store"):
        VectorStore(blocker / "vectors.sqlite", "m")


def test_hybrid_fills_the_store_and_a_new_instance_reads_it(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path)
    items = [
        RerankItem("a", "Vitamin D and bone density in older adults"),
        RerankItem("b", "Coral reefs bleach when the sea warms"),
    ]
    first = rerank.create(settings)
    first.rerank("vitamin D bones", items, top_n=2)
    rows = sqlite3.connect(tmp_path / "vectors.sqlite").execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
    assert rows == 2

    second = rerank.create(settings)  # a new process would start like this: empty memory
    calls: list[int] = []
    original = second.embedder.embed
    second.embedder.embed = lambda texts: calls.append(len(texts)) or original(texts)  # type: ignore[method-assign]
    scored = second.rerank("vitamin D bones", items, top_n=2)
    assert calls == [1]  # only the question
    assert scored[0].doc_id == "a"
    stored = open_store(tmp_path, settings.embed.model).get_many([text_key(items[0].text)])
    assert stored[text_key(items[0].text)].shape == (384,)


def test_no_store_is_created_without_a_data_directory(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "absent")
    rerank.create(settings).rerank("q", [RerankItem("a", "text")], top_n=1)
    assert not (tmp_path / "absent").exists()
