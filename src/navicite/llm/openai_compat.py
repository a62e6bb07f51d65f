"""The OpenAI-compatible backend: vLLM, Ollama, llama.cpp's server, hosted APIs.

Talks ``POST {base_url}/chat/completions`` with httpx. Structured output uses a
``json_schema`` response format; with ``llm.structured_output = "auto"`` a server
that rejects it is remembered and asked through the prompt instead (the reply is
then parsed and, if needed, repaired once). 429, 5xx and connection failures are
retried with exponential backoff; a server that stays unreachable raises one
:class:`LLMUnavailableError` that names the URL and the setting to change.

``llm.timeout_s`` bounds each wait for the server; the answer's deadline
(:mod:`navicite.llm.deadline`, ``llm.answer_timeout_s``) bounds the whole call: every wait is
cut to the time left, and a reply still arriving when the deadline passes (a server that
drips a byte at a time) has its connection shut. A reply that is not JSON, has no choices or
breaks off is an error naming the server, never an empty answer.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import httpx

from navicite.config import Settings
from navicite.errors import NaviciteError
from navicite.llm import deadline
from navicite.llm.base import LLMError, LLMInputError, LLMUnavailableError
from navicite.llm.cache import CACHE_FILE_NAME, AnswerCache
from navicite.llm.core import BaseLLM, ChatRequest, Completion, Defaults, with_json_instructions
from navicite.llm.wire import chat_body, completion_from, stream_pieces

_RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
_MAX_BACKOFF_S = 20.0


class OpenAICompatLLM(BaseLLM):
    """Chat through any server that speaks the OpenAI chat-completions API."""

    def __init__(self, settings: Settings, transport: httpx.BaseTransport | None = None) -> None:
        llm = settings.llm
        super().__init__(
            backend="openai",
            model=llm.model,
            defaults=Defaults(temperature=llm.temperature, max_tokens=llm.max_tokens, seed=llm.seed),
            cache=AnswerCache(settings.cache_dir / CACHE_FILE_NAME) if llm.cache else None,
            concurrency=llm.concurrency,
            context_size=None,  # the server knows its own context; it rejects over-long prompts itself
        )
        self.base_url = llm.base_url.rstrip("/")
        self.timeout_s = llm.timeout_s
        self.retries = llm.retries
        self.structured_output = llm.structured_output
        self.supports_schema = llm.structured_output != "prompt"
        self._schema_lock = threading.Lock()
        headers = {"Authorization": f"Bearer {llm.api_key}"} if llm.api_key else {}
        self.http = httpx.Client(
            base_url=self.base_url,
            headers=headers,
            timeout=httpx.Timeout(llm.timeout_s, connect=min(10.0, llm.timeout_s)),
            transport=transport,
        )

    # -- requests ------------------------------------------------------------------

    def _body(self, request: ChatRequest, stream: bool) -> dict[str, Any]:
        return chat_body(request, stream=stream, model=self.model, schema=self.supports_schema)

    def _generate(self, request: ChatRequest) -> Completion:
        response = self._send(request, stream=False)
        try:
            return completion_from(response.json())
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise LLMError(
                f"the LLM server at {self.base_url} sent a reply that is not a chat completion "
                f"(not JSON, or no choices): {response.text[:200]!r}; check llm.base_url and the server's log"
            ) from None

    def _generate_stream(self, request: ChatRequest) -> Iterator[str | Completion]:
        try:
            with self._open_stream(request) as response, _cut_at_deadline(response):
                events = _sse_events(self._checked(response.iter_lines()), self.base_url)
                yield from stream_pieces(events, source=f"the LLM server at {self.base_url}")
        except httpx.TransportError as exc:  # closed or timed out mid-stream: one error naming the server
            raise self._broken(exc, "while it streamed the reply") from None

    def _post(self, body: dict[str, Any]) -> httpx.Response:
        """The response to ``body``, headers read, body not yet (each wait cut to the deadline's time left)."""
        left = deadline.time_left()
        wait = self.timeout_s if left is None else max(0.001, min(self.timeout_s, left))
        timeout = httpx.Timeout(wait, connect=min(10.0, wait))
        return self.http.send(self.http.build_request("POST", "/chat/completions", json=body, timeout=timeout), stream=True)

    def _send(self, request: ChatRequest, stream: bool) -> httpx.Response:
        """POST with retries; returns a successful, fully read response."""
        while True:
            body = self._body(request, stream)
            response = self._with_retries(lambda: self._whole(self._post(body)))
            if self._schema_refused(request, response):
                request = self._without_schema_support(request)
                continue
            self._raise_for_status(response)
            return response

    def _whole(self, response: httpx.Response) -> httpx.Response:
        """``response`` read to its end, as a response whose body is in memory (the deadline applies between chunks)."""
        if response.is_stream_consumed:  # already in memory (a transport that reads whole replies)
            return response
        try:
            with _cut_at_deadline(response):
                raw = b"".join(self._checked(response.iter_raw()))
        finally:
            response.close()
        whole = httpx.Response(response.status_code, headers=response.headers, content=raw, request=response.request)
        whole.read()
        return whole

    @contextmanager
    def _open_stream(self, request: ChatRequest) -> Iterator[httpx.Response]:
        """A streaming response (retries happen only before the first byte; streams carry no schema)."""
        body = self._body(request, stream=True)
        response = self._with_retries(lambda: self._post(body))
        try:
            if response.status_code >= 400:
                self._raise_for_status(self._whole(response))
            yield response
        finally:
            response.close()

    def _checked(self, items: Iterable[Any]) -> Iterator[Any]:
        """``items`` with the deadline checked before each (a dripping server sends one byte per read)."""
        for item in items:
            deadline.check(f"the LLM server at {self.base_url} was still sending its reply")
            yield item

    def _broken(self, exc: httpx.TransportError, during: str) -> NaviciteError:
        """The error for a request or reply that failed in transit."""
        if deadline.time_left() == 0:
            return deadline.exceeded(f"the LLM server at {self.base_url} had not finished its reply")
        if isinstance(exc, httpx.TimeoutException):
            return LLMUnavailableError(
                f"the LLM server at {self.base_url} did not answer within llm.timeout_s ({self.timeout_s:g} s) {during}; "
                "raise llm.timeout_s or lower llm.max_tokens"
            )
        return LLMUnavailableError(
            f"the LLM server at {self.base_url} broke off {during} ({type(exc).__name__}: {exc}); check the server and its log"
        )

    def _with_retries(self, send: Any) -> httpx.Response:
        attempt = 0
        while True:
            deadline.check(f"no time was left to ask the LLM server at {self.base_url}")
            try:
                response = send()
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError, httpx.ReadError) as exc:
                if attempt >= self.retries:
                    if deadline.time_left() == 0:
                        raise self._broken(exc, "while it was asked") from None
                    raise LLMUnavailableError(
                        f"cannot reach the LLM server at {self.base_url} ({type(exc).__name__}: {exc}); start it, or set "
                        "llm.base_url (env NAVICITE_LLM__BASE_URL), or use the embedded model with -s llm.backend=embedded"
                    ) from None
            except httpx.TransportError as exc:  # a timeout: the server took the request and did not answer
                raise self._broken(exc, "while it was asked") from None
            else:
                if response.status_code not in _RETRY_STATUS or attempt >= self.retries:
                    return response
                delay = _retry_after(response)
                response.close()
                _pause(delay if delay is not None else min(_MAX_BACKOFF_S, 0.5 * 2**attempt))
                attempt += 1
                continue
            _pause(min(_MAX_BACKOFF_S, 0.5 * 2**attempt))
            attempt += 1

    def _without_schema_support(self, request: ChatRequest) -> ChatRequest:
        assert request.json_schema is not None
        return replace(request, messages=tuple(with_json_instructions(request.messages, request.json_schema)))

    def _schema_refused(self, request: ChatRequest, response: httpx.Response) -> bool:
        """In ``auto`` mode, switch to prompt-based JSON when the server rejects ``response_format``."""
        if request.json_schema is None or self.structured_output != "auto" or not self.supports_schema:
            return False
        if response.status_code not in (400, 422) or "response_format" not in response.text and "json_schema" not in response.text:
            return False
        with self._schema_lock:
            self.supports_schema = False
        return True

    def _raise_for_status(self, response: httpx.Response) -> None:
        if response.status_code < 400:
            return
        detail = _error_message(response)
        if response.status_code in (401, 403):
            raise LLMUnavailableError(
                f"the LLM server at {self.base_url} refused the credentials ({detail}); set llm.api_key (env NAVICITE_LLM__API_KEY)"
            )
        if response.status_code == 404:
            raise LLMUnavailableError(
                f"the LLM server at {self.base_url} has no chat-completions endpoint or no model {self.model!r} ({detail}); "
                "check llm.base_url (it usually ends in /v1) and llm.model"
            )
        if response.status_code == 400 and "context" in detail.lower():
            raise LLMInputError(f"the prompt is too long for the model at {self.base_url}: {detail}")
        raise LLMError(f"the LLM server at {self.base_url} answered HTTP {response.status_code}: {detail}")


