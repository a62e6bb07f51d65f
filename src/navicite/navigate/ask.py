"""One structured call of the organising stages, with the model's faults turned into ``None``.

Calls a build can do without (split, naming packed parts, refine: each has a fallback
that needs no model) draw from a :class:`CallBudget`, so a build keeps to its goal of
calls per segment however many topics the model makes.
"""

from __future__ import annotations

import threading
from typing import TypeVar

from pydantic import BaseModel

from navicite.llm.base import LLM, CallOptions, LLMError, LLMUnavailableError, Message, usage_scope

T = TypeVar("T", bound=BaseModel)


class CallBudget:
    """How many more optional model calls one build may make; shared by the threads shaping its topics.

    ``None`` means no limit. Declined calls are counted so the build can report them. A
    call in flight when the budget runs out may still be repaired by the model layer, so a
    build can end a call or two over its goal, never more than its concurrency.
    """

    def __init__(self, calls: int | None = None) -> None:
        self.left = calls
        self.declined = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        """Whether one more optional call may be made (and, if so, count it)."""
        with self._lock:
            if self.left is None:
                return True
            if self.left <= 0:
                self.declined += 1
                return False
            self.left -= 1
            return True

    def charge(self, calls: int) -> None:
        """Count ``calls`` more against the budget (a taken call the model layer had to repeat)."""
        with self._lock:
            if self.left is not None and calls > 0:
                self.left -= calls


def ask_json(
    llm: LLM, messages: list[Message], schema: type[T], stage: str, max_tokens: int, budget: CallBudget | None = None
) -> T | None:
    """The validated reply, or ``None`` when the model's answer is unusable or ``budget`` is spent (the caller repairs).

    Raises:
        LLMUnavailableError: the model cannot be reached; no repair can help, so the build stops.
    """
    if budget is not None and not budget.take():
        return None
    with usage_scope() as made:  # a reply repaired by a second request costs two calls
        try:
            return llm.complete_json(messages, schema, CallOptions(stage=stage, max_tokens=max_tokens, temperature=0.0))
        except LLMUnavailableError:
            raise
        except LLMError:
            return None
        finally:
            if budget is not None:
                budget.charge(len(made) - 1)
