"""``navicite config``: show the effective settings."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from navicite.cli import app
from navicite.cli.common import out_console, print_json, settings

config_app = typer.Typer(help="Inspect settings.", no_args_is_help=True)
app.add_typer(config_app, name="config")


@config_app.command("show")
def show(ctx: typer.Context, as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """Print every setting with its effective value (file < env < --set)."""
    data = settings(ctx).public_dict()
    if as_json:
        print_json(data)
        return
    table = Table("setting", "value", title=f"settings for {data['home']}")
    for key, value in _rows(data):
        table.add_row(key, repr(value))
    out_console.print(table)


def _rows(data: dict, prefix: str = "") -> list[tuple[str, object]]:
    """``section.key`` (``section.backend.key`` for a nested section) and value of every setting."""
    rows: list[tuple[str, object]] = []
    for key, value in data.items():
        if isinstance(value, dict):
            rows.extend(_rows(value, f"{prefix}{key}."))
        else:
            rows.append((f"{prefix}{key}", value))
    return rows
