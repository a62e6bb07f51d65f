"""A chat message: what prompts render and every LLM backend takes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Message:
    """One chat message."""

    role: Literal["system", "user", "assistant"]
    content: str
