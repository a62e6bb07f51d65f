"""A misbehaving model server, driven through the real ``navicite`` CLI and the real ``openai`` client.

The model server is a small OpenAI-compatible HTTP server of this file's own (a real socket
server in a thread) that fails in one chosen way: it hangs, drips one byte at a time, sends
garbage or an empty ``choices`` list, answers HTTP 500, or closes the connection mid-stream.
``navicite ask`` runs as a subprocess against it; its answer must never be a fake one: one
line on stderr naming the problem, a non-zero exit, within the answer's deadline
(``llm.answer_timeout_s``). The chat endpoint of a running ``navicite serve`` must answer such
a failure with an error status the ``openai`` package raises, never with a made-up answer.

Timeouts are set short through settings (seconds, not the minutes of the defaults).
"""

from __future__ import annotations

import json
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

#: The fake model's one sentence when it is asked to work (``ok``).
SENTENCE = "Folic acid lowers the blood level of homocysteine."


# -- the fake model server ---------------------------------------------------------------------------


class FakeModelServer:
    """An OpenAI-compatible chat server on a loopback port that fails in the way ``fault`` names.

    ``ok``: answers every request with :data:`SENTENCE` (the control); ``hang``: reads the request and never answers; ``drip``: sends the headers, then one byte
    every ``drip_s`` seconds; ``garbage``: a 200 reply that is not JSON (streams: ``data:`` lines
    that are not JSON); ``empty``: a well-formed reply whose ``choices`` is empty;
    ``error500``: HTTP 500 with an OpenAI error body; ``close``: a stream that starts and then
    the connection is cut (a whole reply: the connection is cut before the promised body ends).
    """

    def __init__(self, fault: str, drip_s: float = 0.5) -> None:
        self.fault = fault
        self.drip_s = drip_s
        self.requests = 0
        self.stopping = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                owner.requests += 1
                owner.answer(self, bool(body.get("stream")))

            def do_GET(self) -> None:
                self._send(200, json.dumps({"data": [{"id": "fake"}]}).encode(), "application/json")

            def _send(self, status: int, payload: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.handler = Handler
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeModelServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()

    # -- the faults ---------------------------------------------------------------------------------

    def answer(self, handler: BaseHTTPRequestHandler, stream: bool) -> None:
        fault = self.fault
        try:
            if fault == "ok":
                self._ok(handler, stream)
            elif fault == "hang":
                self.stopping.wait(120)
            elif fault == "drip":
                self._drip(handler, stream)
            elif fault == "garbage":
                if stream:
                    self._stream(handler, [b"data: {this is not json\n\n", b"data: <html>oops</html>\n\n", b"data: [DONE]\n\n"])
                else:
                    self._whole(handler, 200, b"<html><body>502 upstream garbage {{{</body></html>", "application/json")
            elif fault == "empty":
                reply = {"id": "x", "object": "chat.completion", "choices": [], "usage": {"prompt_tokens": 1}}
                if stream:
                    chunk = {"id": "x", "object": "chat.completion.chunk", "choices": []}
                    self._stream(handler, [f"data: {json.dumps(chunk)}\n\n".encode(), b"data: [DONE]\n\n"])
                else:
                    self._whole(handler, 200, json.dumps(reply).encode(), "application/json")
            elif fault == "error500":
                error = {"error": {"message": "the model crashed", "type": "server_error"}}
                self._whole(handler, 500, json.dumps(error).encode(), "application/json")
            elif fault == "close":
                self._cut(handler, stream)
        except (BrokenPipeError, ConnectionResetError):
            pass

    @staticmethod
    def _whole(handler: BaseHTTPRequestHandler, status: int, payload: bytes, kind: str) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    @staticmethod
    def _stream(handler: BaseHTTPRequestHandler, frames: list[bytes]) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Connection", "close")
        handler.end_headers()
        for frame in frames:
            handler.wfile.write(frame)
            handler.wfile.flush()
        handler.close_connection = True

    def _ok(self, handler: BaseHTTPRequestHandler, stream: bool) -> None:
        if stream:
            words = SENTENCE.split(" ")
            chunks = [{"choices": [{"index": 0, "delta": {"content": word if at == 0 else f" {word}"}}]}
                      for at, word in enumerate(words)]
            chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            self._stream(handler, [f"data: {json.dumps(c)}\n\n".encode() for c in chunks] + [b"data: [DONE]\n\n"])
        else:
            reply = {"choices": [{"index": 0, "message": {"role": "assistant", "content": SENTENCE}, "finish_reason": "stop"}],
                     "usage": {"prompt_tokens": 10, "completion_tokens": 8}}
            self._whole(handler, 200, json.dumps(reply).encode(), "application/json")

    def _drip(self, handler: BaseHTTPRequestHandler, stream: bool) -> None:
        piece = {"choices": [{"index": 0, "delta": {"content": "Folic acid lowers homocysteine."}}]}
        payload = (f"data: {json.dumps(piece)}\n\ndata: [DONE]\n\n" if stream else
                   json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}]})).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream" if stream else "application/json")
        handler.send_header("Content-Length", str(len(payload) * 1000))  # never finishes
        handler.end_headers()
        handler.wfile.flush()
        for at in range(len(payload) * 1000):
            if self.stopping.wait(self.drip_s):
                return
            handler.wfile.write(payload[at % len(payload) : at % len(payload) + 1])
            handler.wfile.flush()

    @staticmethod
    def _cut(handler: BaseHTTPRequestHandler, stream: bool) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream" if stream else "application/json")
        handler.send_header("Content-Length", "100000")  # promised, never sent
        handler.end_headers()
        if stream:
            piece = {"choices": [{"index": 0, "delta": {"content": "Folic acid"}}]}
            handler.wfile.write(f"data: {json.dumps(piece)}\n\n".encode())
        else:
            handler.wfile.write(b'{"choices": [{"index": 0, "message": {"role": "assis')
        handler.wfile.flush()
        handler.connection.shutdown(socket.SHUT_RDWR)
        handler.close_connection = True