def _sse_events(lines: Iterator[str], server: str) -> Iterator[dict[str, Any]]:
    """The JSON events of a server-sent event stream, up to ``[DONE]``.

    Raises:
        LLMError: an event that is not a JSON object, or an ``error`` event (the server failed mid-reply).
    """
    for line in lines:
        if not line.startswith("data:"):
            continue  # blank separators, comments, keep-alives
        payload = line[len("data:") :].strip()
        if payload == "[DONE]":
            return
        if not payload:
            continue
        try:
            event = json.loads(payload)
        except ValueError:
            event = None
        if not isinstance(event, dict):
            raise LLMError(f"the LLM server at {server} streamed an event that is not JSON: {payload[:200]!r}; "
                           "check llm.base_url and the server's log")
        if event.get("error"):
            error = event["error"]
            message = error.get("message", error) if isinstance(error, dict) else error
            raise LLMError(f"the LLM server at {server} failed while it streamed the reply: {str(message)[:300]}")
        yield event


@contextmanager
def _cut_at_deadline(response: httpx.Response) -> Iterator[None]:
    """Read ``response`` in the block; its connection is shut if the deadline passes meanwhile (a read
    blocked on a dripping or silent server then returns at once, and the caller reports the deadline)."""
    left = deadline.time_left()
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if left is None or not isinstance(sock, socket.socket):
        yield
        return
    timer = threading.Timer(left, _shut, (sock,))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _shut(sock: socket.socket) -> None:
    """Shut a connection from another thread: a read blocked on it returns at once."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed


def _pause(seconds: float) -> None:
    """A retry's backoff, no longer than the deadline leaves (which is then checked by the next attempt)."""
    left = deadline.time_left()
    time.sleep(seconds if left is None else min(seconds, left))


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return min(_MAX_BACKOFF_S, max(0.0, float(value))) if value else None
    except ValueError:
        return None


def _error_message(response: httpx.Response) -> str:
    try:
        error = response.json().get("error")
    except ValueError:
        return response.text[:300]
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error or response.text[:300])
