"""``navicite config show`` and the global options, through the real console script entry."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "navicite", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_config_show_json_reflects_overrides(tmp_path: Path) -> None:
    result = run("--home", str(tmp_path), "-s", "llm.threads=2", "config", "show", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["llm"]["threads"] == 2
    assert data["home"] == str(tmp_path)


def test_unknown_setting_is_a_clear_error(tmp_path: Path) -> None:
    result = run("--home", str(tmp_path), "-s", "llm.thread=2", "config", "show")
    assert result.returncode == 2
    assert "llm.thread" in result.stderr
    assert "Traceback" not in result.stderr


def test_config_show_lists_nested_backend_settings_with_secrets_masked(tmp_path: Path) -> None:
    import os

    env = {**os.environ, "NAVICITE_API_KEY": "s3cret", "NAVICITE_RERANK__NAVICITE__DEPTH": "7", "COLUMNS": "200"}
    result = run("--home", str(tmp_path), "-s", "llm.api_key=abc", "config", "show", "--all", env=env)
    assert result.returncode == 0, result.stderr
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in result.stdout.splitlines() if line.count("│") >= 3}
    assert rows["rerank.navicite.depth"] == "7" and rows["rerank.llm.batch"] == "4" and rows["rerank.hybrid.dense_weight"] == "0.5"
    assert rows["llm.api_key"] == rows["server.api_key"] == "'***'"
    assert "s3cret" not in result.stdout and "abc" not in result.stdout


def _rows(stdout: str) -> dict[str, str]:
    return {line.split("│")[1].strip(): line.split("│")[2].strip() for line in stdout.splitlines() if line.count("│") >= 3}


def test_config_show_names_the_profile_and_leaves_experimental_keys_to_all(tmp_path: Path) -> None:
    import os

    env = {**os.environ, "COLUMNS": "200"}
    shown = run("--home", str(tmp_path), "-s", "llm.backend=embedded", "config", "show", env=env)
    assert shown.returncode == 0, shown.stderr
    assert "profile small (llm.profile=auto with llm.backend=embedded)" in shown.stdout
    rows = _rows(shown.stdout)
    assert rows["retrieve.analysis"] == "'statistical' (profile small)"
    assert "navigate.select_max_tokens" not in rows and "retrieve.rounds" in rows
    assert "navigate.select_max_tokens" in _rows(run("--home", str(tmp_path), "config", "show", "--all", env=env).stdout)
    changed = _rows(run("--home", str(tmp_path), "-s", "navigate.select_max_tokens=300", "config", "show", env=env).stdout)
    assert changed["navigate.select_max_tokens"] == "300"  # an experimental key someone set is shown
    served = _rows(run("--home", str(tmp_path), "-s", "llm.backend=openai", "config", "show", env=env).stdout)
    assert served["retrieve.analysis"] == "'llm' (profile strong)"


def test_config_show_explains_one_key_and_names_an_unknown_one(tmp_path: Path) -> None:
    result = run("--home", str(tmp_path), "-s", "retrieve.rounds=2", "config", "show", "--explain", "retrieve.rounds", "--json")
    assert result.returncode == 0, result.stderr
    facts = json.loads(result.stdout)
    assert facts["value"] == "2" and facts["default"] == "1" and facts["allowed"] == "int from 1 to 5"
    assert "multi-hop" in facts["description"] and facts["environment"] == "NAVICITE_RETRIEVE__ROUNDS"
    unknown = run("--home", str(tmp_path), "config", "show", "--explain", "retrieve.round")
    assert unknown.returncode == 2 and unknown.stderr.strip().count("\n") == 0
    assert "no setting 'retrieve.round'" in unknown.stderr


def test_the_settings_reference_in_docs_is_current() -> None:
    from navicite.cli.config_cmd import settings_markdown

    committed = Path(__file__).resolve().parents[2] / "docs" / "settings.md"
    assert committed.read_text() == settings_markdown(), "docs/settings.md is stale: run `navicite config docs > docs/settings.md`"
