"""``GET /v1/health``: liveness, the one endpoint that never needs a key."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from navicite import __version__
from navicite.index import backend_health

router = APIRouter(tags=["system"])


@router.get("/health", summary="Liveness check (no key needed)")
async def health(request: Request) -> dict[str, Any]:
    """``ok`` while the server runs, with the version, whether other endpoints need a key, and the
    index backend's state (a search cluster's green/yellow/red/unreachable: the server keeps
    answering while its cluster is down)."""
    settings = request.app.state.settings
    index = await run_in_threadpool(backend_health, settings)
    return {"status": "ok", "version": __version__, "auth": bool(settings.server.api_key), "index": index}
