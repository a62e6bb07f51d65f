"""The on-disk passage-vector store, and the hybrid reranker reading it."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from navicite import embed, rerank
from navicite.config import Settings
from navicite.errors import IndexStoreError
from navicite.rerank.base import RerankItem
from navicite.vectors import StoredDense, VectorStore, open_store, text_key


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
    second.embedder.embed = lambda texts, query=False: calls.append(len(texts)) or original(texts, query=query)  # type: ignore[method-assign]
    scored = second.rerank("vitamin D bones", items, top_n=2)
    assert calls == [1]  # only the question
    assert scored[0].doc_id == "a"
    stored = open_store(tmp_path, settings.embed.model).get_many([text_key(items[0].text)])
    assert stored[text_key(items[0].text)].shape == (384,)


def test_no_store_is_created_without_a_data_directory(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "absent")
    rerank.create(settings).rerank("q", [RerankItem("a", "text")], top_n=1)
    assert not (tmp_path / "absent").exists()


def test_a_store_closes_with_its_block_and_twice_is_harmless(tmp_path: Path) -> None:
    with open_store(tmp_path, "m") as store:
        store.put_many({"k": np.ones(2, dtype=np.float32)})
    with pytest.raises(sqlite3.ProgrammingError):
        store.get_many(["k"])
    store.close()
    assert set(open_store(tmp_path, "m").get_many(["k"])) == {"k"}  # what was written stays


def test_releasing_the_hybrid_reranker_closes_its_store(tmp_path: Path) -> None:
    reranker = rerank.create(Settings(home=tmp_path))
    reranker.rerank("q", [RerankItem("a", "text")], top_n=1)
    rerank.release(reranker)
    with pytest.raises(sqlite3.ProgrammingError):
        reranker.store.get_many(["x"])
    rerank.release(rerank.create(Settings(home=tmp_path / "absent")))  # no store: nothing to close


def test_stored_dense_reads_nothing_until_the_first_search_and_then_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(home=tmp_path)
    embedder = embed.create(settings)
    store = open_store(tmp_path, settings.embed.model)
    texts = {"bees": "Bees make honey from nectar.", "ice": "Glaciers carve valleys in mountains."}
    store.put_many({text_key(t): v for t, v in zip(texts.values(), embedder.embed(list(texts.values())))})
    store.put_documents({doc_id: text_key(t) for doc_id, t in texts.items()})
    reads: list[str] = []
    original = VectorStore.document_vectors

    def slow_read(self: VectorStore) -> tuple[list[str], np.ndarray]:
        reads.append(threading.current_thread().name)
        time.sleep(0.05)  # a slow load, so concurrent first searches overlap it
        return original(self)

    monkeypatch.setattr(VectorStore, "document_vectors", slow_read)
    dense = StoredDense(store, embedder)
    assert reads == []
    found: list[object] = []
    threads = [threading.Thread(target=lambda: found.append(dense.search("Who makes honey?", 1))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(reads) == 1 and found == [found[0]] * 4
    assert [doc_id for doc_id, _ in found[0]] == ["bees"]  # type: ignore[union-attr]
    dense.close()
    with pytest.raises(sqlite3.ProgrammingError):
        store.get_many(["x"])


def test_stored_dense_without_document_vectors_finds_no_portfolio(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path)
    store = open_store(tmp_path, settings.embed.model)
    store.put_many({"passage": np.ones(384, dtype=np.float32)})  # a reranker's vectors, no documents
    assert StoredDense(store, embed.create(settings)).search("anything", 5) is None


def test_stored_dense_finds_no_portfolio_for_a_language_the_model_does_not_read(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path)
    embedder = embed.create(settings)
    store = open_store(tmp_path, settings.embed.model)
    text = "Bees make honey from nectar."
    store.put_many({text_key(text): embedder.embed([text])[0]})
    store.put_documents({"bees": text_key(text)})
    dense = StoredDense(store, embedder)
    assert dense.search("꿀은 누가 만드는가?", 5) is None
    assert [doc_id for doc_id, _ in dense.search("Who makes honey?", 5) or []] == ["bees"]
    dense.close()
