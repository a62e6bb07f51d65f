"""``navicite rerank train`` end to end on a tiny budget: real MiniLM weights, real data, no LLM."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "navicite", *args], check=False, capture_output=True, text=True, timeout=600, env=env)


def test_train_writes_a_crossencoder_folder_that_scores_pairs(tiny_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "model"
    result = run(
        "--home", str(tmp_path / "home"), "rerank", "train", "--out", str(out), "--data-dir", str(tiny_data),
        "--synthetic", "0", "--max-groups", "24", "--max-steps", "3", "--groups-per-step", "2", "--negatives", "3",
        "--max-length", "64", "--heldout", "0.2", "--threads", "1", "--no-export", "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    info = json.loads(result.stdout)
    assert info["steps"] == 3 and info["pairs"] == 3 * 2 * 4
    assert info["data"]["train_groups"] + info["data"]["heldout_groups"] <= 24
    assert info["heldout_after"]["groups"] == info["data"]["heldout_groups"] > 0
    assert json.loads((out / "train_info.json").read_text())["steps"] == 3

    from sentence_transformers import CrossEncoder

    model = CrossEncoder(str(out), max_length=64)
    scores = model.predict([("statins and muscle pain", "Statins\nMuscle pain was rare."), ("coffee", "Tides\nThe moon.")])
    assert len(scores) == 2 and all(float(s) == float(s) for s in scores)  # two finite numbers (not NaN)


def test_missing_data_folder_is_a_clear_user_error(tmp_path: Path) -> None:
    result = run("--home", str(tmp_path / "home"), "rerank", "train", "--out", str(tmp_path / "m"), "--data-dir", str(tmp_path / "nope"))
    assert result.returncode == 2
    assert "--data-dir" in result.stderr and "no such folder" in result.stderr
    assert not (tmp_path / "m").exists()
