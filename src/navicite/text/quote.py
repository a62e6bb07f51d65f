"""How a source is quoted inside a prompt: delimited, with anything that looks like the delimiters neutralised."""

from __future__ import annotations

import re

_TAG = re.compile(r"</?\s*source", re.IGNORECASE)


def defuse(text: str) -> str:
    """Source text with anything that looks like our delimiters neutralised."""
    return _TAG.sub(lambda m: m.group(0).replace("source", "s0urce").replace("SOURCE", "S0URCE"), text)


def source_block(number: int, title: str, text: str) -> str:
    """One source as the prompts quote it: ``<source id="n">``, a ``Title:`` line (none for an empty
    title), the text, with anything in title or text that looks like the delimiters neutralised."""
    head = f"Title: {defuse(title)}\n" if title else ""
    return f'<source id="{number}">\n{head}{defuse(text)}\n</source>'
