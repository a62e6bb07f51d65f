"""Chat endpoints for chat clients: OpenAI's ``/v1/chat/completions`` and ``/v1/models``, Ollama's
``/api/chat`` and ``/api/tags`` (Open WebUI, LibreChat, the ``openai`` package, ...).

The models are navicite's modes: ``navicite`` (mpr), ``navicite-navi``, ``navicite-hybrid`` and ``navicite-auto``.

From a conversation to a question
    The last user message is the question. System messages and earlier answers are not read:
    navicite's own prompts decide how it answers. A last message of fewer than
    ``FOLLOW_UP_WORDS`` words ("And in children?") is read as a follow-up: the most recent
    earlier user message of at least that length is put before it, and the two together are
    what navicite searches for and answers. No model call rewrites the question. Sampling
    options (temperature, max_tokens, ...) are ignored; navicite's settings decide.

The reply
    ``content`` is the cited answer as ``navicite ask`` prints it: the text with its ``[n]``
    markers and a ``⚠`` before each sentence no source supports, then a blank line and the
    citation block (``[n] Title — p. 12, §3.3 — link``), which every client can show. A top-level
    ``citations`` field has the same entries as objects (marker, doc_id, title, pages, section,
    passage_id, quote, and url: the link, opening a PDF at the cited page) for clients that read
    it; ``usage`` counts every model call the answer made.

Streaming
    Clients append deltas and cannot take text back, but the cited text is only known at the
    end: markers go in, unsupported sentences are flagged, a draft may be rewritten. So the
    ``content`` deltas carry only the final cited text, sent paragraph by paragraph once it is
    ready, and a streamed reply's content equals the plain one. Everything before it streams
    at once as ``reasoning_content`` deltas (Ollama: ``message.thinking``): the first matches,
    the sources chosen, the draft as the model writes it, a note when the draft is rewritten.
    Clients that show a model's reasoning (Open WebUI does, as a collapsible block) show this
    progress; others ignore the field. While nothing is ready an SSE comment keeps the
    connection alive (an empty Ollama line). The chunk with ``finish_reason`` carries
    ``citations``; ``stream_options.include_usage`` adds OpenAI's last chunk with ``usage``.
    A failure after the stream began is one ``{"error": {...}}`` frame before ``[DONE]``,
    which the ``openai`` package raises as ``APIError``.

Errors
    OpenAI's shape ``{"error": {"message", "type", "code"}}``: an unknown model is 404; no user
    message, a malformed body or a navicite user error 400 with its one-line message; no model
    configured 503; a missing key 401 (the rule of auth.py, as on every endpoint). Ollama's
    endpoints answer ``{"error": "message"}`` with the same statuses.
"""

from __future__ import annotations

import itertools
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal
from urllib.parse import urlsplit

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.routing import APIRoute
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from navicite.documents import place_label
from navicite.errors import NaviciteError
from navicite.generate.answer import Answer, Citation
from navicite.generate.cite import with_marker
from navicite.generate.render import UNSUPPORTED_SIGN
from navicite.pipeline import Engine, Event, Mode
from navicite.server.links import public_answer
from navicite.server.schemas import ChatCompletionRequest, ChatMessage, OllamaChatRequest
from navicite.server.streaming import HEARTBEAT_S, paced

log = logging.getLogger(__name__)

#: Model id -> the mode that finds the evidence.
MODELS: dict[str, Mode] = {"navicite": "mpr", "navicite-navi": "navi", "navicite-hybrid": "hybrid", "navicite-auto": "auto"}
#: A last user message shorter than this (in words) is read as a follow-up of the previous question.
FOLLOW_UP_WORDS = 8
#: The limit of ``POST /v1/ask``.
MAX_QUESTION_CHARS = 4000
NO_MODEL = "no LLM is configured (llm.backend=none); set llm.backend to 'embedded' or 'openai'"
#: Clients show a model's creation date; the server's start is as true as any.
_CREATED = int(time.time())
_SAFE_SCHEMES = frozenset({"http", "https"})  # file links are replaced by the server's own (links.py)


