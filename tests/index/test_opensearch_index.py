"""What only the OpenSearch backend has: batched searches, shard-independent scores, a cluster that is down.

Runs on the node of NAVICITE_TEST_OPENSEARCH (see tests/index/conftest.py); the backend-neutral
behaviour is in test_lexical_contract.py.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from opensearchpy.exceptions import NotFoundError

from navicite.config import load_settings
from navicite.documents import Document
from navicite.errors import IndexStoreError
from navicite.index import create, free_text, parse_boolean
from navicite.index.opensearch_index import OpenSearchIndex, cluster_health

DOCS = [
    Document("k1", "Kinase inhibitors", "Kinase inhibitors slow tumour growth in mice.", "Liver toxicity was low."),
    Document("k2", "Heart failure", "Beta blockers and kinase signalling in heart failure.", ""),
    Document("k3", "Liver", "The liver clears most drugs.", "Kinase activity in hepatocytes."),
    Document("k4", "Mice", "Mice were fed a high-fat diet.", "Weight and liver fat rose."),
    Document("k5", "서울의 날씨", "서울은 한국의 수도입니다.", ""),
] + [Document(f"f{i}", f"Filler {i}", f"Plain words number {i} about diet and growth.") for i in range(20)]
QUERIES = ["kinase liver", "heart failure kinase", "diet growth mice", "서울 수도", "liver toxicity"]


def scores(index: Any, text: str) -> dict[str, float]:
    return {h.doc_id: h.score for h in index.search(free_text(text), len(DOCS))}


def test_scores_do_not_depend_on_the_number_of_shards(opensearch: Any, tmp_path: Path) -> None:
    one = opensearch.create(tmp_path / "one", "index.opensearch.shards=1")
    four = opensearch.create(tmp_path / "four", "index.opensearch.shards=4")
    one.upsert(DOCS)
    four.upsert(DOCS)
    for text in QUERIES:
        assert scores(four, text) == pytest.approx(scores(one, text), rel=1e-5), text


def test_bm25_scores_equal_tantivys(opensearch: Any, tmp_path: Path) -> None:
    cluster = opensearch.create(tmp_path / "os")
    local = create(load_settings(tmp_path / "tantivy"))
    cluster.upsert(DOCS)
    local.upsert(DOCS)
    for text in QUERIES:
        if text == "서울 수도":
            # Lucene averages a field's length over the documents that have it, tantivy over all
            # documents: CJK pair fields of a mostly English collection score differently, same order.
            assert list(scores(cluster, text)) == list(scores(local, text))
            continue
        # Both store document lengths in one byte the same way; the scores agree closely.
        assert scores(cluster, text) == pytest.approx(scores(local, text), rel=2e-3), text


def test_search_many_answers_each_query_in_one_request(opensearch: Any, tmp_path: Path) -> None:
    index = opensearch.create(tmp_path / "home")
    index.upsert(DOCS)
    queries = [free_text(q) for q in QUERIES] + [parse_boolean("kinase AND NOT liver")]
    sent: list[str] = []
    original = index.client.transport.perform_request

    def counting(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        sent.append(url)
        return original(method, url, *args, **kwargs)

    index.client.transport.perform_request = counting
    batched = index.search_many(queries, 5)
    assert [u for u in sent if "_msearch" in u] == ["/_msearch"] and len(sent) == 1
    for query, hits in zip(queries, batched):
        assert [(h.doc_id, h.score) for h in hits] == [(h.doc_id, h.score) for h in index.search(query, 5)]
    assert [h.doc_id for h in batched[-1]] == ["k2"]


def test_an_unreachable_cluster_is_one_clear_error(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = load_settings(tmp_path, ["index.backend=opensearch", f'index.opensearch.hosts=["http://127.0.0.1:{port}"]',
                                        "index.opensearch.max_retries=0", "index.opensearch.timeout_s=2"])
    index = create(settings)
    with pytest.raises(IndexStoreError, match=rf"cannot reach the OpenSearch cluster at http://127.0.0.1:{port}; start it") as caught:
        index.upsert(DOCS[:1])
    assert "\n" not in str(caught.value)
    with pytest.raises(IndexStoreError, match="cannot reach"):
        index.search(free_text("kinase"), 3)
    assert cluster_health(settings.index.opensearch)["status"] == "unreachable"


def test_health_reports_the_cluster_state(opensearch: Any, tmp_path: Path) -> None:
    settings = load_settings(tmp_path, ["index.backend=opensearch", f'index.opensearch.hosts=["{opensearch.url}"]'])
    health = cluster_health(settings.index.opensearch)
    assert health["status"] in ("green", "yellow") and health["number_of_nodes"] >= 1


def test_an_index_of_another_format_is_refused(opensearch: Any, tmp_path: Path) -> None:
    index = opensearch.create(tmp_path / "home")
    index.upsert(DOCS[:1])
    index.client.indices.put_mapping(index=index.name, body={"_meta": {"navicite_format": 999}})
    with pytest.raises(IndexStoreError, match="has format 999, .*delete that index"):
        OpenSearchIndex(index.name, load_settings(tmp_path / "home").index, index.client).count()


def test_an_index_another_process_created_first_is_used(opensearch: Any, tmp_path: Path) -> None:
    first = opensearch.create(tmp_path / "home")
    second = opensearch.create(tmp_path / "home")  # same collection, another process
    first.upsert(DOCS[:1])
    real = second.client.indices.get_mapping
    calls: list[int] = []

    def not_yet(**kwargs: Any) -> Any:  # its first look came before the other process created the index
        calls.append(1)
        if len(calls) == 1:
            raise NotFoundError(404, "index_not_found_exception", {})
        return real(**kwargs)

    second.client.indices.get_mapping = not_yet  # type: ignore[method-assign]
    assert second.upsert(DOCS[1:2]).added == ["k2"]
    assert first.count() == 2


def test_doc_freq_counts_what_a_search_for_the_word_finds(opensearch: Any, tmp_path: Path) -> None:
    index = opensearch.create(tmp_path / "home")
    index.upsert(DOCS)
    for word in ("kinase", "liver", "diet", "서울", "absent", "!!!"):
        query = free_text(word)
        expected = 0 if query is None else len(index.search(query, len(DOCS)))
        assert index.doc_freq(word) == expected, word
    assert index.doc_freq("kinase") == 3


def test_a_search_deeper_than_the_hit_window_is_cut_to_it(opensearch: Any, tmp_path: Path) -> None:
    index = opensearch.create(tmp_path / "home")
    index.upsert(DOCS)
    assert len(index.search(free_text("diet"), 50_000)) == len(index.search(free_text("diet"), 100))
