"""What every command shares: settings from global options, output, error handling."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import Any

import typer
from rich.console import Console

from navicite.config import Settings, load_settings

#: Messages, progress and tables for people go to stderr; stdout carries ``--json`` only.
err_console = Console(stderr=True, soft_wrap=True)
out_console = Console()


@dataclass
class AppState:
    """Global options, resolved into settings on first use."""

    home: str | None = None
    overrides: list[str] = field(default_factory=list)
    preset: str | None = None
    _settings: Settings | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = load_settings(self.home, self.overrides, self.preset)
        return self._settings


def state(ctx: typer.Context) -> AppState:
    """The AppState of the running command."""
    root = ctx.find_root()
    if not isinstance(root.obj, AppState):
        root.obj = AppState()
    return root.obj


def settings(ctx: typer.Context) -> Settings:
    """Effective settings of the running command."""
    return state(ctx).settings


def print_json(data: Any) -> None:
    """Machine-readable output on stdout, one JSON document."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")
    sys.stdout.flush()