class ChatError(Exception):
    """A request the chat endpoints refuse, with its HTTP status and OpenAI error code."""

    def __init__(self, status: int, message: str, code: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


# -- errors in the client's shape ------------------------------------------------------------------


def _failure(exc: Exception) -> tuple[int, str, str | None, dict[str, str] | None] | None:
    """(status, message, code, headers) of a failure the client should see in its own error shape."""
    if isinstance(exc, ChatError):
        return exc.status, str(exc), exc.code, None
    if isinstance(exc, RequestValidationError):
        problems = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
        return 400, "bad request: " + "; ".join(problems), "invalid_request", None
    if isinstance(exc, HTTPException):  # the API key check
        code = "invalid_api_key" if exc.status_code == 401 else None
        return exc.status_code, str(exc.detail), code, dict(exc.headers or {}) or None
    if isinstance(exc, NaviciteError):
        from navicite.server.app import status_of  # the app imports this module

        return status_of(exc), str(exc), type(exc).__name__, None
    return None


def openai_error(status: int, message: str, code: str | None = None) -> dict[str, Any]:
    """OpenAI's error body."""
    kind = "authentication_error" if status == 401 else "invalid_request_error" if status < 500 else "server_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def ollama_error(status: int, message: str, code: str | None = None) -> dict[str, Any]:
    """Ollama's error body."""
    return {"error": message}


def _route_class(shape: Callable[[int, str, str | None], dict[str, Any]]) -> type[APIRoute]:
    """An APIRoute whose refusals and failures are answered in ``shape`` rather than navicite's own."""

    class Route(APIRoute):
        def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
            handler = super().get_route_handler()

            async def handle(request: Request) -> Response:
                try:
                    return await handler(request)
                except Exception as exc:
                    failure = _failure(exc)
                    if failure is None:
                        raise
                    status, message, code, headers = failure
                    return JSONResponse(shape(status, message, code), status_code=status, headers=headers)

            return handle

    return Route


router = APIRouter(tags=["chat clients"], route_class=_route_class(openai_error))
ollama_router = APIRouter(tags=["chat clients"], route_class=_route_class(ollama_error))


# -- the conversation, the answer ---------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    """What a chat request asks navicite."""

    model: str
    mode: Mode
    question: str


def read_turn(model: str, messages: list[ChatMessage]) -> Turn:
    """The question and mode of a chat request.

    Raises:
        ChatError: an unknown model (404), no user message or a question too long (400).
    """
    mode = MODELS.get(model)
    if mode is None:
        raise ChatError(404, f"the model {model!r} does not exist; navicite serves {', '.join(MODELS)}", "model_not_found")
    asked = [m.text.strip() for m in messages if m.role == "user"]
    if not asked or not asked[-1]:
        raise ChatError(400, "no question: the conversation has no user message, or the last one is empty", "invalid_request")
    question = asked[-1]
    if len(question.split()) < FOLLOW_UP_WORDS:
        earlier = next((q for q in reversed(asked[:-1]) if len(q.split()) >= FOLLOW_UP_WORDS), None)
        if earlier is not None:
            question = f"{earlier} {question}"
    if len(question) > MAX_QUESTION_CHARS:
        raise ChatError(400, f"the question is {len(question)} characters long; at most {MAX_QUESTION_CHARS} are read",
                        "invalid_request")
    return Turn(model, mode, question)


def reply_text(answer: Answer) -> str:
    """The answer with its markers, unsupported sentences flagged, then the citation block."""
    text = answer.answer
    flagged: list[str] = []
    cursor = 0
    for record in answer.sentences:
        if record.kind != "unsupported":
            continue
        at = text.find(with_marker(record.text, record.markers), cursor)
        if at >= 0:
            flagged += [text[cursor:at], f"{UNSUPPORTED_SIGN} "]
            cursor = at
    body = "".join(flagged) + text[cursor:]
    if answer.unsupported:
        body += (f"\n\n{UNSUPPORTED_SIGN} {len(answer.unsupported)} sentence(s) state facts no source was found "
                 "to support; treat them with care.")
    block = answer.citation_block
    return f"{body}\n\n{block}" if block else body


def page_url(link: str, pages: list[int]) -> str:
    """``link`` opening a PDF at the first cited page; empty for links a client should not follow."""
    if urlsplit(link).scheme.lower() not in _SAFE_SCHEMES:
        return ""
    return f"{link}#page={pages[0]}" if pages and urlsplit(link).path.lower().endswith(".pdf") else link


def citation_object(citation: Citation) -> dict[str, Any]:
    """One entry of the reply's ``citations`` field."""
    return {"marker": citation.marker, "doc_id": citation.doc_id, "title": citation.title, "pages": list(citation.pages),
            "section": citation.section, "passage_id": citation.passage_id, "quote": citation.quote,
            "url": page_url(citation.link, list(citation.pages))}


def usage_of(answer: Answer) -> dict[str, int]:
    """OpenAI's ``usage`` from every model call of the answer (retrieval and navigation included)."""
    prompt, written = int(answer.llm.get("prompt_tokens", 0)), int(answer.llm.get("completion_tokens", 0))
    return {"prompt_tokens": prompt, "completion_tokens": written, "total_tokens": prompt + written}


def _paragraphs(text: str) -> list[str]:
    """``text`` in pieces that join back to it, one paragraph each."""
    parts = text.split("\n\n")
    return [part + "\n\n" for part in parts[:-1]] + [parts[-1]]


def _listed(sources: list[dict[str, Any]]) -> str:
    """One Markdown list line per document (several passages of one are common), with the places read."""
    places: dict[str, list[str]] = {}
    titles: dict[str, str] = {}
    for source in sources:
        key = source.get("doc_id") or source.get("title") or ""
        titles.setdefault(key, source.get("title") or key)
        place = place_label(source.get("pages") or [], source.get("section") or "")
        seen = places.setdefault(key, [])
        if place and place not in seen:
            seen.append(place)
    return "".join(f"- {titles[k]}" + (f" — {'; '.join(p)}" if p else "") + "\n" for k, p in places.items())


def progress_of(event: Event) -> str:
    """What an engine event shows in the reply's reasoning while the answer is made ('' for nothing)."""
    data = event.data
    if event.kind == "sources":
        if data.get("preliminary"):
            return f"First matches, while the question is analysed:\n{_listed(data['sources'])}\n"
        return f"Reading {len(data['sources'])} passages:\n{_listed(data['sources'])}\nDraft:\n"
    if event.kind == "stage":
        return f"{data.get('name', 'stage')}: done in {float(data.get('seconds', 0)):.1f} s\n\n"
    if event.kind == "token":
        return str(data.get("text", ""))
    if event.kind == "reset":
        return "\n\n(the draft is being rewritten)\n\n"
    return ""


@dataclass(frozen=True)
class Piece:
    """One step of a streamed reply, before a client's framing.

    ``wait``: nothing ready yet; ``thinking``: progress text; ``content``: part of the cited reply;
    ``done``: the answer is complete; ``error``: the answer failed (``text`` says why).
    """

    kind: Literal["wait", "thinking", "content", "done", "error"]
    text: str = ""
    answer: Answer | None = None


async def reply_pieces(events: Iterator[Event], base: str, heartbeat_s: float = HEARTBEAT_S) -> AsyncIterator[Piece]:
    """The engine's events as reply pieces (see :func:`navicite.server.streaming.paced`); ``base``: the
    server's address as the client sees it, for the citations' links."""
    try:
        async for event in paced(events, heartbeat_s):
            if event is None:
                yield Piece("wait")
            elif event.kind == "answer":
                answer = public_answer(event.data["answer"], base)
                for part in _paragraphs(reply_text(answer)):
                    yield Piece("content", part)
                yield Piece("done", answer=answer)
            elif text := progress_of(event):
                yield Piece("thinking", text)
    except NaviciteError as exc:
        yield Piece("error", str(exc))
    except Exception as exc:  # the client must learn the answer failed rather than wait forever
        log.exception("streamed chat answer failed")
        yield Piece("error", f"internal error ({type(exc).__name__}); see the server log")


async def _checked_engine(request: Request) -> Engine:
    """The app's engine, once it is sure a model can answer (503 otherwise)."""
    engine: Engine = request.app.state.engine
    llm = await run_in_threadpool(lambda: engine.llm)  # cheap: a backend loads its weights on first call
    if llm.backend == "none":
        raise ChatError(503, NO_MODEL, "model_unavailable")
    return engine


async def _started(engine: Engine, turn: Turn) -> Iterator[Event]:
    """The engine's events for ``turn``, its first one already taken.

    The question and mode are checked when the first event is asked for, so taking it before
    the response starts turns a refused question into a 400 instead of an error mid-stream.
    """
    events = engine.ask_stream(turn.question, turn.mode)  # its steps share one context (Engine.ask_stream)
    first = await run_in_threadpool(next, events, None)
    return itertools.chain([first] if first is not None else [], events)


_STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


# -- OpenAI ------------------------------------------------------------------------------------------


def _models() -> list[dict[str, Any]]:
    return [{"id": name, "object": "model", "created": _CREATED, "owned_by": "navicite"} for name in MODELS]


@router.get("/models", summary="navicite's modes as OpenAI models")
async def list_models() -> dict[str, Any]:
    """``navicite`` answers from retrieval (mpr), ``navicite-navi`` from knowledge trees, ``navicite-hybrid`` from both, ``navicite-auto`` from retrieval widened to a section."""
    return {"object": "list", "data": _models()}


@router.get("/models/{model}", summary="One model", include_in_schema=False)
async def get_model(model: str) -> dict[str, Any]:
    for entry in _models():
        if entry["id"] == model:
            return entry
    raise ChatError(404, f"the model {model!r} does not exist; navicite serves {', '.join(MODELS)}", "model_not_found")


@router.post(
    "/chat/completions",
    summary="OpenAI-compatible chat: the last user message is the question",
    responses={200: {"content": {"text/event-stream": {}}, "description": "A chat.completion, or chat.completion.chunk events when stream=true."}},
)
async def chat_completions(body: ChatCompletionRequest, request: Request) -> Any:
    """A cited answer as an OpenAI chat completion (see the module's notes for the streaming rule)."""
    turn = read_turn(body.model, body.messages)
    engine = await _checked_engine(request)
    reply_id = f"chatcmpl-{uuid.uuid4().hex}"
    if body.stream:
        events = await _started(engine, turn)
        usage = bool((body.stream_options or {}).get("include_usage"))
        return StreamingResponse(_openai_frames(reply_id, turn, events, usage, str(request.base_url)),
                                 media_type="text/event-stream", headers=_STREAM_HEADERS)
    answer = public_answer(await run_in_threadpool(engine.ask, turn.question, turn.mode), str(request.base_url))
    return {
        "id": reply_id, "object": "chat.completion", "created": int(time.time()), "model": turn.model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply_text(answer)}, "finish_reason": "stop"}],
        "usage": usage_of(answer),
        "citations": [citation_object(c) for c in answer.citations],
    }


