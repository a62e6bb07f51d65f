"""The tantivy backend: writes, reads, snippets, languages, CJK, locking."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from navicite.config import load_settings
from navicite.documents import Document
from navicite.errors import ConfigError, IndexStoreError, UserInputError
from navicite.index import LexicalIndex, create, free_text, parse_boolean, register_backend
from navicite.index.base import HIGHLIGHT_END, HIGHLIGHT_START
from navicite.index.query import Term
from navicite.index.tantivy_index import TantivyIndex


@pytest.fixture
def make_index(tmp_path: Path) -> Callable[..., LexicalIndex]:
    """Build a tantivy index in ``tmp_path`` (the backend-neutral tests are in test_lexical_contract.py)."""

    def make(*overrides: str, home: Path | None = None) -> LexicalIndex:
        return create(load_settings(home or tmp_path / "home", list(overrides)))

    return make


def test_create_gives_the_tantivy_backend_and_is_a_lexical_index(tmp_path: Path) -> None:
    index = create(load_settings(tmp_path))
    assert isinstance(index, TantivyIndex) and isinstance(index, LexicalIndex)


def test_unknown_backend_is_a_config_error(tmp_path: Path) -> None:
    settings = load_settings(tmp_path)
    object.__setattr__(settings.index, "backend", "nope")  # the Literal type would refuse it
    with pytest.raises(ConfigError, match="unknown index backend 'nope'"):
        create(settings)


def test_registered_backend_is_used(tmp_path: Path) -> None:
    made: list[object] = []
    register_backend("recording", lambda s, part: made.append(s) or TantivyIndex(s.index_dir, s.index))
    try:
        settings = load_settings(tmp_path)
        object.__setattr__(settings.index, "backend", "recording")
        create(settings)
        assert made == [settings]
    finally:
        from navicite import index as index_pkg

        index_pkg._BACKENDS.pop("recording")


def test_reading_an_absent_index_creates_nothing(tmp_path: Path) -> None:
    index = create(load_settings(tmp_path / "home"))
    assert index.count() == 0
    assert index.search(parse_boolean("anything"), 5) == []
    assert index.get("x") is None and list(index.ids()) == [] and index.delete(["x"]) == []
    assert index.stats().documents == 0
    assert not (tmp_path / "home").exists()


def test_a_second_writer_gets_a_clear_error(docs: list[Document], tmp_path: Path) -> None:
    home = tmp_path / "home"
    setup = create(load_settings(home))
    setup.upsert(docs[:1])
    setup.close()
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_WRITER, str(home / "index")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        busy = create(load_settings(home, ["index.lock_wait_s=0.3"]))
        with pytest.raises(IndexStoreError, match="another process is writing"):
            busy.upsert([Document("x", "blocked")])
        assert busy.count() == 1 and busy.get("x") is None  # readers still work
    finally:
        holder.kill()
        holder.wait()
    create(load_settings(home)).upsert([Document("x", "after the lock")])
    assert create(load_settings(home)).count() == 2


_HOLD_WRITER = """
import sys, time, tantivy
index = tantivy.Index.open(sys.argv[1])
writer = index.writer(50_000_000, 1)
print("locked", flush=True)
time.sleep(60)
"""


def test_open_reader_sees_other_writers_commits(docs: list[Document], tmp_path: Path) -> None:
    home = tmp_path / "home"
    writer_side = create(load_settings(home))
    writer_side.upsert(docs[:1])
    reader_side = create(load_settings(home))
    assert reader_side.count() == 1
    writer_side.upsert(docs[1:])
    deadline = time.monotonic() + 5
    while reader_side.count() != len(docs) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert reader_side.count() == len(docs)
    assert [h.doc_id for h in reader_side.search(free_text("diuretics"))] == ["heart"]


@pytest.mark.parametrize("old_format", [2, 3, 999])
def test_index_of_another_format_is_refused(
    old_format: int, docs: list[Document], make_index: Callable[..., LexicalIndex], tmp_path: Path
) -> None:
    index = make_index()
    index.upsert(docs[:1])
    (tmp_path / "home" / "index" / "navicite-index.json").write_text(f'{{"format": {old_format}, "stemming": true}}')
    with pytest.raises(IndexStoreError, match=f"format {old_format}, .* delete .* and ingest again"):
        make_index().count()


def test_writer_is_kept_between_batches_then_released(docs: list[Document], tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = create(load_settings(home, ["index.writer_linger_s=3"]))
    first.upsert(docs[:2])
    other = create(load_settings(home, ["index.lock_wait_s=0"]))
    with pytest.raises(IndexStoreError, match="another process is writing"):
        other.upsert(docs[2:3])  # the first index still holds its writer
    first.upsert(docs[2:4])  # ... and reuses it
    waiting = create(load_settings(home, ["index.lock_wait_s=20"]))
    assert waiting.upsert(docs[4:]).added == [docs[4].id]  # got it once the first went idle
    waiting.close()
    first.upsert([Document("x", "again")])
    first.close()
    assert other.upsert([Document("y", "free")]).added == ["y"]
    other.close()
    assert create(load_settings(home)).count() == len(docs) + 2
