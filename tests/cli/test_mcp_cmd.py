"""``navicite mcp --http``: the bind rule of ``serve``, the bearer key, and calls in flight at once.

The HTTP server runs as a subprocess on a free loopback port and is driven by the MCP SDK's
streamable-HTTP client; it answers with the scripted backend of ``tests/mcp_scripted_backend.py``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install -e '.[mcp]')")

import anyio  # noqa: E402
import httpx  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402

from navicite import Collection, Document  # noqa: E402

TESTS = Path(__file__).resolve().parents[1]
LAUNCHER = "import mcp_scripted_backend; from navicite.cli import main; main()"
KEY = "test-key-0123456789abcdef"

DOCUMENTS = [
    Document(id="tmerge", title="Building time-dependent data",
             text="The tmerge function of the survival package builds data sets with time-dependent covariates."),
    Document(id="folate", title="Folic acid and homocysteine",
             text="Folic acid supplementation lowers blood homocysteine levels in healthy adults."),
    Document(id="vitd", title="Vitamin D and fractures", text="Vitamin D supplements did not reduce hip fractures in older women."),
]


def test_refuses_an_address_other_machines_reach_without_an_api_key(
    run_cli: Callable[..., tuple[int, str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NAVICITE_API_KEY", raising=False)
    code, out, err = run_cli("--home", str(tmp_path / "home"), "mcp", "--http", "--host", "0.0.0.0", "--port", "9")
    assert code == 2 and out == ""
    assert "refusing to serve on 0.0.0.0" in err and "NAVICITE_API_KEY" in err
    assert not (tmp_path / "home").exists()  # refused before the collection was opened


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``navicite mcp --http`` with an API key, on a free loopback port; yields its URL."""
    home = tmp_path_factory.mktemp("mcp-http") / "home"
    with Collection(home, ["llm.backend=none"]) as papers:
        papers.add(DOCUMENTS)
    port = _free_port()
    log = (home.parent / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, "--home", str(home), "-s", "llm.backend=scripted", "-s", "generate.verifier=lexical",
         "-s", "rerank.backend=none", "-s", f"server.api_key={KEY}", "mcp", "--http", "--port", str(port)],
        env={**{k: v for k, v in os.environ.items() if not k.startswith("NAVICITE_")}, "PYTHONPATH": str(TESTS)},
        stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                pytest.fail(f"navicite mcp --http exited: {(home.parent / 'server.log').read_text()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("navicite mcp --http did not start listening within 60 s")
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def test_the_http_server_wants_the_key_as_a_bearer_token(http_server: str) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        refused = httpx.post(http_server, json=body, headers=headers, timeout=10)
        assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
        assert "Authorization: Bearer" in refused.json()["detail"]


def test_five_calls_in_flight_over_streamable_http_complete(http_server: str) -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("ask", {"question": "Which function builds data sets with time-dependent covariates?"}),
        ("ask", {"question": "Does folic acid lower homocysteine levels?"}),
        ("search", {"query": "vitamin D fractures"}),
        ("fetch", {"id": "folate"}),
        ("list_documents", {}),
    ]
    results: dict[int, Any] = {}

    async def main() -> None:
        client = create_mcp_http_client(headers={"Authorization": f"Bearer {KEY}"})
        async with client, streamable_http_client(http_server, http_client=client) as (read, write), \
                ClientSession(read, write, read_timeout_seconds=120) as session:
            await session.initialize()

            async def call(number: int, name: str, arguments: dict[str, Any]) -> None:
                results[number] = await session.call_tool(name, arguments)

            async with anyio.create_task_group() as group:
                for number, (name, arguments) in enumerate(calls):
                    group.start_soon(call, number, name, arguments)
            # and the session still answers afterwards
            results[len(calls)] = await session.call_tool("fetch", {"id": "nope"})

    anyio.run(main)
    for number, (name, _) in enumerate(calls):
        assert not results[number].is_error, (name, results[number].content)
    asked = results[0].structured_content  # the scripted draft, verified and marked by navicite
    assert "[1]" in asked["answer"] and asked["citations"] and asked["sentences"][0]["kind"] == "cited"
    assert results[1].structured_content["question"].startswith("Does folic acid")
    assert results[2].structured_content["results"][0]["doc_id"] == "vitd"
    assert "homocysteine" in results[3].structured_content["text"]
    assert results[4].structured_content["total"] == 3
    assert results[len(calls)].is_error