async def _openai_frames(reply_id: str, turn: Turn, events: Iterator[Event], include_usage: bool, base: str) -> AsyncIterator[str]:
    created = int(time.time())

    def frame(body: dict[str, Any]) -> str:
        return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        return frame({"id": reply_id, "object": "chat.completion.chunk", "created": created, "model": turn.model,
                      "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra})

    yield chunk({"role": "assistant", "content": ""})
    async for piece in reply_pieces(events, base):
        if piece.kind == "wait":
            yield ": still working\n\n"
        elif piece.kind == "thinking":
            yield chunk({"reasoning_content": piece.text})
        elif piece.kind == "content":
            yield chunk({"content": piece.text})
        elif piece.kind == "done" and piece.answer is not None:
            yield chunk({}, "stop", citations=[citation_object(c) for c in piece.answer.citations])
            if include_usage:
                yield frame({"id": reply_id, "object": "chat.completion.chunk", "created": created, "model": turn.model,
                             "choices": [], "usage": usage_of(piece.answer)})
        elif piece.kind == "error":
            yield frame(openai_error(500, piece.text, "answer_failed"))
    yield "data: [DONE]\n\n"


# -- Ollama ------------------------------------------------------------------------------------------


def _ollama_model(name: str) -> str:
    """Ollama clients name a model with its tag (``navicite:latest``); the id is the part before it."""
    return name[: -len(":latest")] if name.endswith(":latest") else name


def _now_iso() -> str:
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


@ollama_router.get("/tags", summary="navicite's modes as Ollama models")
async def ollama_tags() -> dict[str, Any]:
    """The models of ``GET /v1/models`` in Ollama's listing shape."""
    modified = datetime.fromtimestamp(_CREATED, timezone.utc).isoformat().replace("+00:00", "Z")
    details = {"format": "", "family": "navicite", "families": ["navicite"], "parameter_size": "", "quantization_level": ""}
    return {"models": [{"name": f"{name}:latest", "model": f"{name}:latest", "modified_at": modified, "size": 0,
                        "digest": "", "details": details} for name in MODELS]}


@ollama_router.post(
    "/chat",
    summary="Ollama-compatible chat: the last user message is the question",
    openapi_extra={"requestBody": {"content": {"application/json": {"schema": {
        "type": "object", "required": ["messages"],
        "properties": {"model": {"type": "string"}, "messages": {"type": "array"}, "stream": {"type": "boolean", "default": True}},
    }}}}},
    responses={200: {"content": {"application/x-ndjson": {}}, "description": "One JSON object per line while it streams (the default)."}},
)
async def ollama_chat(request: Request) -> Any:
    """A cited answer as Ollama's chat reply; streamed as NDJSON unless ``stream`` is false.

    The body is read as JSON whatever its content type: Ollama does so, and its examples
    (``curl .../api/chat -d '{...}'``) send JSON labelled as a form.
    """
    try:
        body = OllamaChatRequest.model_validate_json(await request.body())
    except ValidationError as exc:
        problems = [f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()]
        raise ChatError(400, "bad request: " + "; ".join(problems), "invalid_request") from None
    turn = read_turn(_ollama_model(body.model), body.messages)
    engine = await _checked_engine(request)
    started = time.perf_counter()
    if body.stream:
        events = await _started(engine, turn)
        return StreamingResponse(_ollama_lines(body.model, events, started, str(request.base_url)),
                                 media_type="application/x-ndjson", headers=_STREAM_HEADERS)
    answer = public_answer(await run_in_threadpool(engine.ask, turn.question, turn.mode), str(request.base_url))
    return _ollama_reply(body.model, {"role": "assistant", "content": reply_text(answer)}, answer, started)


def _ollama_reply(model: str, message: dict[str, Any], answer: Answer, started: float) -> dict[str, Any]:
    usage = usage_of(answer)
    return {"model": model, "created_at": _now_iso(), "message": message, "done": True, "done_reason": "stop",
            "total_duration": int((time.perf_counter() - started) * 1e9),
            "prompt_eval_count": usage["prompt_tokens"], "eval_count": usage["completion_tokens"],
            "citations": [citation_object(c) for c in answer.citations]}


async def _ollama_lines(model: str, events: Iterator[Event], started: float, base: str) -> AsyncIterator[str]:
    def line(body: dict[str, Any]) -> str:
        return json.dumps(body, ensure_ascii=False) + "\n"

    def partial(**message: str) -> str:
        return line({"model": model, "created_at": _now_iso(), "message": {"role": "assistant", "content": "", **message},
                     "done": False})

    async for piece in reply_pieces(events, base):
        if piece.kind == "wait":
            yield partial()
        elif piece.kind == "thinking":
            yield partial(thinking=piece.text)
        elif piece.kind == "content":
            yield partial(content=piece.text)
        elif piece.kind == "done" and piece.answer is not None:
            yield line(_ollama_reply(model, {"role": "assistant", "content": ""}, piece.answer, started))
        elif piece.kind == "error":
            yield line({"error": piece.text})
