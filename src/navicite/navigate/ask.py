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


#: Requests one structured call can make: the model layer repairs a bad reply once.
REQUESTS_PER_CALL = 2


class CallBudget:
    """How many more optional model calls one build may make; shared by the threads shaping its topics.

    ``None`` means no limit. Declined calls are counted so the build can report them. A
    call reserves room for its repair before it starts and gives back what it did not use,
    so concurrent calls can never take a build over its goal (at the price of declining a
    last call that only fits if the model answers well the first time).
    """

    def __init__(self, calls: int | None = None) -> None:
        self.left = calls
        self.declined = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        """Whether one more optional call may be made (and, if so, reserve its requests)."""
        with self._lock:
            if self.left is None:
                return True
            if self.left < REQUESTS_PER_CALL:
                self.declined += 1
                return False
            self.left -= REQUESTS_PER_CALL
            return True

    def settle(self, requests: int) -> None:
        """A taken call made ``requests`` requests: give back the rest of its reservation."""
        with self._lock:
            if self.left is not None:
                self.left += REQUESTS_PER_CALL - max(0, min(requests, REQUESTS_PER_CALL))


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
                budget.settle(len(made))
