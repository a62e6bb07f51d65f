"""What every command shares: settings from global options, output, error handling."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape

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


#: Control characters but tab and line feed: a title holding ``ESC [ 31 m`` must not restyle,
#: retitle or clear the user's terminal.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_safe(text: str) -> str:
    """Text from a collection as it may be printed: control characters shown as ``\\x1b`` escapes,
    lone surrogates (undecodable file-name bytes) as ``\\udce9``."""
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def shown(text: str) -> str:
    """Collection text for rich output: :func:`terminal_safe`, with rich's markup escaped."""
    return escape(terminal_safe(text))


def print_json(data: Any) -> None:
    """Machine-readable output on stdout, one JSON document (lone surrogates as ``\\udce9``)."""
    text = json.dumps(data, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write(text.encode("utf-8", "backslashreplace").decode("utf-8") + "\n")
    sys.stdout.flush()
