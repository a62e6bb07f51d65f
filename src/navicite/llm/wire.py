"""The OpenAI chat-completions wire format, shared by the embedded and the HTTP backend.

xllamacpp's in-process server and every OpenAI-compatible HTTP server take the
same request body and send the same reply and stream chunks; llama.cpp adds
``timings`` (prompt and generation milliseconds), which become
:attr:`Usage.prompt_ms` / :attr:`Usage.generation_ms`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from navicite.llm.base import LLMError
from navicite.llm.core import ChatRequest, Completion


def chat_body(request: ChatRequest, *, stream: bool, model: str | None = None, schema: bool = True) -> dict[str, Any]:
    """The request body for ``request``; ``schema=False`` leaves out the response format."""
    body: dict[str, Any] = {
        "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "seed": request.seed,
        "stream": stream,
    }
    if model is not None:
        body["model"] = model
    if request.stop:
        body["stop"] = list(request.stop)
    if request.json_schema is not None and schema:
        body["response_format"] = {"type": "json_schema", "json_schema": {"name": "reply", "schema": request.json_schema}}
    if request.alternatives:
        body["logprobs"] = True
        body["top_logprobs"] = request.alternatives
    if stream:
        body["stream_options"] = {"include_usage": True}
    return body


def completion_from(data: dict[str, Any], text: str | None = None, finish_reason: str | None = None) -> Completion:
    """A :class:`Completion` from a whole reply (or, with ``text`` given, from a stream's last chunk)."""
    alternatives: tuple[tuple[str, dict[str, float]], ...] = ()
    if text is None:
        choice = data["choices"][0]
        text = (choice.get("message") or {}).get("content") or ""
        finish_reason = choice.get("finish_reason")
        alternatives = token_alternatives(choice.get("logprobs"))
    usage = data.get("usage") or {}
    timings = data.get("timings") or {}
    return Completion(
        text=text,
        prompt_tokens=int(usage.get("prompt_tokens") or timings.get("prompt_n") or 0),
        completion_tokens=int(usage.get("completion_tokens") or timings.get("predicted_n") or 0),
        # llama.cpp reports the reused prefix as timings.cache_n; OpenAI-style servers in usage details.
        cached_tokens=int(timings.get("cache_n") or (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0),
        finish_reason=finish_reason or "stop",
        prompt_ms=timings.get("prompt_ms"),
        generation_ms=timings.get("predicted_ms"),
        alternatives=alternatives,
    )


def token_alternatives(logprobs: Any) -> tuple[tuple[str, dict[str, float]], ...]:
    """A reply's ``logprobs`` (OpenAI's layout: ``content`` of tokens, each with ``top_logprobs``) as
    ``(token, {alternative: log-probability})`` pairs; nothing when the reply has none or another layout."""
    if not isinstance(logprobs, dict) or not isinstance(logprobs.get("content"), list):
        return ()
    out = []
    for entry in logprobs["content"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("token"), str):
            return ()
        top = {a["token"]: float(a["logprob"]) for a in entry.get("top_logprobs") or []
               if isinstance(a, dict) and isinstance(a.get("token"), str) and isinstance(a.get("logprob"), (int, float))}
        out.append((entry["token"], top))
    return tuple(out)


def stream_pieces(
    chunks: Iterable[dict[str, Any]], check: Callable[[dict[str, Any]], None] | None = None, source: str = "the model"
) -> Iterator[str | Completion]:
    """Text pieces of a chunk stream, then a :class:`Completion` with its usage (text left empty).

    Raises:
        LLMError: the stream ended without one choice (``source`` names who sent it): an empty
            reply is the server failing, not the model saying nothing.
    """
    finish = "stop"
    last: dict[str, Any] = {}
    chosen = False
    for chunk in chunks:
        if check is not None:
            check(chunk)
        if chunk.get("usage") or chunk.get("timings"):
            last = chunk
        for choice in chunk.get("choices") or []:
            chosen = True
            piece = (choice.get("delta") or {}).get("content")
            if piece:
                yield piece
            finish = choice.get("finish_reason") or finish
    if not chosen:
        raise LLMError(f"{source} ended its streamed reply without any choice (an empty 'choices' list or no event); "
                       "check the server and its log")
    yield completion_from(last, text="", finish_reason=finish)
