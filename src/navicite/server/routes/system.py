"""``GET /v1/health``: liveness, the one endpoint that never needs a key."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from navicite import __version__

router = APIRouter(tags=["system"])


@router.get("/health", summary="Liveness check (no key needed)")
async def health(request: Request) -> dict[str, Any]:
    """``ok`` while the server runs, with the version and whether other endpoints need a key."""
    return {"status": "ok", "version": __version__, "auth": bool(request.app.state.settings.server.api_key)}
