"""The chat-client endpoints through the real ``openai`` package against a running server.

uvicorn serves the app in a thread on a free loopback port over the bundled sample. The model
is scripted and stateless (so concurrent requests cannot take each other's answers): the draft
is the first sentence of source 1 and the alignment cites source 1 for every sentence, which
the lexical verifier accepts. The real model's turn is in
tests/integration/test_openai_chat_real.py.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import openai
import pytest
import uvicorn

from navicite.config import load_settings
from navicite.generate.answer import Answer, Citation, SentenceRecord
from navicite.llm.base import Message
from navicite.llm.scripted import ScriptedLLM
from navicite.pipeline import Engine
from navicite.server import create_app
from navicite.errors import UserInputError
from navicite.pipeline import Event
from navicite.server.routes.openai_chat import Turn, _openai_frames, page_url, read_turn, reply_pieces, reply_text
from navicite.server.schemas import ChatMessage

QUESTION = "Does folic acid supplementation lower blood homocysteine levels?"
_SOURCE_1 = re.compile(r'<source id="1">\n(?:Title: [^\n]*\n)?(.+?)\n</source>', re.S)


def scripted_model(messages: list[Message]) -> Any:
    """Alignment: every sentence cites source 1; draft: source 1's first sentence; anything else unusable."""
    text = "\n".join(m.content for m in messages)
    if "An answer was written from these sources" in text:
        count = int(re.search(r"all (\d+) of them", text).group(1))
        return {"sentences": [{"index": i, "kind": "fact", "sources": [1]} for i in range(1, count + 1)]}
    found = _SOURCE_1.search(text)
    if found:
        return re.split(r"(?<=\.)\s", found.group(1).strip(), maxsplit=1)[0]
    return "not json"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Served:
    """An app served by uvicorn in a thread until ``stop``."""

    def __init__(self, app: Any) -> None:
        self.url = f"http://127.0.0.1:{_free_port()}"
        port = int(self.url.rsplit(":", 1)[1])
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "uvicorn did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


@pytest.fixture(scope="module")
def settings(sample_settings):
    """The session's sample collection, read only, with the lexical verifier (no judge calls)."""
    return load_settings(sample_settings.home, ["llm.backend=none", "generate.verifier=lexical", "rerank.backend=none"])


@pytest.fixture(scope="module")
def served(settings) -> Iterator[Served]:
    engine = Engine(settings, llm=ScriptedLLM(default=scripted_model, concurrency=4))
    server = Served(create_app(settings, engine))
    yield server
    server.stop()
    engine.close()


@pytest.fixture(scope="module")
def client(served: Served) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{served.url}/v1", api_key="anything", max_retries=0, timeout=120)


def check_reply(content: str, citations: list[dict[str, Any]]) -> None:
    """The content is the cited answer, then a blank line and the citation block; every [n] is a citation."""
    assert citations, content
    body, block = content.rsplit("\n\n", 1)
    markers = {c["marker"] for c in citations}
    assert {int(n) for n in re.findall(r"\[(\d+)\]", body)} <= markers and re.search(r"\[\d+\]", body)
    assert [int(re.match(r"\[(\d+)\] ", line).group(1)) for line in block.splitlines()] == sorted(markers)
    for c in citations:
        assert c["doc_id"] and c["passage_id"] and c["title"] and c["quote"]
        assert set(c) >= {"marker", "doc_id", "title", "pages", "section", "passage_id", "quote", "url"}


def test_models_are_listed(client: openai.OpenAI) -> None:
    models = client.models.list()
    assert [m.id for m in models.data] == ["navicite", "navicite-navi", "navicite-hybrid", "navicite-auto"]
    assert all(m.owned_by == "navicite" and m.object == "model" for m in models.data)
    assert client.models.retrieve("navicite-hybrid").id == "navicite-hybrid"


def test_plain_completion_carries_the_cited_answer_and_its_citations(client: openai.OpenAI) -> None:
    reply = client.chat.completions.create(model="navicite", messages=[
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": QUESTION},
    ])
    assert reply.object == "chat.completion" and reply.model == "navicite"
    choice = reply.choices[0]
    assert choice.finish_reason == "stop" and choice.message.role == "assistant"
    citations = reply.model_extra["citations"]
    check_reply(choice.message.content, citations)
    assert reply.usage.prompt_tokens > 0 and reply.usage.total_tokens == reply.usage.prompt_tokens + reply.usage.completion_tokens


def test_streamed_completion_shows_progress_as_reasoning_then_the_same_cited_answer(client: openai.OpenAI) -> None:
    messages = [{"role": "user", "content": QUESTION}]
    plain = client.chat.completions.create(model="navicite", messages=messages)
    stream = client.chat.completions.create(model="navicite", messages=messages, stream=True,
                                            stream_options={"include_usage": True})
    content, reasoning, citations, usage, finish = "", "", None, None, None
    roles = []
    for chunk in stream:
        assert chunk.object == "chat.completion.chunk"
        if chunk.usage is not None:
            usage = chunk.usage
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        if delta.role:
            roles.append(delta.role)
        assert not (delta.content and reasoning == ""), "the cited answer came before any progress"
        content += delta.content or ""
        reasoning += (delta.model_extra or {}).get("reasoning_content") or ""
        if chunk.choices[0].finish_reason:
            finish = chunk.choices[0].finish_reason
            citations = chunk.model_extra["citations"]
    assert roles == ["assistant"] and finish == "stop"
    assert reasoning.startswith("First matches") and "Reading" in reasoning and "Draft:" in reasoning
    assert content == plain.choices[0].message.content  # the streamed reply is the plain one
    check_reply(content, citations)
    assert usage is not None and usage.completion_tokens > 0


