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
    result = run("--home", str(tmp_path), "-s", "llm.api_key=abc", "config", "show", env=env)
    assert result.returncode == 0, result.stderr
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in result.stdout.splitlines() if line.count("│") >= 3}
    assert rows["rerank.navicite.depth"] == "7" and rows["rerank.llm.batch"] == "4" and rows["rerank.hybrid.dense_weight"] == "0.5"
    assert rows["llm.api_key"] == rows["server.api_key"] == "'***'"
    assert "s3cret" not in result.stdout and "abc" not in result.stdout
