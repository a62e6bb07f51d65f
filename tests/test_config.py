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


def test_each_source_over_the_one_below(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # defaults < navicite.toml < environment < preset ('quality': generate.verifier=llm, rerank.backend=navicite) < -s
    (tmp_path / CONFIG_FILE_NAME).write_text(
        '[rerank]\nbackend = "llm"\n[rerank.navicite]\ndepth = 3\nweight = 0.6\n[generate]\nmax_sources = 7\nverifier = "lexical"\n'
    )
    monkeypatch.setenv("NAVICITE_RERANK__NAVICITE__DEPTH", "5")
    monkeypatch.setenv("NAVICITE_RERANK__BACKEND", "cross-encoder")
    monkeypatch.setenv("NAVICITE_GENERATE__VERIFIER", "lexical")
    s = load_settings(tmp_path, ["generate.verifier=hybrid"], preset="quality")
    assert s.rerank.top_n == 50 and s.rerank.navicite.max_length == 256  # defaults
    assert s.rerank.navicite.weight == 0.6 and s.generate.max_sources == 7  # file
    assert s.rerank.navicite.depth == 5  # environment over file
    assert s.rerank.backend == "navicite"  # preset over environment and file
    assert s.generate.verifier == "hybrid"  # -s over preset, environment and file
    assert load_settings(tmp_path, ["rerank.navicite.depth=9"]).rerank.navicite.depth == 9


def test_backend_sections_are_nested_in_every_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    defaults = load_settings(tmp_path).rerank
    assert (defaults.navicite.depth, defaults.navicite.weight, defaults.navicite.onnx_variant) == (20, 0.3, "int8")
    assert (defaults.llm.depth, defaults.llm.batch, defaults.llm.passage_chars) == (20, 4, 700)
    assert (defaults.hybrid.dense_weight, defaults.hybrid.bm25_weight, defaults.hybrid.agreement_weight) == (0.5, 0.4, 0.1)
    monkeypatch.setenv("NAVICITE_RERANK__NAVICITE__DEPTH", "5")
    monkeypatch.setenv("NAVICITE_RERANK__LLM__BATCH", "2")
    s = load_settings(tmp_path, ["rerank.hybrid.bm25_weight=0.2"])
    assert (s.rerank.navicite.depth, s.rerank.llm.batch, s.rerank.hybrid.bm25_weight) == (5, 2, 0.2)
    assert s.rerank.navicite.weight == 0.3 and s.rerank.hybrid.dense_weight == 0.5  # siblings keep their defaults
    monkeypatch.setenv("NAVICITE_RERANK__NAVICITE__DEPTH", "-1")
    with pytest.raises(ConfigError, match=r"rerank\.navicite\.depth"):
        load_settings(tmp_path)


@pytest.mark.parametrize("where", ["override", "file", "environment"])
def test_an_old_flat_key_names_its_new_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    overrides = []
    if where == "override":
        overrides = ["rerank.cascade_depth=5"]
    elif where == "file":
        (tmp_path / CONFIG_FILE_NAME).write_text("[rerank]\ncascade_depth = 5\n")
    else:
        monkeypatch.setenv("NAVICITE_RERANK__CASCADE_DEPTH", "5")
    with pytest.raises(ConfigError, match=r"rerank\.cascade_depth was renamed to rerank\.navicite\.depth"):
        load_settings(tmp_path, overrides)


def test_every_renamed_key_points_at_a_real_setting(tmp_path: Path) -> None:
    from navicite.config import RerankSettings

    s = load_settings(tmp_path)
    for old, new in RerankSettings.renamed.items():
        section, *rest = new.split(".")
        node = getattr(s, section)
        for part in rest:
            node = getattr(node, part)  # the new place exists
        with pytest.raises(ConfigError, match=f"{old} was renamed to {new}".replace(".", r"\.")):
            load_settings(tmp_path, [f"{old}=1"])


def test_api_key_variable_is_the_server_key_only_when_nothing_else_sets_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NAVICITE_API_KEY", "from-env")
    assert load_settings(tmp_path).server.api_key == "from-env"
    (tmp_path / CONFIG_FILE_NAME).write_text('[server]\napi_key = "from-file"\n')
    assert load_settings(tmp_path).server.api_key == "from-file"
    assert load_settings(tmp_path, ["server.api_key=from-override"]).server.api_key == "from-override"
    assert load_settings(tmp_path).llm.api_key is None  # never the chat model's key


def test_variables_that_are_not_settings_are_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NAVICITE_PRESET", "fast")  # read by the CLI's --preset, not a setting
    monkeypatch.setenv("NAVICITE_HOME", str(tmp_path / "elsewhere"))
    assert load_settings(tmp_path).home == tmp_path  # an explicit home wins over NAVICITE_HOME
    monkeypatch.setenv("NAVICITE_LLM__THREAD", "1")  # a typo in a known section is still an error
    with pytest.raises(ConfigError, match=r"llm\.thread"):
        load_settings(tmp_path)


def test_every_setting_is_described_in_words() -> None:
    from navicite.config import setting_infos

    bare = [info.key for info in setting_infos() if len(info.description.split()) < 4]
    assert not bare, f"settings without a description: {bare}"


@pytest.mark.parametrize(
    ("overrides", "profile", "analysis"),
    [
        (["llm.backend=embedded"], "small", "statistical"),
        (["llm.backend=openai"], "strong", "llm"),
        (["llm.backend=openai", "llm.profile=small"], "small", "statistical"),
        (["llm.backend=embedded", "llm.profile=strong"], "strong", "llm"),
        (["llm.backend=embedded", "retrieve.analysis=llm"], "small", "llm"),  # a value set wins over the profile
    ],
)
def test_the_profile_gives_unset_keys_their_value(tmp_path: Path, overrides: list[str], profile: str, analysis: str) -> None:
    cfg = load_settings(tmp_path, overrides)
    assert cfg.profile == profile
    assert cfg.resolved("retrieve.analysis") == analysis


def test_every_profile_key_is_a_setting_left_unset_by_default(tmp_path: Path) -> None:
    from navicite.config import PROFILES

    cfg = load_settings(tmp_path)
    for values in PROFILES.values():
        assert all(cfg.value(key) is None for key in values)  # else the profile could never apply
    with pytest.raises(ConfigError, match="no setting 'retrieve.nope'"):
        cfg.value("retrieve.nope")