def test_raw_stream_is_openai_sse_ending_with_done(served: Served) -> None:
    body = {"model": "navicite", "messages": [{"role": "user", "content": QUESTION}], "stream": True}
    with httpx.stream("POST", f"{served.url}/v1/chat/completions", json=body, timeout=120) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        frames = [f for f in response.read().decode().split("\n\n") if f and not f.startswith(":")]
    assert all(f.startswith("data: ") for f in frames) and frames[-1] == "data: [DONE]"
    first = json.loads(frames[0][6:])
    assert first["choices"][0]["delta"] == {"role": "assistant", "content": ""}


def test_unknown_model_is_not_found(client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": QUESTION}])
    error = caught.value.body
    assert error["code"] == "model_not_found" and "navicite" in error["message"] and error["type"]


@pytest.mark.parametrize("messages", [[], [{"role": "system", "content": "Be brief."}], [{"role": "user", "content": "  "}]])
def test_no_question_is_a_bad_request(client: openai.OpenAI, messages: list[dict[str, str]]) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="navicite", messages=messages)
    assert "no question" in caught.value.body["message"]


def test_refusals_have_openai_error_shape(served: Served) -> None:
    malformed = httpx.post(f"{served.url}/v1/chat/completions", json={"messages": "hello"})
    assert malformed.status_code == 400 and set(malformed.json()["error"]) >= {"message", "type", "code"}
    # A navicite user error keeps its one-line message; streamed requests are refused before the stream starts.
    navi = {"model": "navicite-navi", "messages": [{"role": "user", "content": QUESTION}]}
    for stream in (False, True):
        reply = httpx.post(f"{served.url}/v1/chat/completions", json={**navi, "stream": stream})
        assert reply.status_code == 400 and "navicite tree build" in reply.json()["error"]["message"]


def test_five_completions_at_once(client: openai.OpenAI) -> None:
    questions = [QUESTION, "What is the effect of vitamin D on fracture risk in older adults?",
                 "How many seed words are used to learn the polarity of affective events?",
                 "Does folic acid lower homocysteine?", QUESTION]

    def ask(i: int) -> tuple[str, list[dict[str, Any]]]:
        messages = [{"role": "user", "content": questions[i]}]
        if i % 2:
            text = "".join(c.choices[0].delta.content or "" for c in client.chat.completions.create(
                model="navicite", messages=messages, stream=True) if c.choices)
            return text, []
        reply = client.chat.completions.create(model="navicite", messages=messages)
        return reply.choices[0].message.content, reply.model_extra["citations"]

    with ThreadPoolExecutor(5) as pool:
        replies = list(pool.map(ask, range(5)))
    for content, citations in replies:
        assert re.search(r"\[\d+\]", content)
        if citations:
            check_reply(content, citations)


def test_a_key_is_required_when_set(settings) -> None:
    keyed = load_settings(settings.home, ["llm.backend=none", "server.api_key=s3cret"])
    server = Served(create_app(keyed, Engine(keyed, llm=ScriptedLLM(default=scripted_model))))
    try:
        with pytest.raises(openai.AuthenticationError):
            openai.OpenAI(base_url=f"{server.url}/v1", api_key="wrong", max_retries=0).models.list()
        assert openai.OpenAI(base_url=f"{server.url}/v1", api_key="s3cret", max_retries=0).models.list().data
        assert httpx.get(f"{server.url}/api/tags").status_code == 401
    finally:
        server.stop()


def test_without_a_model_the_answer_is_503(settings) -> None:
    server = Served(create_app(settings, Engine(settings)))  # llm.backend=none
    try:
        unplugged = openai.OpenAI(base_url=f"{server.url}/v1", api_key="x", max_retries=0)
        for stream in (False, True):
            with pytest.raises(openai.InternalServerError) as caught:
                unplugged.chat.completions.create(model="navicite", messages=[{"role": "user", "content": QUESTION}],
                                                  stream=stream)
            assert caught.value.status_code == 503 and "llm.backend" in caught.value.body["message"]
    finally:
        server.stop()


