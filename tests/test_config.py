"""Settings: layering of file, environment and overrides; errors for typos."""

from __future__ import annotations

from pathlib import Path

import pytest

from navicite.config import CONFIG_FILE_NAME, load_settings, parse_override
from navicite.errors import ConfigError


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("NAVICITE_"):
            monkeypatch.delenv(name)


def test_defaults_work_without_a_file(tmp_path: Path) -> None:
    s = load_settings(tmp_path)
    assert s.home == tmp_path
    assert s.llm.backend == "embedded"
    assert s.ingest.segment_words == 512 and s.ingest.segment_overlap == 0.2
    assert s.index_dir == tmp_path / "index"


def test_file_then_env_then_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / CONFIG_FILE_NAME).write_text("[llm]\nthreads = 2\nmax_tokens = 100\ntemperature = 0.5\n")
    monkeypatch.setenv("NAVICITE_LLM__THREADS", "3")
    monkeypatch.setenv("NAVICITE_LLM__MAX_TOKENS", "200")
    s = load_settings(tmp_path, ["llm.max_tokens=300"])
    assert s.llm.temperature == 0.5  # file
    assert s.llm.threads == 3  # env beats file
    assert s.llm.max_tokens == 300  # override beats env


def test_home_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NAVICITE_HOME", str(tmp_path))
    assert load_settings().home == tmp_path


@pytest.mark.parametrize(
    "override, fragment",
    [("llm.thread=1", "llm.thread"), ("llm.threads=zero", "llm.threads"), ("nosection.x=1", "nosection"), ("novalue", "section.key=value")],
)
def test_bad_overrides_name_the_setting(tmp_path: Path, override: str, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment.replace(".", r"\.")):
        load_settings(tmp_path, [override])


def test_typo_in_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / CONFIG_FILE_NAME).write_text("[index]\ntitle_bost = 3\n")
    with pytest.raises(ConfigError, match="title_bost"):
        load_settings(tmp_path)


def test_broken_toml_names_the_file(tmp_path: Path) -> None:
    (tmp_path / CONFIG_FILE_NAME).write_text("[llm\n")
    with pytest.raises(ConfigError, match=CONFIG_FILE_NAME):
        load_settings(tmp_path)


def test_override_values_are_typed() -> None:
    assert parse_override("a.b=2") == (["a", "b"], 2)
    assert parse_override("a.b=true") == (["a", "b"], True)
    assert parse_override("a.b=http://x:1/v1") == (["a", "b"], "http://x:1/v1")


def test_secrets_are_masked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NAVICITE_API_KEY", "s3cret")
    shown = load_settings(tmp_path, ["llm.api_key=abc"]).public_dict()
    assert shown["llm"]["api_key"] == "***" and shown["server"]["api_key"] == "***"


def test_a_preset_sits_under_explicit_overrides_and_an_unknown_one_is_an_error(tmp_path) -> None:
    from navicite.config import PRESETS, load_settings

    fast = load_settings(tmp_path, preset="fast")
    assert fast.retrieve.method == "flat" and fast.generate.verifier == "lexical"
    mine = load_settings(tmp_path, ["generate.verifier=hybrid"], preset="fast")
    assert mine.generate.verifier == "hybrid" and mine.retrieve.method == "flat"
    old = load_settings(tmp_path, preset="first-release")
    assert (old.generate.evidence, old.generate.format, old.llm.threads) == ("document", "report", 1)
    assert all(load_settings(tmp_path, preset=name) for name in PRESETS)
    with pytest.raises(ConfigError, match="unknown preset 'nope'; choose one of: first-release"):
        load_settings(tmp_path, preset="nope")


def test_default_threads_count_the_physical_cores_this_process_may_use(monkeypatch) -> None:
    import os

    from navicite.config import default_threads, load_settings

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert default_threads() == 1
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)))
    assert 1 <= default_threads() <= 8  # capped, and CPUs without topology files still count
    assert load_settings(None, ["llm.threads=3"]).llm.threads == 3
