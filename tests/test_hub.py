"""Hub model ids: pinned, and a clear line when they cannot be had (these machines have no network)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from navicite import hub
from navicite.config import load_settings
from navicite.embed import create
from navicite.llm.base import LLMUnavailableError
from navicite.llm.weights import resolve_model


def test_a_hub_id_without_a_revision_is_refused_before_any_download() -> None:
    with pytest.raises(hub.HubUnavailable, match=r"embed.revision=COMMIT"):
        create(load_settings("/nonexistent-home", ["embed.model=someone/some-encoder"]))
    with pytest.raises(LLMUnavailableError, match=r"llm.revision=COMMIT"):
        resolve_model("someone/some-model-GGUF/model-q4.gguf")


def test_an_unreachable_hub_is_one_line_naming_the_model_and_its_settings() -> None:
    # A child process, so the offline switch is read when huggingface_hub is first imported.
    code = (
        "from navicite import hub\n"
        "try:\n"
        "    hub.fetch('someone/some-encoder', '0123456789abcdef', 'embed')\n"
        "except hub.HubUnavailable as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})
    message = done.stdout.strip()
    assert done.returncode == 0 and "\n" not in message, done.stderr[-1500:]
    assert "someone/some-encoder@0123456789abcdef" in message and "embed.model" in message and "HF_HUB_OFFLINE" in message


def test_a_local_folder_or_file_needs_no_hub(tmp_path) -> None:  # noqa: ANN001
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    assert resolve_model(str(gguf)) == gguf
    with pytest.raises(LLMUnavailableError, match="neither a known embedded model"):
        resolve_model(str(tmp_path / "missing.gguf"))