def test_ollama_chat_streams_ndjson_and_lists_tags(served: Served) -> None:
    tags = httpx.get(f"{served.url}/api/tags").json()
    assert [m["name"] for m in tags["models"]] == ["navicite:latest", "navicite-navi:latest", "navicite-hybrid:latest", "navicite-auto:latest"]
    body = {"model": "navicite:latest", "messages": [{"role": "user", "content": QUESTION}]}
    with httpx.stream("POST", f"{served.url}/api/chat", json=body, timeout=120) as response:
        assert response.headers["content-type"].startswith("application/x-ndjson")
        lines = [json.loads(line) for line in response.iter_lines() if line]
    assert not any(line["done"] for line in lines[:-1]) and lines[-1]["done"]
    content = "".join(line["message"]["content"] for line in lines)
    assert any(line["message"].get("thinking") for line in lines)
    check_reply(content, lines[-1]["citations"])
    plain = httpx.post(f"{served.url}/api/chat", json={**body, "stream": False}, timeout=120).json()
    assert plain["done"] and plain["message"]["content"] == content
    missing = httpx.post(f"{served.url}/api/chat", json={"model": "llama3", "messages": body["messages"]})
    assert missing.status_code == 404 and "navicite" in missing.json()["error"]


# -- the pieces, without a server ------------------------------------------------------------------


def _turn(*texts: str) -> str:
    """The question of a conversation whose turns alternate user, assistant, user, ..."""
    messages = [ChatMessage(role="assistant" if i % 2 else "user", content=t) for i, t in enumerate(texts)]
    return read_turn("navicite", messages).question


def test_a_short_follow_up_is_read_with_the_last_full_question() -> None:
    assert _turn(QUESTION) == QUESTION
    assert _turn(QUESTION, "Yes, it does [1].", "And in children?") == f"{QUESTION} And in children?"
    # A follow-up of a follow-up still refers to the last full question.
    assert _turn(QUESTION, "...", "And in children?", "...", "In adults?") == f"{QUESTION} In adults?"
    long_follow_up = "What about the effect of vitamin B12 on homocysteine levels?"
    assert _turn(QUESTION, "...", long_follow_up) == long_follow_up
    parts = ChatMessage(role="user", content=[{"type": "text", "text": "Why?"}, {"type": "image_url", "image_url": {}}])
    assert read_turn("navicite-hybrid", [parts]).question == "Why?"


def test_reply_text_flags_unsupported_sentences_and_ends_with_the_block() -> None:
    answer = Answer(
        question="q", answer="Water boils at 100 C [1]. It boils faster on Mars.",
        citations=[Citation(1, "d1", "Boiling", "/papers/boil.pdf", "passage", "d1#p1", [12], "3.3 Heat", "Water boils.")],
        sentences=[SentenceRecord("Water boils at 100 C.", "cited", [1]), SentenceRecord("It boils faster on Mars.", "unsupported")],
        language="en",
    )
    text = reply_text(answer)
    assert text.startswith("Water boils at 100 C [1]. ⚠ It boils faster on Mars.")
    assert text.endswith("\n\n[1] Boiling — p. 12, §3.3 Heat — /papers/boil.pdf")


def test_page_urls_open_pdfs_at_the_page_and_drop_unsafe_links() -> None:
    assert page_url("https://example.org/papers/a.pdf", [12, 13]) == "https://example.org/papers/a.pdf#page=12"
    assert page_url("file:///papers/a.pdf", [12]) == ""  # a path on the server's disk (links.py gives its route)
    assert page_url("https://example.org/a", [3]) == "https://example.org/a"
    assert page_url("javascript:alert(1)", []) == ""
    assert page_url("", [2]) == ""


def test_ollama_reads_json_sent_as_a_form_as_its_curl_examples_do(served: Served) -> None:
    body = json.dumps({"model": "navicite", "stream": False, "messages": [{"role": "user", "content": QUESTION}]})
    reply = httpx.post(f"{served.url}/api/chat", content=body, timeout=120,
                       headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert reply.status_code == 200 and reply.json()["done"]
    broken = httpx.post(f"{served.url}/api/chat", content="{not json")
    assert broken.status_code == 400 and broken.json()["error"].startswith("bad request")


def _collect(stream: Any) -> list[Any]:
    async def run() -> list[Any]:
        return [item async for item in stream]

    return asyncio.run(run())


def test_quiet_stages_are_waits_and_a_failure_is_the_last_piece() -> None:
    def events() -> Iterator[Event]:
        time.sleep(0.35)
        yield Event("token", {"text": "Folic"})
        raise UserInputError("no document in the collection matches this question")

    pieces = _collect(reply_pieces(events(), "http://localhost/", heartbeat_s=0.1))
    assert [p.kind for p in pieces].count("wait") >= 2
    assert [(p.kind, p.text) for p in pieces if p.kind != "wait"] == [
        ("thinking", "Folic"), ("error", "no document in the collection matches this question")]


def test_a_failure_mid_stream_is_an_openai_error_frame_before_done() -> None:
    def events() -> Iterator[Event]:
        raise RuntimeError("secret path /home/x")
        yield  # pragma: no cover

    frames = _collect(_openai_frames("chatcmpl-1", Turn("navicite", "mpr", "q"), events(), include_usage=False,
                                     base="http://localhost/"))
    assert frames[-1] == "data: [DONE]\n\n"
    error = json.loads(frames[-2][len("data: "):])["error"]
    assert error["type"] == "server_error" and "secret" not in error["message"]
