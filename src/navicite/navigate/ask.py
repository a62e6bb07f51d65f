"""One structured call of the organising stages, with the model's faults turned into ``None``."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from navicite.llm.base import LLM, CallOptions, LLMError, LLMUnavailableError, Message

T = TypeVar("T", bound=BaseModel)


def ask_json(llm: LLM, messages: list[Message], schema: type[T], stage: str, max_tokens: int) -> T | None:
    """The validated reply, or ``None`` when the model's answer is unusable (the caller repairs).

    Raises:
        LLMUnavailableError: the model cannot be reached; no repair can help, so the build stops.
    """
    try:
        return llm.complete_json(messages, schema, CallOptions(stage=stage, max_tokens=max_tokens, temperature=0.0))
    except LLMUnavailableError:
        raise
    except LLMError:
        return None
