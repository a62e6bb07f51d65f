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

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from navicite.config import Settings, load_settings
from navicite.llm.base import LLM
from navicite.llm.cache import AnswerCache, CachedAnswer, cache_key
from navicite.llm.core import BaseLLM, ChatRequest, Completion, Defaults
from navicite.llm.scripted import ScriptedLLM


def real_llm_settings(home: Path, model: str = "qwen2.5-coder-1.5b", *extra: str) -> Settings:
    """Settings for a real embedded model in ``home``: 1 thread, small default replies."""
    return load_settings(home, ["llm.backend=embedded", f"llm.model={model}", "llm.threads=1", "llm.max_tokens=128", *extra])


#: Fixtures that load the real chat model: a test using one belongs to the ``llm`` tier.
REAL_MODEL_FIXTURES = frozenset({"real_llm", "small_real_llm"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that uses a real-model fixture ``llm``, so the fast tier never loads weights."""
    for item in items:
        if REAL_MODEL_FIXTURES & set(getattr(item, "fixturenames", ())) and item.get_closest_marker("llm") is None:
            item.add_marker(pytest.mark.llm)


@pytest.fixture(autouse=True)
def _no_real_model_outside_the_llm_tier(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test not marked ``llm`` that loads the embedded model's weights in-process fails, naming the mark."""
    if request.node.get_closest_marker("llm") is not None or os.environ.get(RECORD_ENV):
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


#: Recorded replies of the real embedded model, one JSON file per test module (``recorded_llm``).
RECORDINGS = Path(__file__).parent / "fixtures" / "recorded"
#: Set to ask the real embedded model for every reply a recording lacks, and add it to the file.
RECORD_ENV = "NAVICITE_RECORD"


class RecordedLLM(BaseLLM):
    """The real embedded model's recorded replies, replayed by request.

    A reply is looked up by the answer cache's key (backend ``embedded``, the model's name, the
    whole request: messages, options, schema), so a request the recorded run did not make (a
    prompt or a retrieval that changed) finds nothing, and the test fails saying how to record
    again: ``NAVICITE_RECORD=1 pytest FILE``, which asks the real model and adds its replies.
    """

    def __init__(self, recording: Path, settings: Settings) -> None:
        llm = settings.llm
        super().__init__(
            backend="embedded",
            model=llm.model,
            defaults=Defaults(temperature=llm.temperature, max_tokens=llm.max_tokens, seed=llm.seed),
            cache=AnswerCache(settings.cache_dir / "recorded.sqlite"),
            context_size=llm.context_size,
        )
        self.recording, self.settings = recording, settings
        self.entries: list[dict[str, Any]] = json.loads(recording.read_text(encoding="utf-8")) if recording.is_file() else []
        for entry in self.entries:
            answer = CachedAnswer(entry["text"], entry["prompt_tokens"], entry["completion_tokens"])
            self.cache.put(entry["key"], backend="embedded", model=llm.model, stage=entry["stage"], answer=answer)  # type: ignore[union-attr]

    def _generate(self, request: ChatRequest) -> Completion:
        key = cache_key(self.backend, self.model, request.key_payload())
        if not os.environ.get(RECORD_ENV):
            raise AssertionError(
                f"{self.recording.name} holds no recorded reply for this request (a prompt or the evidence changed): "
                f"record again with {RECORD_ENV}=1 pytest <this test file> (asks the real embedded model)"
            )
        from navicite.llm.embedded import EmbeddedLLM

        completion = EmbeddedLLM(self.settings)._generate(request)
        last = request.messages[-1].content
        self.entries.append({"key": key, "stage": "recorded", "prompt_tail": last[-200:], "text": completion.text,
                             "prompt_tokens": completion.prompt_tokens, "completion_tokens": completion.completion_tokens})
        self.recording.parent.mkdir(parents=True, exist_ok=True)
        self.recording.write_text(json.dumps(self.entries, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        return completion


@pytest.fixture
def recorded_llm(request: pytest.FixtureRequest) -> Callable[[Settings], RecordedLLM]:
    """``recorded_llm(settings)``: the real model's replies recorded for this test module."""
    name = Path(str(request.node.fspath)).stem + ".json"
    return lambda settings: RecordedLLM(RECORDINGS / name, settings)


@pytest.fixture
def scripted_llm() -> Callable[..., ScriptedLLM]:
    """``scripted_llm(answer1, answer2, ..., default=None)`` builds a fresh ScriptedLLM."""

    def build(*answers: Any, **kwargs: Any) -> ScriptedLLM:
        return ScriptedLLM(answers, **kwargs)

    return build
