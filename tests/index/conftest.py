"""Real indexes in temporary data directories: tantivy, and OpenSearch on a real node.

``make_index``/``sample_index`` run a test once per backend. The OpenSearch runs read the node's
address from NAVICITE_TEST_OPENSEARCH (CI sets it after scripts/search-node.sh start): without
it they are skipped; with it set and no node answering they fail, never skip.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from navicite.config import load_settings
from navicite.documents import Document
from navicite.index import LexicalIndex, create

SAMPLE = [
    Document("cells", "Running studies of stem cells", "Stem cells were studied in mice.", "The body mentions COVID-19."),
    Document("heart", "Heart failure outcomes", "Patients with heart failure were followed.", "Diuretics and beta blockers."),
    Document("seoul", "서울의 날씨", "서울은 한국의 수도입니다. 오늘 날씨가 좋습니다.", ""),
    Document("tokyo", "東京の天気", "東京都は日本の首都です。", "", metadata={"year": 2020, "tags": ["ja"]}),
    Document("genes", "Gene expression", "Genes expressed in the liver of mice.", "", link="https://example.org/genes"),
]


@pytest.fixture
def docs() -> list[Document]:
    """Five small documents: English, Korean, Japanese, with metadata and a link."""
    return list(SAMPLE)


#: The backends the LexicalIndex contract runs against.
BACKENDS = ("tantivy", "opensearch")
NO_NODE = (
    "no OpenSearch node for the opensearch backend's tests: run scripts/search-node.sh start and set "
    "NAVICITE_TEST_OPENSEARCH=http://127.0.0.1:9250"
)


@pytest.fixture(scope="session")
def opensearch_url() -> str:
    """The test node's address; skips without NAVICITE_TEST_OPENSEARCH, fails when it is set and the node is down."""
    url = os.environ.get("NAVICITE_TEST_OPENSEARCH", "").rstrip("/")
    if not url:
        pytest.skip(NO_NODE)
    try:
        with urllib.request.urlopen(f"{url}/_cluster/health?wait_for_status=yellow&timeout=30s", timeout=40) as reply:
            status = json.load(reply)["status"]
    except (OSError, ValueError, KeyError) as exc:
        pytest.fail(f"NAVICITE_TEST_OPENSEARCH={url} is set but no OpenSearch node answers ({exc}); {NO_NODE}")
    if status == "red":
        pytest.fail(f"the OpenSearch cluster at {url} is red")
    return url


def backend_overrides(backend: str, url: str = "") -> list[str]:
    """Settings that select ``backend``; OpenSearch indexes get two shards, so scores must not depend on sharding."""
    if backend == "tantivy":
        return []
    return [
        "index.backend=opensearch",
        f'index.opensearch.hosts=["{url}"]',
        "index.opensearch.shards=2",
        "index.opensearch.replicas=0",
    ]


def drop_opensearch_indexes(url: str, names: list[str]) -> None:
    """Delete test indexes (missing ones are fine)."""
    for name in names:
        request = urllib.request.Request(f"{url}/{name}?ignore_unavailable=true", method="DELETE")
        try:
            urllib.request.urlopen(request, timeout=30).close()
        except urllib.error.URLError:
            pass


@dataclass
class Backend:
    """One backend under test: its name and the settings that select it."""

    name: str
    url: str = ""
    made: list[str] = field(default_factory=list)

    def create(self, home: Path, *overrides: str) -> LexicalIndex:
        """An index of this backend in ``home``; OpenSearch indexes are deleted when the backend's tests end."""
        index = create(load_settings(home, [*backend_overrides(self.name, self.url), *overrides]))
        if self.url:
            self.made.append(index.name)  # type: ignore[attr-defined]
        return index


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """Each backend in turn (OpenSearch: on the node of NAVICITE_TEST_OPENSEARCH)."""
    chosen = Backend(request.param, request.getfixturevalue("opensearch_url") if request.param == "opensearch" else "")
    yield chosen
    if chosen.made:
        drop_opensearch_indexes(chosen.url, sorted(set(chosen.made)))


@pytest.fixture(scope="module")
def opensearch(opensearch_url: str) -> Iterator[Backend]:
    """The OpenSearch backend alone, for tests of what only it has."""
    chosen = Backend("opensearch", opensearch_url)
    yield chosen
    if chosen.made:
        drop_opensearch_indexes(chosen.url, sorted(set(chosen.made)))


@pytest.fixture
def make_index(backend: Backend, tmp_path: Path) -> Callable[..., LexicalIndex]:
    """Build an index of each backend in ``tmp_path`` with settings overrides like ``"index.title_boost=5"``."""

    def make(*overrides: str, home: Path | None = None) -> LexicalIndex:
        return backend.create(home or tmp_path / "home", *overrides)

    return make


@pytest.fixture
def sample_index(make_index: Callable[..., LexicalIndex]) -> LexicalIndex:
    index = make_index()
    index.upsert(SAMPLE)
    return index
