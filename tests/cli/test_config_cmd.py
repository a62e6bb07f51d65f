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
