"""``POST /v1/ask`` without a model: request checks, SSE framing and errors as events.

Answers from the real model are tested in tests/integration/test_server_api.py.
"""

from __future__ import annotations

import asyncio
import json
import time

from navicite.errors import UserInputError
from navicite.generate.answer import Answer, Citation, SentenceRecord
from navicite.pipeline import Event
from navicite.server.routes.ask import answer_events


def parse_sse(text: str) -> list[tuple[str, dict]]:
    """(event, data) pairs of a text/event-stream body."""
    out = []
    for frame in text.strip().split("\n\n"):
        if frame.startswith(":"):
            continue  # a keep-alive comment
        lines = dict(line.split(": ", 1) for line in frame.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def stream_text(events, heartbeat_s: float = 15.0) -> str:
    async def run() -> str:
        return "".join([frame async for frame in answer_events(events, heartbeat_s)])

    return asyncio.run(run())


def collect(events) -> list[tuple[str, dict]]:
    return parse_sse(stream_text(events))


def test_events_become_frames_with_the_answer_object_last():
    answer = Answer(
        question="q",
        answer="Water boils at 100 C [1].\nline two",
        citations=[Citation(1, "d1", "Boiling", "https://example.org", "Water boils at 100 C at sea level.")],
        sentences=[SentenceRecord("Water boils at 100 C.", "cited", [1], 0.9)],
        language="en",
    )
    events = iter([Event("stage", {"name": "retrieve", "seconds": 0.1}), Event("token", {"text": "Water\n\nboils"}),
                   Event("reset"), Event("answer", {"answer": answer})])
    frames = collect(events)
    assert [kind for kind, _ in frames] == ["stage", "token", "reset", "answer"]
    assert frames[1][1] == {"text": "Water\n\nboils"}  # newlines inside data survive the framing
    assert frames[3][1] == answer.to_dict()


def test_quiet_stages_send_keep_alive_comments():
    def slow():
        time.sleep(0.35)
        yield Event("stage", {"name": "retrieve"})
        time.sleep(0.35)
        yield Event("token", {"text": "done"})

    text = stream_text(slow(), heartbeat_s=0.1)
    assert text.count(": still working") >= 4
    assert [kind for kind, _ in parse_sse(text)] == ["stage", "token"]


def test_failure_mid_stream_is_an_error_event():
    def events():
        yield Event("stage", {"name": "retrieve"})
        raise UserInputError("no document in the collection matches this question")

    frames = collect(events())
    assert frames[-1] == ("error", {"detail": "no document in the collection matches this question", "error": "UserInputError"})


def test_unexpected_failure_is_reported_without_internals():
    def events():
        raise RuntimeError("secret path /home/x")
        yield  # pragma: no cover

    kind, data = collect(events())[-1]
    assert kind == "error" and data["error"] == "InternalError" and "secret" not in data["detail"]


def test_without_a_model_the_answer_is_503_and_the_stream_ends_with_an_error(client):
    plain = client.post("/v1/ask", json={"question": "Does folic acid lower homocysteine?"})
    assert plain.status_code == 503 and "llm.backend" in plain.json()["detail"]
    streamed = client.post("/v1/ask", json={"question": "Does folic acid lower homocysteine?", "stream": True})
    assert streamed.headers["content-type"].startswith("text/event-stream")
    frames = parse_sse(streamed.text)
    assert frames[0][0] == "sources" and frames[0][1]["preliminary"] and frames[0][1]["sources"]  # the first matches
    assert frames[1][0] == "stage" and frames[1][1]["analysis"]["primary"]
    assert frames[-1][0] == "error" and "llm.backend" in frames[-1][1]["detail"]


def test_question_checks(client):
    assert client.post("/v1/ask", json={"question": ""}).status_code == 422
    assert client.post("/v1/ask", json={"question": "x", "mode": "magic"}).status_code == 422
    assert client.post("/v1/ask", json={"question": "   "}).status_code == 400


def test_navi_mode_without_trees_is_a_clear_400(client):
    reply = client.post("/v1/ask", json={"question": "What does the paper find?", "mode": "navi"})
    assert reply.status_code == 400
    assert "navicite tree build" in reply.json()["detail"]
    unknown = client.post("/v1/ask", json={"question": "What?", "mode": "navi", "doc_ids": ["no-such-doc"]})
    assert unknown.status_code in (400, 404) and "no-such-doc" in unknown.json()["detail"]
