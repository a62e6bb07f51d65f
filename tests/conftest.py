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

import os
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
from navicite.llm.scripted import ScriptedLLM


def real_llm_settings(home: Path, model: str = "qwen2.5-coder-1.5b", *extra: str) -> Settings:
    """Settings for a real embedded model in ``home``: 1 thread, small default replies."""
    return load_settings(home, ["llm.backend=embedded", f"llm.model={model}", "llm.threads=1", "llm.max_tokens=128", *extra])


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
