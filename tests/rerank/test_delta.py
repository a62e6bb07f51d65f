"""The shipped cross-encoder rebuilt over MiniLM: byte for byte, checked, and cached."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from navicite.errors import ConfigError
from navicite.rerank import navicite_ce
from navicite.rerank.delta import delta_sha256, minilm_path, rebuild, write_delta

pytest.importorskip("onnx")
pytest.importorskip("safetensors")
DELTA = navicite_ce.SHIPPED_WEIGHTS / navicite_ce.DELTA_FILE


def test_shipped_network_is_rebuilt_once_and_matches_its_sha256(tmp_path: Path) -> None:
    folder = navicite_ce.resolve_weights(None, "int8", tmp_path)
    network = folder / "model_int8.onnx"
    assert hashlib.sha256(network.read_bytes()).hexdigest() == delta_sha256(DELTA)
    assert (folder / "tokenizer.json").is_file()
    stamp = network.stat().st_mtime_ns
    assert navicite_ce.resolve_weights(None, "int8", tmp_path) == folder and network.stat().st_mtime_ns == stamp


@pytest.mark.slow  # two full rebuilds of the network: 3 minutes on a loaded 2-core machine
def test_a_delta_written_again_rebuilds_the_same_network(tmp_path: Path) -> None:
    original = rebuild(DELTA, tmp_path / "original.onnx")
    again = write_delta(original, tmp_path / "again.delta")
    assert rebuild(again, tmp_path / "again.onnx").read_bytes() == original.read_bytes()


def test_other_minilm_weights_fail_the_check(tmp_path: Path) -> None:
    from safetensors.numpy import load_file, save_file

    weights = load_file(str(minilm_path() / "model.safetensors"))
    weights["encoder.layer.0.output.dense.weight"] = weights["encoder.layer.0.output.dense.weight"] * 1.5
    save_file(weights, str(tmp_path / "model.safetensors"))
    with pytest.raises(ConfigError, match="sha256"):
        rebuild(DELTA, tmp_path / "bad.onnx", base=tmp_path)
    assert not (tmp_path / "bad.onnx").exists()


def test_the_delta_keeps_differences_not_matrices() -> None:
    with zipfile.ZipFile(DELTA) as archive:
        stored = sum(i.compress_size for i in archive.infolist())
    assert DELTA.stat().st_size < 5_000_000 and stored < 5_000_000
