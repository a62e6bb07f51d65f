"""Two processes (two data directories) in front of one cluster share the collection's passages."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from navicite.collection import CollectionStore
from navicite.config import load_settings
from navicite.documents import Document
from navicite.index import free_text

LONG = " ".join(f"Sentence {i} talks about topic{i % 7} and more words here." for i in range(120))


@pytest.fixture
def shared(opensearch_overrides: list[str], opensearch_url: str, tmp_path: Path) -> Iterator[list[str]]:
    prefix = f"shared-{tmp_path.name.lower()}"[:60]
    yield [*opensearch_overrides, f"index.opensearch.index_prefix={prefix}", "ingest.passage_words=40"]
    for part in ("documents", "passages"):
        urllib.request.urlopen(urllib.request.Request(f"{opensearch_url}/{prefix}-{part}?ignore_unavailable=true",
                                                      method="DELETE"), timeout=30).close()


def test_a_second_process_reads_the_passages_without_cutting_them_again(
    shared: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = CollectionStore(load_settings(tmp_path / "a", shared))
    first.upsert([Document(id="long", title="Long", text=LONG), Document(id="short", title="Short", text="Topic3 is short.")])
    written = sorted(first.passages.ids())

    def no_rebuild(*args: object, **kwargs: object) -> int:
        raise AssertionError("the second process cut the shared passages again")

    monkeypatch.setattr(CollectionStore, "rebuild_passages", no_rebuild)
    second = CollectionStore(load_settings(tmp_path / "b", shared))  # a fresh data directory
    assert sorted(second.passages.ids()) == written
    assert [h.doc_id for h in second.passages.search(free_text("topic3 short"), k=1)] == ["short"]
    monkeypatch.undo()
    # Another cut is still noticed (and applied) by whoever asks with it.
    third = CollectionStore(load_settings(tmp_path / "c", [*shared, "ingest.passage_words=80"]))
    assert len(list(third.passages.ids())) < len(written)
