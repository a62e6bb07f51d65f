"""``navicite llm check`` and ``navicite cache clear|stats``."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path


from navicite import llm
from navicite.llm.cache import AnswerCache, CachedAnswer
from navicite.llm.scripted import ScriptedLLM

RunCli = Callable[..., tuple[int, str, str]]


def test_llm_check_reports_backend_reply_and_tokens(tmp_path: Path, run_cli: RunCli) -> None:
    stand_in = ScriptedLLM(['{"sentence": "Water evaporates and falls as rain.", "keywords": ["rain", "sea", "cloud"]}'])
    llm.register_backend("check-scripted", lambda settings: stand_in)
    code, out, err = run_cli("--home", str(tmp_path), "-s", "llm.backend=check-scripted", "llm", "check", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["backend"] == "check-scripted"
    assert report["reply"]["keywords"] == ["rain", "sea", "cloud"]
    assert report["calls"] == 1 and report["completion_tokens"] > 0
    assert "water cycle" in stand_in.calls[0].prompt
    assert stand_in.calls[0].json_schema is not None


def test_llm_check_with_no_backend_is_a_clear_error(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "navicite", "--home", str(tmp_path), "-s", "llm.backend=none", "llm", "check"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 1
    assert "llm.backend" in result.stderr
    assert "Traceback" not in result.stderr


def test_cache_stats_and_clear(tmp_path: Path, run_cli: RunCli) -> None:
    cache = AnswerCache(tmp_path / "cache" / "llm.sqlite")
    for i in range(3):
        cache.put(f"k{i}", backend="embedded", model="m", stage="draft", answer=CachedAnswer("x", 1, 1))
    code, out, _ = run_cli("--home", str(tmp_path), "cache", "stats", "--json")
    assert code == 0
    stats = json.loads(out)
    assert stats["entries"] == 3 and stats["by_stage"] == {"draft": 3}
    code, out, _ = run_cli("--home", str(tmp_path), "cache", "clear", "--json")
    assert code == 0 and json.loads(out)["removed"] == 3
    assert cache.stats().entries == 0
    code, _, err = run_cli("--home", str(tmp_path), "cache", "stats")
    assert code == 0


def test_llm_prepare_prints_where_the_joined_model_is(tmp_path: Path, run_cli: RunCli) -> None:
    from navicite.llm.weights import PACKAGED_MODELS

    code, out, err = run_cli("--home", str(tmp_path), "-s", "llm.model=qwen2.5-coder-0.5b", "llm", "prepare", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert Path(report["path"]).is_file() and report["bytes"] == PACKAGED_MODELS["qwen2.5-coder-0.5b"].size


def test_llm_prepare_of_an_unknown_model_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "navicite", "--home", str(tmp_path), "-s", f"llm.model={tmp_path / 'none.gguf'}", "llm", "prepare"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode != 0 and "neither a known embedded model" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
