"""The OpenAI-compatible client against scripted HTTP exchanges (the real server is in tests/integration)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from pydantic import BaseModel

from navicite.config import load_settings
from navicite.llm.base import CallOptions, LLMError, LLMInputError, LLMUnavailableError, Message
from navicite.llm.openai_compat import OpenAICompatLLM

ASK = [Message("user", "hi")]


class Pick(BaseModel):
    colour: str


def _reply(text: str, status: int = 200, **extra: object) -> httpx.Response:
    return httpx.Response(
        status,
        json={
            "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2},
            **extra,
        },
    )


def _client(tmp_path: Path, handler: Callable[[httpx.Request], httpx.Response], *overrides: str) -> OpenAICompatLLM:
    settings = load_settings(
        tmp_path,
        ["llm.backend=openai", "llm.base_url=http://llm.test/v1", "llm.model=served", "llm.retries=2", "llm.cache=false", *overrides],
    )
    return OpenAICompatLLM(settings, transport=httpx.MockTransport(handler))


def test_completion_request_shape_and_usage(tmp_path: Path) -> None:
    seen: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url == "http://llm.test/v1/chat/completions"
        assert request.headers["authorization"] == "Bearer sekrit"
        seen.append(json.loads(request.content))
        return _reply("hello", timings={"prompt_ms": 10.0, "predicted_ms": 20.0})

    llm = _client(tmp_path, handler, "llm.api_key=sekrit")
    assert llm.complete(ASK, CallOptions(stage="t", max_tokens=7, stop=("\n",))) == "hello"
    body = seen[0]
    assert body["model"] == "served" and body["max_tokens"] == 7 and body["stop"] == ["\n"]
    assert body["messages"] == [{"role": "user", "content": "hi"}]
    usage = llm.usage.calls[0]
    assert (usage.prompt_tokens, usage.completion_tokens, usage.prompt_ms, usage.generation_ms) == (5, 2, 10.0, 20.0)


def test_json_schema_response_format(tmp_path: Path) -> None:
    seen: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return _reply('{"colour": "red"}')

    assert _client(tmp_path, handler).complete_json(ASK, Pick) == Pick(colour="red")
    assert seen[0]["response_format"]["json_schema"]["schema"] == Pick.model_json_schema()


def test_auto_falls_back_to_prompt_json_when_the_server_refuses_the_schema(tmp_path: Path) -> None:
    seen: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append(body)
        if "response_format" in body:
            return httpx.Response(400, json={"error": {"message": "response_format json_schema is not supported"}})
        return _reply('Sure!\n```json\n{"colour": "blue"}\n```')

    llm = _client(tmp_path, handler)
    assert llm.complete_json(ASK, Pick) == Pick(colour="blue")
    assert llm.supports_schema is False
    assert "response_format" not in seen[-1]
    assert '"colour"' in seen[-1]["messages"][-1]["content"]  # the schema went into the prompt
    llm.complete_json(ASK, Pick)
    assert len(seen) == 3  # remembered: no second refused request


def test_prompt_mode_repairs_once(tmp_path: Path) -> None:
    answers = iter(["I think it is red.", '{"colour": "red"}'])
    llm = _client(tmp_path, lambda request: _reply(next(answers)), "llm.structured_output=prompt")
    assert llm.complete_json(ASK, Pick) == Pick(colour="red")


def test_retries_429_and_5xx_then_succeeds(tmp_path: Path) -> None:
    statuses = iter([429, 503])
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        status = next(statuses, 200)
        if status != 200:
            return httpx.Response(status, headers={"retry-after": "0"}, json={"error": {"message": "busy"}})
        return _reply("finally")

    assert _client(tmp_path, handler).complete(ASK) == "finally"
    assert calls == 3


def test_gives_up_after_the_retries(tmp_path: Path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, headers={"retry-after": "0"}, json={"error": {"message": "exploded"}})

    with pytest.raises(LLMError, match="HTTP 500: exploded"):
        _client(tmp_path, handler).complete(ASK)


def test_unreachable_server_names_the_url_and_the_setting(tmp_path: Path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    with pytest.raises(LLMUnavailableError, match=r"http://llm.test/v1.*llm.base_url.*NAVICITE_LLM__BASE_URL"):
        _client(tmp_path, handler, "llm.retries=0").complete(ASK)


@pytest.mark.parametrize(
    ("status", "message", "error", "hint"),
    [
        (401, "Invalid API Key", LLMUnavailableError, "llm.api_key"),
        (404, "model not found", LLMUnavailableError, "llm.model"),
        (400, "the request exceeds the available context size", LLMInputError, "too long"),
    ],
)
def test_client_errors_are_typed(tmp_path: Path, status: int, message: str, error: type, hint: str) -> None:
    llm = _client(tmp_path, lambda request: httpx.Response(status, json={"error": {"message": message}}))
    with pytest.raises(error, match=hint):
        llm.complete(ASK)


def test_streaming_reads_server_sent_events(tmp_path: Path) -> None:
    events = [
        {"choices": [{"delta": {"role": "assistant"}, "finish_reason": None}]},
        {"choices": [{"delta": {"content": "Hel"}, "finish_reason": None}]},
        {"choices": [{"delta": {"content": "lo"}, "finish_reason": "stop"}]},
        {"choices": [], "usage": {"prompt_tokens": 4, "completion_tokens": 2}},
    ]
    body = ": keep-alive\n\n" + "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"

    def handler(request: httpx.Request) -> httpx.Response:
        assert json.loads(request.content)["stream"] is True
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())

    llm = _client(tmp_path, handler)
    assert list(llm.stream(ASK, CallOptions(stage="s"))) == ["Hel", "lo"]
    assert llm.usage.calls[0].completion_tokens == 2


@pytest.mark.parametrize(("cache_setting", "requests_sent"), [("true", 1), ("false", 2)])
def test_cache_setting(tmp_path: Path, cache_setting: str, requests_sent: int) -> None:
    sent = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal sent
        sent += 1
        return _reply("same")

    llm = _client(tmp_path, handler, f"llm.cache={cache_setting}")
    assert llm.complete(ASK) == llm.complete(ASK) == "same"
    assert sent == requests_sent
    assert (tmp_path / "cache" / "llm.sqlite").exists() is (cache_setting == "true")
