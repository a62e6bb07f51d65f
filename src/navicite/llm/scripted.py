"""A scripted stand-in LLM for unit tests of parsing and control flow.

:class:`ScriptedLLM` replays answers given in advance, in order, and records
every request it receives. It runs the same shared machinery as the real
backends (:class:`~navicite.llm.core.BaseLLM`): JSON validation, the repair
attempt, :class:`LLMOutputError`, accounting and (if given one) the cache. A
test therefore sees exactly what a stage does with a malformed model answer.

Answers may be strings, dicts or lists (sent as JSON), pydantic objects (sent as
their JSON), exceptions (raised instead of answering), or callables that take
the request's messages and return one of these.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Union

from pydantic import BaseModel

from navicite.llm.base import Message
from navicite.llm.cache import AnswerCache
from navicite.llm.core import BaseLLM, ChatRequest, Completion, Defaults
from navicite.text.tokens import estimate_tokens

Answer = Union[str, dict, list, BaseModel, BaseException, Callable[[list[Message]], Any]]


@dataclass(frozen=True)
class ScriptedCall:
    """One request the stand-in received."""

    messages: tuple[Message, ...]
    json_schema: dict[str, Any] | None
    max_tokens: int
    temperature: float
    stop: tuple[str, ...]

    @property
    def prompt(self) -> str:
        """All message texts joined, for simple ``in`` assertions."""
        return "\n".join(m.content for m in self.messages)


class ScriptedLLM(BaseLLM):
    """Replays ``answers`` one per model request; ``default`` answers once they run out.

    A request with no answer left and no default fails the test with an
    ``AssertionError`` (which stages do not catch, unlike :class:`LLMError`).
    """

    def __init__(
        self,
        answers: Iterable[Answer] = (),
        *,
        default: Answer | None = None,
        model: str = "scripted",
        cache: AnswerCache | None = None,
        context_size: int | None = 4096,
        max_tokens: int = 512,
        concurrency: int = 4,
    ) -> None:
        super().__init__(
            backend="scripted",
            model=model,
            defaults=Defaults(temperature=0.0, max_tokens=max_tokens),
            cache=cache,
            concurrency=concurrency,
            context_size=context_size,
        )
        self._answers: deque[Answer] = deque(answers)
        self._default = default
        self._lock = threading.Lock()
        self.calls: list[ScriptedCall] = []

    @property
    def remaining(self) -> int:
        """Answers not used yet."""
        return len(self._answers)

    def add(self, *answers: Answer) -> None:
        """Queue more answers."""
        with self._lock:
            self._answers.extend(answers)

    def _generate(self, request: ChatRequest) -> Completion:
        messages = list(request.messages)
        with self._lock:
            self.calls.append(
                ScriptedCall(request.messages, request.json_schema, request.max_tokens, request.temperature, request.stop)
            )
            if self._answers:
                answer = self._answers.popleft()
            elif self._default is not None:
                answer = self._default
            else:
                raise AssertionError(f"ScriptedLLM has no answer left for call {len(self.calls)}: {messages[-1].content[:200]!r}")
        if callable(answer) and not isinstance(answer, (BaseModel, BaseException)):
            answer = answer(messages)
        if isinstance(answer, BaseException):
            raise answer
        text = _as_text(answer)
        prompt_tokens = sum(estimate_tokens(m.content) for m in messages)
        return Completion(text, prompt_tokens=prompt_tokens, completion_tokens=estimate_tokens(text))


def _as_text(answer: Any) -> str:
    if isinstance(answer, str):
        return answer
    if isinstance(answer, BaseModel):
        return answer.model_dump_json()
    return json.dumps(answer, ensure_ascii=False)
