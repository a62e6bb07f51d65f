"""Prompts, one per file, loaded by name.

Each prompt is ``src/navicite/prompts/<name>.md``. The file starts with an HTML
comment that says what the prompt is for and lists its placeholders, one per
line after a ``Placeholders:`` line, each as ``{name}`` followed by a short
description. The body is the message text; ``{name}`` marks where a value goes,
and ``{{name}}`` writes a literal ``{name}``. Other braces (JSON examples) are
left alone. A body may be split into several messages with marker lines
``--- system ---``, ``--- user ---`` and ``--- assistant ---``; without markers
the whole body is one user message.

A placeholder used in the body but not declared, or declared but never used,
makes the file invalid: the test suite loads and renders every prompt, so such a
mistake fails CI instead of reaching a model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from navicite.errors import NaviciteError
from navicite.messages import Message

PROMPT_DIR = Path(__file__).parent

_HEADER = re.compile(r"\A\s*<!--(.*?)-->\s*", re.DOTALL)
_DECLARED = re.compile(r"^\s*\{([A-Za-z_]\w*)\}\s*(.*)$")
_TOKEN = re.compile(r"\{\{([A-Za-z_]\w*)\}\}|\{([A-Za-z_]\w*)\}")
_ROLE_MARKER = re.compile(r"^--- (system|user|assistant) ---\s*$", re.MULTILINE)


class PromptError(NaviciteError):
    """A prompt file is missing or malformed, or rendering got the wrong values."""


@dataclass(frozen=True)
class Prompt:
    """One prompt template."""

    name: str
    description: str
    placeholders: dict[str, str]
    parts: tuple[tuple[str, str], ...]  # (role, template text)

    def render(self, **values: object) -> list[Message]:
        """The messages with ``values`` filled in.

        Raises:
            PromptError: a placeholder has no value, or a value names no placeholder.
        """
        missing = sorted(set(self.placeholders) - set(values))
        extra = sorted(set(values) - set(self.placeholders))
        if missing or extra:
            raise PromptError(
                f"prompt {self.name!r}: "
                + "; ".join(
                    filter(None, [missing and f"missing values for {missing}", extra and f"unknown placeholders {extra}"])
                )
                + f" (it takes {sorted(self.placeholders)})"
            )
        text = {k: str(v) for k, v in values.items()}

        def fill(match: re.Match[str]) -> str:
            if match.group(1) is not None:
                return "{" + match.group(1) + "}"
            return text[match.group(2)]

        return [Message(role, _TOKEN.sub(fill, template).strip()) for role, template in self.parts]  # type: ignore[arg-type]


def names() -> list[str]:
    """Names of all prompt files."""
    return sorted(p.stem for p in PROMPT_DIR.glob("*.md"))


@lru_cache(maxsize=None)
def load(name: str) -> Prompt:
    """The prompt called ``name``.

    Raises:
        PromptError: no such file, or the file's placeholders do not match its body.
    """
    path = PROMPT_DIR / f"{name}.md"
    if not re.fullmatch(r"[A-Za-z0-9_\-]+", name) or not path.is_file():
        raise PromptError(f"no prompt named {name!r} (known: {', '.join(names())})")
    return parse(name, path.read_text(encoding="utf-8"))


def render(name: str, **values: object) -> list[Message]:
    """Load prompt ``name`` and fill in ``values``."""
    return load(name).render(**values)


def parse(name: str, source: str) -> Prompt:
    """Build a :class:`Prompt` from a file's text (see the module docs for the format)."""
    header = _HEADER.match(source)
    if not header:
        raise PromptError(f"prompt {name!r}: the file must start with an <!-- ... --> header")
    description, placeholders = _parse_header(header.group(1))
    body = source[header.end() :]
    parts = _split_roles(body)
    used = {m.group(2) for _, text in parts for m in _TOKEN.finditer(text) if m.group(2)}
    undeclared = sorted(used - set(placeholders))
    unused = sorted(set(placeholders) - used)
    if undeclared or unused:
        raise PromptError(
            f"prompt {name!r}: "
            + "; ".join(
                filter(
                    None,
                    [
                        undeclared and f"placeholders used but not declared in the header: {undeclared}",
                        unused and f"placeholders declared but never used: {unused}",
                    ],
                )
            )
        )
    return Prompt(name, description, placeholders, parts)


def _parse_header(header: str) -> tuple[str, dict[str, str]]:
    description_lines: list[str] = []
    placeholders: dict[str, str] = {}
    in_list = False
    for line in header.strip().splitlines():
        if line.strip().lower().startswith("placeholders:"):
            in_list = True
            continue
        declared = _DECLARED.match(line) if in_list else None
        if declared:
            placeholders[declared.group(1)] = declared.group(2).strip()
        elif in_list and line.startswith((" ", "\t")) and placeholders:
            continue  # continuation of the previous placeholder's description
        else:
            in_list = False
            description_lines.append(line.strip())
    return " ".join(d for d in description_lines if d), placeholders


def _split_roles(body: str) -> tuple[tuple[str, str], ...]:
    markers = list(_ROLE_MARKER.finditer(body))
    if not markers:
        return (("user", body),)
    if body[: markers[0].start()].strip():
        raise PromptError("text before the first role marker; start the body with --- <role> ---")
    parts = []
    for i, marker in enumerate(markers):
        end = markers[i + 1].start() if i + 1 < len(markers) else len(body)
        parts.append((marker.group(1), body[marker.end() : end]))
    return tuple(parts)
