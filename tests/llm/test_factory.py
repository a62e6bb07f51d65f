"""The backend factory: create(settings) and register_backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from navicite import llm
from navicite.config import load_settings
from navicite.errors import ConfigError
from navicite.llm.base import LLMUnavailableError, Message
from navicite.llm.openai_compat import OpenAICompatLLM
from navicite.llm.scripted import ScriptedLLM


def test_none_backend_raises_unavailable_on_use(tmp_path: Path) -> None:
    model = llm.create(load_settings(tmp_path, ["llm.backend=none"]))
    with pytest.raises(LLMUnavailableError, match="llm.backend"):
        model.complete([Message("user", "hi")])


def test_unknown_backend_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="embedded"):
        llm.create(load_settings(tmp_path, ["llm.backend=nonesuch"]))


def test_openai_backend_is_built_from_settings(tmp_path: Path) -> None:
    model = llm.create(load_settings(tmp_path, ["llm.backend=openai", "llm.base_url=http://127.0.0.1:9/v1", "llm.model=m"]))
    assert isinstance(model, OpenAICompatLLM)
    assert model.name == "openai:m"


def test_register_backend(tmp_path: Path) -> None:
    built = ScriptedLLM(["hello"])
    llm.register_backend("test-scripted", lambda settings: built)
    assert "test-scripted" in llm.backends()
    assert llm.create(load_settings(tmp_path, ["llm.backend=test-scripted"])).complete([Message("user", "x")]) == "hello"
