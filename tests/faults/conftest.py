"""What the fault tests share: the real ``navicite`` command in a subprocess, and a running ``navicite serve``.

Everything runs as a user would run it: ``python -m navicite`` with this checkout's sources,
a data directory of its own, and ``serve`` as a uvicorn subprocess on a free loopback port.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Two small documents, enough for retrieval to find sources.
SMALL_DOCS = {
    "folate.txt": "Folic acid and homocysteine\n\nFolic acid supplements lower the blood level of homocysteine. "
    "In a trial of 800 adults, a daily dose of 0.8 mg of folic acid reduced homocysteine by about 25 percent "
    "after twelve weeks. Vitamin B12 adds a small further reduction.\n",
    "iron.txt": "Iron in the diet\n\nIron from meat (heme iron) is absorbed better than iron from plants. "
    "Vitamin C taken with a meal raises the absorption of plant iron. Tea and coffee taken with a meal lower it.\n",
}


def cli_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a ``navicite`` subprocess on the data directory ``home``."""
    env = {**os.environ, "NAVICITE_HOME": str(home), "PYTHONPATH": str(ROOT / "src"), "HF_HUB_OFFLINE": "1",
           "COLUMNS": "200", "NO_COLOR": "1"}
    env.pop("NAVICITE_API_KEY", None)  # a key of the caller's shell must not change what a test sees
    return {**env, **extra}


def as_overrides(*settings: str) -> list[str]:
    """``-s key=value`` arguments for each setting."""
    return [arg for setting in settings for arg in ("-s", setting)]


def free_port() -> int:
    """A loopback port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Served:
    """``navicite serve`` in a subprocess on a loopback port, for ``with Served(home, ...) as server``."""

    def __init__(self, home: Path, *settings: str, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "navicite", *as_overrides(*settings), "serve", "--port", str(self.port),
             "--log-level", "warning"],
            env={**cli_env(home), **(env or {})}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )

    def __enter__(self) -> Served:
        for _ in range(480):
            try:
                httpx.get(f"{self.url}/v1/health", timeout=1)
                return self
            except httpx.HTTPError:
                if self.process.poll() is not None:
                    raise AssertionError(self.process.stderr.read() if self.process.stderr else "serve exited")
                time.sleep(0.25)
        self.__exit__()
        raise AssertionError("navicite serve did not start within 120 s")

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=20)


def run_navicite(home: Path, *args: str, settings: tuple[str, ...] = (), timeout: float = 180
                 ) -> tuple[subprocess.CompletedProcess[str], float]:
    """``navicite -s SETTING... ARGS...`` on ``home``: the finished process and its seconds."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "navicite", *as_overrides(*settings), *args], env=cli_env(home),
                          capture_output=True, text=True, timeout=timeout)
    return done, time.monotonic() - started


@pytest.fixture(scope="session")
def served() -> type[Served]:
    """``Served``, for tests: ``with served(home, "llm.backend=none") as server: ...``."""
    return Served


@pytest.fixture(scope="session")
def cli():  # type: ignore[no-untyped-def]
    """:func:`run_navicite`, for tests."""
    return run_navicite


@pytest.fixture(scope="module")
def small_collection(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory holding :data:`SMALL_DOCS`, ingested by the real command."""
    home = tmp_path_factory.mktemp("faults-home")
    docs = tmp_path_factory.mktemp("faults-docs")
    for name, text in SMALL_DOCS.items():
        (docs / name).write_text(text)
    done, _ = run_navicite(home, "ingest", str(docs), timeout=300)
    assert done.returncode == 0, done.stderr
    return home
