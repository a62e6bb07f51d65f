"""The ``navicite`` command line.

Each group of commands lives in its own module and registers itself on ``app``;
errors of type :class:`navicite.errors.NaviciteError` become one clear message
on stderr and the error's exit code, never a traceback.
"""

from __future__ import annotations

import errno
import sys
from pathlib import Path
from typing import Annotated, NoReturn, Optional

import typer

from navicite.cli.common import err_console, state
from navicite.errors import DiskFullError, NaviciteError

app = typer.Typer(
    name="navicite",
    help="Ask a pile of documents a question; every factual sentence of the answer cites its source.",
    no_args_is_help=True,
    invoke_without_command=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def _root(
    ctx: typer.Context,
    home: Annotated[
        Optional[str],
        typer.Option("--home", envvar="NAVICITE_HOME", help="Data directory of the collection (default ./.navicite)."),
    ] = None,
    set_: Annotated[
        Optional[list[str]],
        typer.Option("--set", "-s", help="Override a setting: section.key=value (repeatable), e.g. -s llm.threads=2."),
    ] = None,
    preset: Annotated[
        Optional[str],
        typer.Option("--preset", envvar="NAVICITE_PRESET",
                     help="A named set of settings, under --set: fast, quality, report, first-release (see config show)."),
    ] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not read or write the LLM cache for this command.")
    ] = False,
    version: Annotated[
        bool, typer.Option("--version", help="Print the version and exit.", is_eager=True)
    ] = False,
) -> None:
    if version:
        from navicite import __version__

        typer.echo(f"navicite {__version__}")
        raise typer.Exit()
    st = state(ctx)
    st.home = home
    st.preset = preset
    st.overrides = list(set_ or []) + (["llm.cache=false"] if no_cache else [])


def _register() -> None:
    # Imported for their side effect of adding commands to ``app``.
    from navicite.cli import config_cmd, docs_cmd  # noqa: F401

    for optional in ("ingest_cmd", "llm_cmd", "eval_cmd", "ask_cmd", "tree_cmd", "serve_cmd", "rerank_cmd", "mcp_cmd"):
        try:
            __import__(f"navicite.cli.{optional}")
        except ModuleNotFoundError as exc:
            if exc.name != f"navicite.cli.{optional}":
                raise


_register()


def _fail(exc: NaviciteError) -> NoReturn:
    err_console.print(f"[bold red]error:[/] {exc}", highlight=False, markup=True)
    sys.exit(exc.exit_code)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the console script."""
    try:
        app(args=argv, standalone_mode=True)
    except NaviciteError as exc:
        _fail(exc)
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        # A small file (a marker, a setting) that found the disk full: the index writes say so themselves.
        _fail(DiskFullError(str(Path(exc.filename).parent) if exc.filename else "the data directory"))
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)
