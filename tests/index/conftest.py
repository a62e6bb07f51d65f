"""A real tantivy index in a temporary data directory."""

from __future__ import annotations

from collections.abc import Callable
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


@pytest.fixture
def make_index(tmp_path: Path) -> Callable[..., LexicalIndex]:
    """Build an index in ``tmp_path`` with settings overrides like ``"index.title_boost=5"``."""

    def make(*overrides: str, home: Path | None = None) -> LexicalIndex:
        return create(load_settings(home or tmp_path / "home", list(overrides)))

    return make


@pytest.fixture
def sample_index(make_index: Callable[..., LexicalIndex]) -> LexicalIndex:
    index = make_index()
    index.upsert(SAMPLE)
    return index