@pytest.fixture
def model_server() -> Iterator[type[FakeModelServer]]:
    """The fake server class (tests start it with ``with model_server(fault) as server``)."""
    yield FakeModelServer


# -- the CLI against it ----------------------------------------------------------------------------------


def model_settings(url: str, *extra: str) -> tuple[str, ...]:
    """Settings for the fake model at ``url``: short timeouts, no retries, no cache, no embedder to load."""
    return (f"llm.base_url={url}", "llm.backend=openai", "llm.model=fake", "llm.retries=0", "llm.cache=false",
            "llm.timeout_s=2", "llm.answer_timeout_s=4", "rerank.backend=none", *extra)


QUESTION = "Does folic acid lower homocysteine?"


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def _assert_one_line_failure(done: subprocess.CompletedProcess[str], *words: str) -> str:
    """A non-zero exit, no answer on stdout, and one line on stderr that starts with 'error:'."""
    lines = _lines(done.stderr)
    assert done.returncode != 0, f"exit 0 for a failed model; stdout: {done.stdout!r}"
    assert not done.stdout.strip(), done.stdout
    assert len(lines) == 1 and lines[0].startswith("error:"), done.stderr[-3000:]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


Cli = Callable[..., tuple[subprocess.CompletedProcess[str], float]]


@pytest.mark.slow
def test_a_hanging_server_is_stopped_at_the_answer_deadline(small_collection: Path, model_server: type[FakeModelServer],
                                                             cli: Cli) -> None:
    """Each call of an answer may wait ``llm.timeout_s`` (3 s here): the whole answer still ends at
    ``llm.answer_timeout_s`` (4 s), where before it took a full timeout per call and passed off the
    keyword analysis's timeout as a fallback."""
    with model_server("hang") as server:
        done, seconds = cli(small_collection, "ask", QUESTION,
                            settings=model_settings(server.url, "llm.timeout_s=3", "retrieve.analysis=llm"))
    _assert_one_line_failure(done, "llm.answer_timeout_s")
    assert server.requests >= 1
    # Start-up (imports, the index) takes a few seconds on a busy machine; two full timeouts would be 6 s.
    assert seconds < 4 + 15, seconds


@pytest.mark.slow
@pytest.mark.parametrize("analysis", ["llm", "statistical"])
def test_a_dripping_server_is_stopped_at_the_answer_deadline(small_collection: Path, model_server: type[FakeModelServer],
                                                              cli: Cli, analysis: str) -> None:
    """One byte every 0.5 s never trips the per-read timeout (2 s); the answer's deadline (4 s) still ends it,
    whether the drip is a whole reply (the keyword analysis) or a stream (the draft, with no analysis call)."""
    with model_server("drip", drip_s=0.5) as server:
        done, seconds = cli(small_collection, "ask", QUESTION,
                            settings=model_settings(server.url, f"retrieve.analysis={analysis}"))
    _assert_one_line_failure(done, "llm.answer_timeout_s", server.url)
    assert seconds < 4 + 15, seconds


