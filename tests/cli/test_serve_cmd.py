"""``navicite serve``: refuses an open address without a key; serves the API and page on loopback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from navicite.cli import main


def test_refuses_non_loopback_host_without_key(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    monkeypatch.delenv("NAVICITE_API_KEY", raising=False)
    with pytest.raises(SystemExit) as exit_info:
        main(["--home", str(tmp_path / "home"), "serve", "--host", "0.0.0.0", "--port", "9"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "refusing to serve on 0.0.0.0" in err and "NAVICITE_API_KEY" in err
    assert not (tmp_path / "home").exists()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_serves_page_and_api_with_key_from_environment(tmp_path: Path) -> None:
    port = _free_port()
    env = {**os.environ, "NAVICITE_API_KEY": "k-123-long-enough-key", "HF_HUB_OFFLINE": "1"}
    server = subprocess.Popen(
        [sys.executable, "-m", "navicite", "--home", str(tmp_path), "-s", "llm.backend=none",
         "serve", "--port", str(port), "--log-level", "warning"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                health = httpx.get(f"{url}/v1/health", timeout=1)
                break
            except httpx.HTTPError:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                time.sleep(0.5)
        else:
            pytest.fail("navicite serve did not answer within 60 s")
        assert health.json()["auth"] is True
        assert httpx.get(f"{url}/").status_code == 200
        assert httpx.get(f"{url}/v1/documents").status_code == 401
        listed = httpx.get(f"{url}/v1/documents", headers={"Authorization": "Bearer k-123-long-enough-key"})
        assert listed.status_code == 200 and listed.json()["total"] == 0
    finally:
        server.terminate()
        server.wait(timeout=20)
