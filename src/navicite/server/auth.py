"""Who may call the API: loopback by default, a bearer key whenever one is configured.

The rule is deliberately simple. A server bound to a loopback address is only
reachable from this machine, so it may run without a key; any other address
needs ``server.api_key`` (or ``NAVICITE_API_KEY``), and ``navicite serve``
refuses to start without one. When a key is configured it is required on every
``/v1`` endpoint except ``/v1/health``, whatever the address.
"""

from __future__ import annotations

import ipaddress
import secrets

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from navicite.config import Settings
from navicite.errors import UserInputError

_LOOPBACK_NAMES = frozenset({"localhost", "ip6-localhost", "ip6-loopback"})


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    name = host.strip().strip("[]").lower()
    if name in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve to anything


#: Shortest API key accepted: a key of a few characters is guessed by trying.
MIN_KEY_LENGTH = 16


def check_key(settings: Settings) -> None:
    """Refuse an API key that is too short to keep anyone out.

    Raises:
        UserInputError: ``server.api_key`` is set and has fewer than :data:`MIN_KEY_LENGTH` characters.
    """
    key = settings.server.api_key
    if key is not None and len(key.strip()) < MIN_KEY_LENGTH:
        raise UserInputError(
            f"the API key (NAVICITE_API_KEY or server.api_key) is too short ({len(key.strip())} characters); use at "
            f"least {MIN_KEY_LENGTH}, e.g. from: python -c \"import secrets; print(secrets.token_urlsafe(24))\""
        )


def check_bind(settings: Settings, host: str | None = None) -> None:
    """Refuse to serve on a non-loopback address without an API key, or with a key that is too short.

    Raises:
        UserInputError: ``host`` is reachable from other machines and no key is set, or the key is too short.
    """
    check_key(settings)
    host = host or settings.server.host
    if not is_loopback(host) and not settings.server.api_key:
        raise UserInputError(
            f"refusing to serve on {host}: other machines could reach it and no API key is set. "
            "Set NAVICITE_API_KEY (or -s server.api_key=...) to a long random string, "
            "or bind to 127.0.0.1 (the default)"
        )


#: Declared as a security scheme so the OpenAPI page at /docs offers an "Authorize" button.
_bearer = HTTPBearer(auto_error=False, description="The server's API key (NAVICITE_API_KEY).")


def require_key(request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(_bearer)) -> None:
    """FastAPI dependency: the request must carry ``Authorization: Bearer <key>`` when a key is set."""
    expected: str | None = request.app.state.settings.server.api_key
    if not expected:
        return
    given = credentials.credentials if credentials is not None else ""
    if not secrets.compare_digest(given.encode(), expected.encode()):
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            detail="missing or wrong API key: send the header 'Authorization: Bearer <key>'",
            headers={"WWW-Authenticate": "Bearer"},
        )
