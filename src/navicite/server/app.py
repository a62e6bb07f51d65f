"""The FastAPI application: API routers under ``/v1``, the web page at ``/``, error mapping.

Chat clients get OpenAI's endpoints under ``/v1`` and Ollama's under ``/api`` (routes/openai_chat.py).

``create_app(settings, engine)`` builds a fresh app around one :class:`Engine`, so
every request shares the same index handle and the same model (the engine's model
limits its own concurrency). Blocking engine work runs in worker threads.
"""

from __future__ import annotations

import mimetypes
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from navicite import __version__
from navicite.api import Collection
from navicite.config import Settings
from navicite.errors import DocumentNotFound, NaviciteError, QuerySyntaxError, UserInputError
from navicite.server.auth import require_key
from navicite.server.routes import ask, documents, library, openai_chat, search, system, trees
from navicite.server.security import RequestGuard
from navicite.server.uploads import UnsupportedUpload, UploadTooLarge

if TYPE_CHECKING:
    from navicite.pipeline import Engine

STATIC_DIR = Path(__file__).resolve().parent / "static"
# The page's scripts are ES modules (pdf.js ships as .mjs); a wrong type with nosniff would block them.
mimetypes.add_type("text/javascript", ".mjs")

#: The page loads only its own script and style, so injected markup could not run code
#: even if some text slipped past the DOM-building code.
_PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def status_of(exc: NaviciteError) -> int:
    """The HTTP status of a navicite error (the chat endpoints answer with it too)."""
    if isinstance(exc, UploadTooLarge):
        return 413
    if isinstance(exc, UnsupportedUpload):
        return 415
    if isinstance(exc, DocumentNotFound):
        return 404
    if isinstance(exc, UserInputError):
        return 400
    from navicite.llm.base import LLMError, LLMInputError, LLMUnavailableError
    from navicite.llm.deadline import DeadlineExceeded

    if isinstance(exc, DeadlineExceeded):
        return 504  # the model did not finish within llm.answer_timeout_s
    if isinstance(exc, LLMUnavailableError):
        return 503
    if isinstance(exc, LLMError) and not isinstance(exc, LLMInputError):
        return 502  # the model server sent a broken reply: a bad gateway, not a fault of this server
    return 500


async def _navicite_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, NaviciteError)
    body: dict[str, Any] = {"detail": str(exc), "error": type(exc).__name__}
    if isinstance(exc, QuerySyntaxError):
        body["position"] = exc.position
    return JSONResponse(body, status_code=status_of(exc))


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    problems = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
    return JSONResponse({"detail": "bad request: " + "; ".join(problems), "error": "ValidationError"}, status_code=422)


def create_app(settings: Settings, engine: Engine | None = None, host: str | None = None) -> FastAPI:
    """The navicite web app for one collection.

    Args:
        settings: the collection's settings (``server`` section: api key, limits, allowed hosts).
        engine: the engine to serve; one is created from ``settings`` when omitted, and then
            closed when the app shuts down (a given engine is its caller's to close).
        host: the address the app is served on (default ``server.host``): the Host names it answers.
    """
    owned = engine is None
    if engine is None:
        from navicite.pipeline import Engine  # imports the retrieval and generation stages

        engine = Engine(settings)
    served = engine

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        if owned:
            served.close()

    app = FastAPI(
        lifespan=lifespan,
        title="navicite",
        version=__version__,
        description="Question answering over a document collection; every factual sentence cites its source.",
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.collection = Collection(engine=engine)  # the routes' one way into the collection
    app.state.write_lock = threading.Lock()
    app.add_exception_handler(NaviciteError, _navicite_error)
    app.add_exception_handler(RequestValidationError, _validation_error)

    app.include_router(system.router, prefix="/v1")
    for module in (ask, search, documents, library, trees, openai_chat):
        app.include_router(module.router, prefix="/v1", dependencies=[Depends(require_key)])
    # Ollama's clients expect its paths at the root of the server, not under /v1.
    app.include_router(openai_chat.ollama_router, prefix="/api", dependencies=[Depends(require_key)])

    app.add_middleware(RequestGuard, settings=settings, bind_host=host)  # Host, origin, size: security.py

    @app.middleware("http")
    async def page_headers(request: Request, call_next: Any) -> Any:
        response = await call_next(request)
        if request.url.path == "/" or request.url.path.startswith("/static/"):
            response.headers.update(_PAGE_HEADERS)
        return response

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app