@pytest.mark.slow
@pytest.mark.parametrize("fault", ["garbage", "empty", "error500", "close"])
def test_a_broken_reply_is_one_line_and_a_failure_not_an_answer(
    small_collection: Path, model_server: type[FakeModelServer], cli: Cli, fault: str
) -> None:
    """Garbage and an empty ``choices`` list used to end as exit 0 with "The sources do not answer this
    question."; a connection cut mid-stream as a 98-line ``httpx.RemoteProtocolError`` traceback."""
    with model_server(fault) as server:
        done, _ = cli(small_collection, "ask", QUESTION, settings=model_settings(server.url))
    _assert_one_line_failure(done, server.url)


@pytest.mark.slow
def test_the_fake_model_answers_when_it_works(small_collection: Path, model_server: type[FakeModelServer], cli: Cli) -> None:
    """The control: the same settings and server, not failing, give an answer (the faults above are the server's)."""
    with model_server("ok") as server:
        done, _ = cli(small_collection, "ask", "--json", QUESTION, settings=model_settings(server.url))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "homocysteine" in json.loads(done.stdout)["answer"]


@pytest.mark.slow
def test_an_undecodable_question_byte_is_replaced_not_a_traceback(
    small_collection: Path, model_server: type[FakeModelServer], cli: Cli
) -> None:
    """``ask $'folic acid \\xff homocysteine?'`` (the byte reaches Python as a lone surrogate) printed a
    114-line traceback from the embedder; now the byte is replaced and the answer is made."""
    with model_server("ok") as server:
        done, _ = cli(small_collection, "ask", "--json", "folic acid \udcff homocysteine?",
                      settings=model_settings(server.url, "rerank.backend=hybrid", "llm.answer_timeout_s=120"))
    assert done.returncode == 0, done.stderr[-3000:]
    answer = json.loads(done.stdout)
    assert answer["question"] == "folic acid ? homocysteine?"
    assert "homocysteine" in answer["answer"]


# -- the chat endpoint of a running server against it ---------------------------------------------------


@pytest.mark.slow
def test_the_chat_endpoint_answers_a_model_failure_with_an_error_status(
    small_collection: Path, model_server: type[FakeModelServer], served: Any
) -> None:
    """The ``openai`` package against ``navicite serve`` whose model sends garbage, then nothing, then drips:
    an error status it raises (502/504), never a made-up answer; streamed, the error frame it raises."""
    openai = pytest.importorskip("openai")
    question = [{"role": "user", "content": QUESTION}]
    with model_server("garbage") as server, served(small_collection, *model_settings(server.url)) as navicite:
        client = openai.OpenAI(base_url=f"{navicite.url}/v1", api_key="unused", max_retries=0, timeout=60)
        for fault, status in (("garbage", 502), ("empty", 502), ("drip", 504)):
            server.fault = fault
            with pytest.raises(openai.APIStatusError) as raised:
                client.chat.completions.create(model="navicite", messages=question)
            assert raised.value.status_code == status, (fault, raised.value)
            assert server.url in raised.value.message and "\n" not in raised.value.message.strip()
            with pytest.raises(openai.APIError):  # streamed: the error frame, which the package raises
                for _ in client.chat.completions.create(model="navicite", messages=question, stream=True):
                    pass


@pytest.mark.slow
def test_a_lone_surrogate_in_a_chat_question_is_replaced(
    small_collection: Path, model_server: type[FakeModelServer], served: Any
) -> None:
    """A JSON ``"\\ud800"`` in the question used to be a plain-text 500 (a TypeError in the embedder)."""
    body = '{"model": "navicite", "messages": [{"role": "user", "content": "folic acid \\ud800 homocysteine?"}]}'
    with model_server("ok") as server, \
            served(small_collection, *model_settings(server.url, "rerank.backend=hybrid", "llm.answer_timeout_s=120")) as navicite:
        reply = httpx.post(f"{navicite.url}/v1/chat/completions", content=body,
                           headers={"Content-Type": "application/json"}, timeout=60)
        searched = httpx.post(f"{navicite.url}/v1/search", content='{"query": "folic \\ud800 acid"}',
                              headers={"Content-Type": "application/json"}, timeout=60)
    assert reply.status_code == 200, reply.text[:500]
    assert "homocysteine" in reply.json()["choices"][0]["message"]["content"]
    assert searched.status_code == 200 and searched.json()["hits"], searched.text[:500]
