"""``navicite serve``: the HTTP API and the web page for one collection."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from navicite.cli import app
from navicite.cli.common import err_console, settings


@app.command("serve")
def serve(
    ctx: typer.Context,
    host: Annotated[
        Optional[str], typer.Option("--host", help="Address to bind (default server.host, 127.0.0.1). Others need an API key.")
    ] = None,
    port: Annotated[Optional[int], typer.Option("--port", min=1, max=65535, help="Port (default server.port, 8000).")] = None,
    log_level: Annotated[str, typer.Option("--log-level", help="uvicorn log level.")] = "info",
) -> None:
    """Serve the API under /v1, its docs at /docs and the web page at /."""
    import uvicorn

    from navicite.server import check_bind, create_app

    config = settings(ctx)
    bind_host = host or config.server.host
    bind_port = port or config.server.port
    check_bind(config, bind_host)
    web_app = create_app(config, host=bind_host)
    shown = f"[{bind_host}]" if ":" in bind_host else bind_host
    err_console.print(f"navicite on http://{shown}:{bind_port}/ (API docs at /docs); Ctrl+C stops it", highlight=False)
    uvicorn.run(web_app, host=bind_host, port=bind_port, log_level=log_level)
