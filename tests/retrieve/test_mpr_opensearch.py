"""MPR over the OpenSearch backend: one _msearch per question's portfolios, the same ranking as tantivy."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from navicite.config import Settings, load_settings
from navicite.index import create
from navicite.index.base import LexicalIndex
from navicite.retrieve.mpr import create_retriever

QUESTIONS = [
    "Does vitamin D supplementation prevent hip fractures in elderly women?",
    "Does BRCA1 raise breast cancer risk?",
    "비타민 D 보충이 골절을 줄이나?",
]
COMMON = ["llm.backend=none", "rerank.backend=none"]


@pytest.fixture
def cluster(small_index: LexicalIndex, tmp_path: Path, opensearch_overrides: list[str],
            opensearch_url: str) -> Iterator[tuple[Any, Settings]]:
    """The retrieval tests' small collection (tests/retrieve/conftest.py) copied into the cluster."""
    settings = load_settings(tmp_path / "cluster", [*COMMON, *opensearch_overrides])
    index = create(settings)
    index.upsert(doc for doc in (small_index.get(doc_id) for doc_id in small_index.ids()) if doc is not None)
    yield index, settings
    urllib.request.urlopen(urllib.request.Request(f"{opensearch_url}/{index.name}", method="DELETE"), timeout=30).close()


def test_portfolios_go_out_in_one_msearch_and_rank_as_with_tantivy(
    cluster: tuple[Any, Settings], small_index: LexicalIndex, tmp_path: Path
) -> None:
    index, settings = cluster
    batches: list[int] = []
    search_many = index.search_many

    def recording(queries: Any, *args: Any, **kwargs: Any) -> Any:
        batches.append(len(queries))
        return search_many(queries, *args, **kwargs)

    index.search_many = recording
    on_cluster = create_retriever(settings, index=index)
    on_disk = create_retriever(load_settings(tmp_path / "tantivy", COMMON), index=small_index)
    for question in QUESTIONS:
        batches.clear()
        remote = on_cluster.run(question, top_n=10)
        first_round = [r for r in remote.results if r.portfolio not in ("B", "D") and r.round == 1]
        assert len(first_round) > 1 and not any(r.error for r in remote.results)
        assert len(first_round) in batches, (question, batches)  # the whole set in one request
        local = on_disk.run(question, top_n=10)
        assert [c.doc_id for c in remote.ranked] == [c.doc_id for c in local.ranked], question
