"""Fixtures shared by every test package.

LLM fixtures:
- ``real_llm``: the real embedded model (Qwen2.5-Coder-1.5B, 1 thread), loaded once per
  test run. Its answer cache lives in a fresh temporary folder, so a run never replays
  answers from an earlier run. Mark tests that use it ``@pytest.mark.llm`` and keep
  ``max_tokens`` small (CallOptions(max_tokens=...)).
- ``small_real_llm``: the 0.5B model, for tests that only need *a* real model quickly.
- ``scripted_llm``: a factory for :class:`navicite.llm.scripted.ScriptedLLM`, the stand-in
  that replays given answers and records the requests (``llm.calls``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from navicite.config import Settings, load_settings
from navicite.llm.base import LLM
from navicite.llm.scripted import ScriptedLLM


def real_llm_settings(home: Path, model: str = "qwen2.5-coder-1.5b", *extra: str) -> Settings:
    """Settings for a real embedded model in ``home``: 1 thread, small default replies."""
    return load_settings(home, ["llm.backend=embedded", f"llm.model={model}", "llm.threads=1", "llm.max_tokens=128", *extra])


#: Fixtures that load real model weights: a test using one belongs to the ``llm`` tier.
REAL_MODEL_FIXTURES = frozenset({"real_llm", "small_real_llm"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that uses a real-model fixture ``llm``, so the fast tier never loads weights."""
    for item in items:
        if REAL_MODEL_FIXTURES & set(getattr(item, "fixturenames", ())) and item.get_closest_marker("llm") is None:
            item.add_marker(pytest.mark.llm)


@pytest.fixture(autouse=True)
def _no_real_model_outside_the_llm_tier(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test not marked ``llm`` that loads the embedded model's weights in-process fails, naming the mark."""
    if request.node.get_closest_marker("llm") is not None:
        return
    from navicite.llm import embedded

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("this test loads the real embedded model: mark it @pytest.mark.llm (the model tier)")

    monkeypatch.setattr(embedded, "LoadedModel", refuse)


@pytest.fixture(scope="session")
def real_llm(tmp_path_factory: pytest.TempPathFactory) -> LLM:
    """The real embedded 1.5B model, shared by the whole test run."""
    from navicite.llm.embedded import EmbeddedLLM

    return EmbeddedLLM(real_llm_settings(tmp_path_factory.mktemp("real-llm")))


@pytest.fixture(scope="session")
def small_real_llm(tmp_path_factory: pytest.TempPathFactory) -> LLM:
    """The real embedded 0.5B model (fast, weak), shared by the whole test run."""
    from navicite.llm.embedded import EmbeddedLLM

    return EmbeddedLLM(real_llm_settings(tmp_path_factory.mktemp("small-llm"), "qwen2.5-coder-0.5b"))


@pytest.fixture
def scripted_llm() -> Callable[..., ScriptedLLM]:
    """``scripted_llm(answer1, answer2, ..., default=None)`` builds a fresh ScriptedLLM."""

    def build(*answers: Any, **kwargs: Any) -> ScriptedLLM:
        return ScriptedLLM(answers, **kwargs)

    return build
