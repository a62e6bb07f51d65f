"""The OpenAI-compatible client against a real llama.cpp server on loopback (0.5B model)."""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel

from navicite.config import Settings, load_settings
from navicite.llm.base import CallOptions, LLMUnavailableError, Message
from navicite.llm.openai_compat import OpenAICompatLLM
from navicite.llm.weights import resolve_model

pytestmark = pytest.mark.llm


class LoopbackServer:
    """llama.cpp's HTTP server (from xllamacpp) on 127.0.0.1 with a free port."""

    def __init__(self) -> None:
        import xllamacpp

        params = xllamacpp.CommonParams()
        params.model.path = str(resolve_model("qwen2.5-coder-0.5b"))
        params.n_ctx = 1024
        params.cpuparams.n_threads = 1
        params.cpuparams_batch.n_threads = 1
        params.hostnames = ["127.0.0.1"]
        params.port = 0  # the server picks a free port
        params.n_threads_http = 2
        params.verbosity = -1
        params.warmup = False
        self.server = xllamacpp.Server(params)
        self.url = self.server.listening_address + "/v1"
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/v1", self.url)

    def stop(self) -> None:
        del self.server
        gc.collect()


def client_settings(home: Path, url: str, *extra: str) -> Settings:
    return load_settings(home, ["llm.backend=openai", f"llm.base_url={url}", "llm.model=qwen-small",
                                "llm.max_tokens=32", "llm.retries=1", "llm.timeout_s=60", *extra])


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    running = LoopbackServer()
    yield running
    running.stop()


@pytest.fixture
def client(server: LoopbackServer, tmp_path: Path) -> OpenAICompatLLM:
    return OpenAICompatLLM(client_settings(tmp_path, server.url))


class Sum(BaseModel):
    a: int
    b: int
    total: int


def test_completion(client: OpenAICompatLLM) -> None:
    reply = client.complete([Message("user", "Reply with the word: hello")], CallOptions(stage="srv", max_tokens=8, temperature=0.0))
    assert "hello" in reply.lower()
    usage = client.usage.calls[0]
    assert usage.prompt_tokens > 0 and usage.completion_tokens > 0


def test_json_schema(client: OpenAICompatLLM) -> None:
    result = client.complete_json([Message("user", "Add 2 and 3. Give a, b and total.")], Sum,
                                  CallOptions(stage="srv-json", max_tokens=32, temperature=0.0))
    assert isinstance(result, Sum)
    assert client.supports_schema is True  # llama.cpp's server accepts json_schema response formats


def test_streaming(client: OpenAICompatLLM) -> None:
    pieces = list(client.stream([Message("user", "Count from 1 to 5, separated by commas.")],
                                CallOptions(stage="srv-stream", max_tokens=16, temperature=0.0)))
    assert len(pieces) > 1
    assert "1" in "".join(pieces)
    assert client.usage.calls[-1].completion_tokens > 0


def test_stopped_server_gives_one_clear_error(tmp_path: Path) -> None:
    own = LoopbackServer()
    llm = OpenAICompatLLM(client_settings(tmp_path, own.url))
    assert isinstance(llm.complete([Message("user", "Say ok")], CallOptions(max_tokens=3)), str)
    assert llm.usage.calls[0].completion_tokens > 0  # the server answered before it was stopped
    own.stop()
    with pytest.raises(LLMUnavailableError) as caught:
        llm.complete([Message("user", "Say ok again")], CallOptions(max_tokens=3))
    message = str(caught.value)
    assert own.url in message and "llm.base_url" in message and "NAVICITE_LLM__BASE_URL" in message
