"""Real indexes in temporary data directories: tantivy, and OpenSearch on a real node.

``make_index``/``sample_index`` run a test once per backend. The OpenSearch node comes from the
``opensearch_url`` fixture (tests/conftest.py: skipped without NAVICITE_TEST_OPENSEARCH, failing
with it set and no node).
"""

from __future__ import annotations

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
    overrides: list[str] = field(default_factory=list)
    made: list[str] = field(default_factory=list)

    def create(self, home: Path, *overrides: str) -> LexicalIndex:
        """An index of this backend in ``home``; OpenSearch indexes are deleted when the backend's tests end."""
        index = create(load_settings(home, [*self.overrides, *overrides]))
        if self.url:
            self.made.append(index.name)  # type: ignore[attr-defined]
        return index


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """Each backend in turn (OpenSearch: on the node of NAVICITE_TEST_OPENSEARCH)."""
    if request.param == "opensearch":
        chosen = Backend("opensearch", request.getfixturevalue("opensearch_url"), request.getfixturevalue("opensearch_overrides"))
    else:
        chosen = Backend(request.param)
    yield chosen
    if chosen.made:
        drop_opensearch_indexes(chosen.url, sorted(set(chosen.made)))


@pytest.fixture(scope="module")
def opensearch(opensearch_url: str, opensearch_overrides: list[str]) -> Iterator[Backend]:
    """The OpenSearch backend alone, for tests of what only it has."""
    chosen = Backend("opensearch", opensearch_url, opensearch_overrides)
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
