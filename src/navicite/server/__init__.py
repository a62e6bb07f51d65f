"""The HTTP API and the web page (``navicite serve``)."""

from navicite.server.app import create_app
from navicite.server.auth import check_bind, is_loopback

__all__ = ["check_bind", "create_app", "is_loopback"]
