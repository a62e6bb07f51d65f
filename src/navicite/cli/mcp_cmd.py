"""``navicite mcp``: the collection as a Model Context Protocol server (stdio, or streamable HTTP)."""

from __future__ import annotations

import secrets
from typing import Annotated, Any, Optional

import typer

from navicite.cli import app
from navicite.cli.common import err_console, settings
from navicite.errors import UserInputError

#: Where MCP clients post: the SDK's default path for streamable HTTP.
MCP_PATH = "/mcp"
#: Default port of ``--http``: beside ``navicite serve``'s 8000, so both can run at once.
DEFAULT_PORT = 8001


@app.command("mcp")
def mcp(
    ctx: typer.Context,
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP at /mcp instead of stdio.")] = False,
    host: Annotated[
        str, typer.Option("--host", help="With --http: address to bind. Others than loopback need an API key.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="With --http: port.")] = DEFAULT_PORT,
    log_level: Annotated[
        Optional[str], typer.Option("--log-level", help="Log level (default: warning on stdio, info with --http).")
    ] = None,
) -> None:
    """Serve the collection to MCP clients (Claude Desktop, Cursor, ...): tools search, fetch, ask, list_documents.

    Stdio by default, as desktop assistants start it; --http listens at http://HOST:PORT/mcp.
    """
    try:
        from navicite.mcp_server import create_server
    except ModuleNotFoundError as exc:
        if exc.name is None or not exc.name.startswith("mcp"):
            raise
        raise UserInputError("navicite mcp needs the MCP SDK: pip install 'navicite[mcp]'") from exc
    from navicite.api import Collection
    from navicite.server.auth import check_bind

    config = settings(ctx)
    level = (log_level or ("info" if http else "warning")).upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        raise UserInputError(f"unknown log level {log_level!r}; choose debug, info, warning, error or critical")
    if http:
        check_bind(config, host)  # before the collection is opened: a refused start touches nothing
    collection = Collection(settings=config)
    ctx.call_on_close(collection.close)
    server = create_server(collection, log_level=level)  # type: ignore[arg-type]
    documents = len(collection)
    if not http:
        err_console.print(f"navicite MCP server on stdio: {config.home} ({documents} documents)", highlight=False)
        server.run()
        return
    import uvicorn

    web_app: Any = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    if config.server.api_key:
        web_app = BearerKey(web_app, config.server.api_key)
    shown = f"[{host}]" if ":" in host else host
    err_console.print(f"navicite MCP server at http://{shown}:{port}{MCP_PATH} for {config.home} ({documents} documents)"
                      f"{'; clients must send the API key as a bearer token' if config.server.api_key else ''}; "
                      "Ctrl+C stops it", highlight=False)
    uvicorn.run(web_app, host=host, port=port, log_level=level.lower())


class BearerKey:
    """ASGI wrapper: every HTTP request must carry ``Authorization: Bearer <key>`` (as ``navicite serve`` asks)."""

    def __init__(self, app: Any, key: str) -> None:
        self.app = app
        self.key = key.encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":  # lifespan: the session manager's start and stop
            await self.app(scope, receive, send)
            return
        given = b""
        for name, value in scope.get("headers", []):
            if name.lower() == b"authorization" and value[:7].lower() == b"bearer ":
                given = value[7:].strip()
        if secrets.compare_digest(given, self.key):
            await self.app(scope, receive, send)
            return
        body = b'{"detail":"missing or wrong API key: send the header \'Authorization: Bearer <key>\'"}'
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"www-authenticate", b"Bearer"),
        ]})
        await send({"type": "http.response.body", "body": body})
