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
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
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
            alternatives = tuple((token, dict(top)) for token, top in entry.get("alternatives", ()))
            answer = CachedAnswer(entry["text"], entry["prompt_tokens"], entry["completion_tokens"], alternatives)
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
                             "prompt_tokens": completion.prompt_tokens, "completion_tokens": completion.completion_tokens,
                             **({"alternatives": completion.alternatives} if completion.alternatives else {})})
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


#: Debian's browser and its driver (``apt-get install -y chromium chromium-driver``; ``.ci/run`` does).
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


@pytest.fixture
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., Any]]:
    """``chromium(width, height)``: a headless Chromium driven by Selenium, with a new empty profile.

    Skips the test when Debian's chromium or chromedriver is missing; every browser opened is
    closed when the test ends.
    """
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.skip("Debian chromium and chromium-driver are not installed (apt-get install -y chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    drivers: list[Any] = []

    def start(width: int = 1400, height: int = 1000) -> Any:
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        profile = tmp_path_factory.mktemp("chromium-profile")
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--disable-dev-shm-usage", f"--window-size={width},{height}", f"--user-data-dir={profile}"):
            options.add_argument(flag)
        drivers.append(webdriver.Chrome(service=Service(CHROMEDRIVER), options=options))
        return drivers[-1]

    yield start
    for driver in drivers:
        driver.quit()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _serving(home: Path, settings: list[str], launcher: str | None = None) -> Iterator[str]:
    """``navicite serve`` over ``home`` on a free loopback port until the block ends; yields its URL.

    ``launcher``: a ``python -c`` program that runs the command line (one that registers a
    test backend first, with ``tests/`` on its path); by default ``python -m navicite``.
    """
    port = _free_port()
    program = ["-c", launcher] if launcher else ["-m", "navicite"]
    args = [sys.executable, *program, "--home", str(home)]
    for override in settings:
        args += ["-s", override]
    env = {k: v for k, v in os.environ.items() if not k.startswith("NAVICITE_")}
    env.update(HF_HUB_OFFLINE="1", PYTHONPATH=os.pathsep.join([str(Path(__file__).parent), *sys.path]))
    log_path = home.parent / f"{home.name}-serve.log"
    with log_path.open("w") as log:
        server = subprocess.Popen([*args, "serve", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
                                  stdout=log, stderr=subprocess.STDOUT, env=env)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120
            while True:
                if server.poll() is not None:
                    pytest.fail(f"navicite serve exited with {server.returncode}: {log_path.read_text()[-2000:]}")
                try:
                    with urllib.request.urlopen(f"{url}/v1/health", timeout=2) as reply:
                        if reply.status == 200:
                            break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    pytest.fail("navicite serve did not answer within 120 s")
                time.sleep(0.3)
            yield url
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()


@pytest.fixture(scope="session")
def navicite_serve() -> Callable[..., AbstractContextManager[str]]:
    """``with navicite_serve(home, ["k=v", ...], launcher=None) as url``: a real ``navicite serve`` subprocess."""
    return _serving
# -- an OpenSearch node (index.backend=opensearch) --------------------------------------------

NO_NODE = (
    "no OpenSearch node for the opensearch backend's tests: run scripts/search-node.sh start and set "
    "NAVICITE_TEST_OPENSEARCH=http://127.0.0.1:9250"
)


@pytest.fixture(scope="session")
def opensearch_url() -> str:
    """The test node's address (CI sets NAVICITE_TEST_OPENSEARCH after scripts/search-node.sh start).

    Skips without the variable (a developer without a node); fails, never skips, when it is set
    and no node answers or the cluster is red.
    """
    import json
    import os
    import urllib.request

    url = os.environ.get("NAVICITE_TEST_OPENSEARCH", "").rstrip("/")
    if not url:
        pytest.skip(NO_NODE)
    try:
        with urllib.request.urlopen(f"{url}/_cluster/health?wait_for_status=yellow&timeout=30s", timeout=40) as reply:
            status = json.load(reply)["status"]
    except (OSError, ValueError, KeyError) as exc:
        pytest.fail(f"NAVICITE_TEST_OPENSEARCH={url} is set but no OpenSearch node answers ({exc}); {NO_NODE}")
    if status == "red":
        pytest.fail(f"the OpenSearch cluster at {url} is red")
    return url


@pytest.fixture(scope="session")
def opensearch_overrides(opensearch_url: str) -> list[str]:
    """Settings selecting the test node; two shards per index, so scores must not depend on sharding."""
    return [
        "index.backend=opensearch",
        f'index.opensearch.hosts=["{opensearch_url}"]',
        "index.opensearch.shards=2",
        "index.opensearch.replicas=0",
    ]
