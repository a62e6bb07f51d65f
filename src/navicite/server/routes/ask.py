"""``POST /v1/ask``: a cited answer, as one JSON object or as server-sent events."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from navicite.errors import NaviciteError
from navicite.server.links import public_answer
from navicite.server.schemas import AskRequest
from navicite.server.streaming import HEARTBEAT_S, paced

router = APIRouter(tags=["answers"])
log = logging.getLogger(__name__)

def sse_frame(kind: str, data: dict[str, Any]) -> str:
    """One server-sent event; JSON without indentation keeps ``data`` on a single line."""
    return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


def _payload(kind: str, data: dict[str, Any], base: str) -> dict[str, Any]:
    if kind == "answer":
        return public_answer(data["answer"], base).to_dict()
    return data


async def answer_events(events: Iterator[Any], heartbeat_s: float = HEARTBEAT_S, base: str = "") -> AsyncIterator[str]:
    """Engine events as SSE frames (see :func:`navicite.server.streaming.paced`).

    While a stage runs without events (retrieval can take a minute on a busy machine) a
    comment line goes out, so proxies and clients do not take the quiet connection for a
    dead one. A failure after the response has started cannot change the status code any
    more, so it is sent as a final ``error`` event with the reason.
    """
    try:
        async for event in paced(events, heartbeat_s):
            yield ": still working\n\n" if event is None else sse_frame(event.kind, _payload(event.kind, event.data, base))
    except NaviciteError as exc:
        yield sse_frame("error", {"detail": str(exc), "error": type(exc).__name__})
    except Exception as exc:  # the client must learn the answer failed rather than wait forever
        log.exception("streamed answer failed")
        yield sse_frame("error", {"detail": f"internal error ({type(exc).__name__}); see the server log", "error": "InternalError"})


@router.post(
    "/ask",
    summary="Answer a question with cited sentences",
    responses={200: {"content": {"text/event-stream": {}}, "description": "The answer object, or events when stream=true."}},
)
async def ask(body: AskRequest, request: Request) -> Any:
    """Retrieve sources for the question and write an answer whose factual sentences cite them.

    With ``stream=true`` the reply is ``text/event-stream``: ``stage`` events as
    stages finish, ``token`` events with draft text, ``reset`` when the draft is
    rewritten, then one ``answer`` event with the same object the plain request returns
    (or an ``error`` event).
    """
    engine = request.app.state.engine
    if body.stream:
        events = engine.ask_stream(body.question, body.mode, body.doc_ids)
        return StreamingResponse(
            answer_events(events, base=str(request.base_url)),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    answer = await run_in_threadpool(engine.ask, body.question, body.mode, body.doc_ids)
    return public_answer(answer, str(request.base_url)).to_dict()
