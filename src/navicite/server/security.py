"""What a request must pass before any route sees it: its Host, its origin, its size, its content type.

``navicite serve`` usually runs on the user's own machine, where any web page the user opens can
make the browser send requests to it. :class:`RequestGuard` (pure ASGI, so it also sees bodies
as they stream in) refuses:

- a ``Host`` that is not one of the server's own names (421): a page on ``attacker.example``
  whose name is made to resolve to 127.0.0.1 (DNS rebinding) would otherwise read the
  collection. Allowed: loopback names and addresses, the bound address (any IP address when
  bound to all interfaces), and ``server.allowed_hosts``.
- a state-changing request (POST, PUT, PATCH, DELETE) from another origin (403): the browser's
  ``Sec-Fetch-Site`` is ``cross-site`` or ``same-site``, or its ``Origin`` differs from the
  server's own (an allowed host counts as own, for a reverse proxy). Clients that are not
  browsers send neither header and pass.
- a JSON route's body sent as ``text/plain`` or ``multipart/form-data`` (415), the types a
  page can send cross-site without asking first; uploads (``/v1/documents``) are multipart.
- a body larger than ``server.max_body_kb`` (uploads: ``server.max_upload_mb``) with 413, from
  its ``Content-Length`` before reading, or as soon as a streamed body passes the limit.

The API key (auth.py) is checked after this, by the routes.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from navicite.config import Settings
from navicite.server.auth import is_loopback

#: Methods that change something; the others only read.
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: Paths whose bodies are uploads: multipart, limited by ``server.max_upload_mb``.
UPLOAD_PREFIX = "/v1/documents"
#: Content types a page on another origin can send without a preflight, which a JSON route never takes.
_FORM_TYPES = ("text/plain", "multipart/form-data")
#: Room for a multipart body's framing around the files.
_UPLOAD_FRAMING = 1 << 20


def host_name(host: str) -> str:
    """The name part of a ``Host`` value or a URL's netloc (no port, no brackets), lower-case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host[1:]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class HostRule:
    """Which ``Host`` names a server bound to ``bind_host`` answers."""

    def __init__(self, bind_host: str, allowed: list[str]) -> None:
        self.bound = host_name(bind_host)
        self.any_ip = self.bound in ("0.0.0.0", "::", "")
        self.allowed = {host_name(name) for name in allowed}

    def allows(self, name: str) -> bool:
        """Whether a request naming ``name`` (from its Host header) is for this server."""
        if "*" in self.allowed or name in self.allowed or name == self.bound or is_loopback(name):
            return True
        # An address typed by the user cannot be rebound to another server; only names can.
        return self.any_ip and _is_ip(name)


class BodyTooLarge(HTTPException):
    """A request body over its limit (raised while it streams in, so FastAPI passes it on as a 413)."""

    def __init__(self, limit: int, setting: str) -> None:
        size = f"{limit // 2**20} MB" if limit >= 2**20 else f"{limit // 1024} KB"
        super().__init__(413, f"request body larger than {size}; send less, or raise {setting}")


class RequestGuard:
    """ASGI middleware applying the rules of this module to every HTTP request."""

    def __init__(self, app: ASGIApp, settings: Settings, bind_host: str | None = None) -> None:
        self.app = app
        server = settings.server
        self.hosts = HostRule(bind_host or server.host, server.allowed_hosts)
        self.body_limit = server.max_body_kb * 1024
        self.upload_limit = server.max_upload_mb * 2**20 + _UPLOAD_FRAMING

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        upload = scope["path"].startswith(UPLOAD_PREFIX)
        limit, setting = (self.upload_limit, "server.max_upload_mb") if upload else (self.body_limit, "server.max_body_kb")
        refusal = self._refusal(scope, headers, upload, limit, setting)
        if refusal is not None:
            status, detail, error = refusal
            await JSONResponse({"detail": detail, "error": error}, status_code=status)(scope, receive, send)
            return
        await self.app(scope, _capped(receive, limit, setting), send)

    def _refusal(self, scope: Scope, headers: Headers, upload: bool, limit: int, setting: str) -> tuple[int, str, str] | None:
        """(status, message, error name) of a request refused before it reaches a route, else ``None``."""
        host = headers.get("host")
        if host is not None and not self.hosts.allows(host_name(host)):
            return (421, f"this server does not answer for the host {host_name(host)!r}; add it to server.allowed_hosts "
                    "if it is one of this server's names", "MisdirectedRequest")
        if scope["method"] in STATE_CHANGING:
            foreign = self._foreign_origin(scope, headers)
            if foreign is not None:
                return 403, f"refused a {scope['method']} request from another origin ({foreign})", "CrossOriginRequest"
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if not upload and kind in _FORM_TYPES:
                return 415, f"this endpoint takes JSON; send the body with Content-Type: application/json, not {kind}", "UnsupportedMediaType"
        declared = headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            return 413, str(BodyTooLarge(limit, setting).detail), "PayloadTooLarge"
        return None

    def _foreign_origin(self, scope: Scope, headers: Headers) -> str | None:
        """The other origin a browser says the request comes from, or ``None`` when it is this server's own."""
        site = headers.get("sec-fetch-site", "").lower()
        if site in ("cross-site", "same-site"):
            return f"Sec-Fetch-Site: {site}"
        origin = headers.get("origin")
        if origin is None:
            return None
        parts = urlsplit(origin.strip().lower())
        own = headers.get("host", "").strip().lower()
        if origin.strip().lower() == "null" or not parts.netloc:
            return f"Origin: {origin[:100]}"
        if parts.netloc == own or _same_default_port(parts.scheme, parts.netloc, own):
            return None
        if host_name(parts.netloc) in self.hosts.allowed:  # a reverse proxy's public name
            return None
        return f"Origin: {origin[:100]}"


def _same_default_port(scheme: str, netloc: str, host: str) -> bool:
    """``http://example:80`` and ``Host: example`` name the same origin."""
    default = {"http": "80", "https": "443"}.get(scheme)
    return default is not None and (f"{netloc}:{default}" == host or netloc == f"{host}:{default}")


def _capped(receive: Receive, limit: int, setting: str) -> Receive:
    """``receive`` that raises :class:`BodyTooLarge` once more than ``limit`` body bytes have come in."""
    seen = 0

    async def capped() -> Message:
        nonlocal seen
        message: Any = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise BodyTooLarge(limit, setting)
        return message  # type: ignore[no-any-return]

    return capped
