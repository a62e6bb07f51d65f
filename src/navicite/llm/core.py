"""What every backend shares: caching, accounting, JSON validation and repair, concurrency.

A backend subclasses :class:`BaseLLM` and implements two hooks, ``_generate``
(one request, whole reply) and ``_generate_stream`` (the reply piece by piece,
then its :class:`Completion`). Everything the :class:`~navicite.llm.base.LLM`
protocol promises is built on those here, once, so the embedded model, an
OpenAI-compatible server and the scripted stand-in behave the same way.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from navicite import prompts
from navicite.llm.base import CallOptions, LLMInputError, LLMOutputError, Message, Usage, UsageLog
from navicite.llm import deadline
from navicite.llm.cache import AnswerCache, CachedAnswer, cache_key
from navicite.llm.jsonout import ReplyError, json_schema_of, parse_reply
from navicite.text.tokens import estimate_tokens

T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class ChatRequest:
    """One request as a backend sees it, with every default resolved."""

    messages: tuple[Message, ...]
    temperature: float
    max_tokens: int
    stop: tuple[str, ...] = ()
    seed: int = 0
    json_schema: dict[str, Any] | None = None
    #: How many alternatives of each reply token to ask for (0: none).
    alternatives: int = 0

    def key_payload(self) -> dict[str, Any]:
        """Everything that can change the answer, for the cache key."""
        # Not ``alternatives``: asking for them does not change the reply. A cached reply stored
        # without them (by an earlier version, or a call that did not ask) is served as it is.
        return {
            "messages": [[m.role, m.content] for m in self.messages],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "stop": list(self.stop),
            "seed": self.seed,
            "schema": self.json_schema,
        }


@dataclass
class Completion:
    """A backend's reply with its cost."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = "stop"
    #: Prompt tokens the server reused from an earlier request's prefix instead of reading them again.
    cached_tokens: int = 0
    prompt_ms: float | None = None
    generation_ms: float | None = None
    #: Each reply token with its most likely alternatives and their log-probabilities, where asked.
    alternatives: tuple[tuple[str, dict[str, float]], ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Defaults:
    """Per-LLM defaults for options a call leaves unset."""

    temperature: float = 0.1
    max_tokens: int = 512
    seed: int = 0


class BaseLLM(ABC):
    """Shared implementation of the LLM protocol; subclasses talk to one backend."""

    #: Whether the backend constrains output to a JSON schema itself; if not, the schema
    #: goes into the prompt (see prompts/json_instructions.md) and the reply is parsed.
    supports_schema: bool = True

    def __init__(
        self,
        *,
        backend: str,
        model: str,
        defaults: Defaults | None = None,
        cache: AnswerCache | None = None,
        concurrency: int = 1,
        context_size: int | None = None,
    ) -> None:
        self.backend = backend
        self.model = model
        self.name = f"{backend}:{model}"
        self.usage = UsageLog()
        self.defaults = defaults or Defaults()
        self.cache = cache
        self.context_size = context_size
        self._slots = threading.BoundedSemaphore(concurrency)

    # -- hooks -----------------------------------------------------------------------

    @abstractmethod
    def _generate(self, request: ChatRequest) -> Completion:
        """Send one request and return the whole reply."""

    def _generate_stream(self, request: ChatRequest) -> Iterator[str | Completion]:
        """Yield text pieces, then the final :class:`Completion`; by default one piece."""
        completion = self._generate(request)
        yield completion.text
        yield completion

    def count_tokens(self, messages: list[Message]) -> int:
        """Prompt tokens of ``messages``; this default is an estimate, backends may be exact."""
        return sum(estimate_tokens(m.content) + 4 for m in messages) + 3

    # -- the protocol ----------------------------------------------------------------

    def complete(self, messages: list[Message], options: CallOptions | None = None) -> str:
        """Text reply (cached, counted)."""
        options = options or CallOptions()
        request = self._request(messages, options)
        return self._call(request, options).text

    def complete_json(self, messages: list[Message], schema: type[T], options: CallOptions | None = None) -> T:
        """Reply validated as ``schema``; one repair attempt, then :class:`LLMOutputError`."""
        return self.complete_json_scored(messages, schema, options)[0]

    def complete_json_scored(
        self, messages: list[Message], schema: type[T], options: CallOptions | None = None
    ) -> tuple[T, tuple[tuple[str, dict[str, float]], ...]]:
        """:meth:`complete_json`, and the reply's tokens with their alternatives (``options.alternatives``
        of them; empty where the backend gives none)."""
        options = options or CallOptions()
        json_schema = json_schema_of(schema)
        if not self.supports_schema:
            messages = with_json_instructions(messages, json_schema)
        request = self._request(messages, options, json_schema)
        first = self._call(request, options, validate=lambda text: parse_reply(text, schema))
        try:
            return parse_reply(first.text, schema), first.alternatives
        except ReplyError as exc:
            problem = str(exc)
            if first.finish_reason == "length":
                problem += f" (the reply was cut off at {request.max_tokens} tokens)"
        repair = prompts.render("json_repair", problem=problem, schema=json.dumps(json_schema, ensure_ascii=False))
        retry = self._request([*request.messages, Message("assistant", first.text), *repair], options, json_schema)
        try:
            second = self._call(retry, options, validate=lambda text: parse_reply(text, schema))
            value = parse_reply(second.text, schema)
        except (ReplyError, LLMInputError) as exc:  # LLMInputError: the faulty reply filled the context
            raise LLMOutputError(
                f"{self.name} gave no valid {schema.__name__} for stage {options.stage!r} after one repair attempt: {exc}"
            ) from None
        self._store(request, options, second)  # the original request now maps to the good answer
        return value, second.alternatives

    def stream(self, messages: list[Message], options: CallOptions | None = None) -> Iterator[str]:
        """Text reply, piece by piece (a cached reply comes as one piece)."""
        options = options or CallOptions()
        request = self._request(messages, options)
        cached = self._lookup(request, options)
        if cached is not None:
            yield cached.text
            return
        started = time.perf_counter()
        with self._slot():
            self._check_length(request)
            pieces: list[str] = []
            completion: Completion | None = None
            produced = self._generate_stream(request)
            try:
                for item in produced:
                    deadline.check(f"{self.name} was still writing its reply")
                    if isinstance(item, Completion):
                        completion = item
                    else:
                        pieces.append(item)
                        yield item
            finally:
                produced.close()  # a consumer that stops early also stops the backend
        completion = completion or Completion("".join(pieces))
        completion.text = "".join(pieces)
        self._account(options, completion, time.perf_counter() - started)
        self._store(request, options, completion)

    @contextmanager
    def _slot(self) -> Iterator[None]:
        """One of the backend's concurrent slots, waited for no longer than the open deadline allows."""
        deadline.check(f"no time was left for a call of {self.name}")
        left = deadline.time_left()
        if not self._slots.acquire(timeout=left):
            raise deadline.exceeded(f"it was still waiting for {self.name} to be free")
        try:
            yield
        finally:
            self._slots.release()

    def _request(
        self, messages: list[Message] | tuple[Message, ...], options: CallOptions, json_schema: dict[str, Any] | None = None
    ) -> ChatRequest:
        if not messages or not any(m.content.strip() for m in messages if m.role != "assistant"):
            raise LLMInputError(f"empty prompt for stage {options.stage!r}: give at least one non-empty message")
        return ChatRequest(
            messages=tuple(messages),
            temperature=self.defaults.temperature if options.temperature is None else options.temperature,
            max_tokens=self.defaults.max_tokens if options.max_tokens is None else options.max_tokens,
            stop=tuple(options.stop),
            seed=self.defaults.seed,
            json_schema=json_schema,
            alternatives=options.alternatives,
        )

    def _check_length(self, request: ChatRequest) -> None:
        if self.context_size is None:
            return
        tokens = self.count_tokens(list(request.messages))
        if tokens >= self.context_size:
            raise LLMInputError(
                f"the prompt has {tokens} tokens, more than the model's context of {self.context_size} "
                "(llm.context_size); shorten the input or raise llm.context_size"
            )

    def _lookup(self, request: ChatRequest, options: CallOptions) -> CachedAnswer | None:
        if self.cache is None or not options.use_cache:
            return None
        started = time.perf_counter()
        hit = self.cache.get(cache_key(self.backend, self.model, request.key_payload()))
        if hit is not None:
            self.usage.record(Usage(options.stage, seconds=time.perf_counter() - started, cache_hit=True))
        return hit

    def _store(self, request: ChatRequest, options: CallOptions, completion: Completion) -> None:
        if self.cache is None or not options.use_cache:
            return
        self.cache.put(
            cache_key(self.backend, self.model, request.key_payload()),
            backend=self.backend,
            model=self.model,
            stage=options.stage,
            answer=CachedAnswer(completion.text, completion.prompt_tokens, completion.completion_tokens,
                                completion.alternatives),
        )

    def _account(self, options: CallOptions, completion: Completion, seconds: float) -> None:
        self.usage.record(
            Usage(
                options.stage,
                prompt_tokens=completion.prompt_tokens,
                completion_tokens=completion.completion_tokens,
                cached_tokens=completion.cached_tokens,
                seconds=seconds,
                prompt_ms=completion.prompt_ms,
                generation_ms=completion.generation_ms,
            )
        )

    def _call(self, request: ChatRequest, options: CallOptions, validate: Any = None) -> Completion:
        """One request through cache, length check, concurrency bound and accounting.

        ``validate`` (for JSON) decides whether a reply may be cached: a reply that fails
        it is returned for repair but never stored, so a re-run does not replay the fault.
        """
        cached = self._lookup(request, options)
        if cached is not None:
            return Completion(cached.text, finish_reason="cached", alternatives=cached.alternatives)
        started = time.perf_counter()
        with self._slot():
            self._check_length(request)
            completion = self._generate(request)
        deadline.check(f"{self.name} finished its reply too late")  # a backend that cannot be stopped mid-call (embedded)
        self._account(options, completion, time.perf_counter() - started)
        if validate is not None:
            try:
                validate(completion.text)
            except ReplyError:
                return completion
        self._store(request, options, completion)
        return completion


def with_json_instructions(messages: list[Message] | tuple[Message, ...], json_schema: dict[str, Any]) -> list[Message]:
    """``messages`` plus the instruction to answer with JSON for ``json_schema``, for backends that cannot constrain."""
    return [*messages, *prompts.render("json_instructions", schema=json.dumps(json_schema, ensure_ascii=False))]


def pump_callback_stream(run: Any) -> Iterator[Any]:
    """Turn a blocking ``run(callback)`` that calls ``callback(item)`` per item into an iterator.

    ``run`` executes in a helper thread; when the consumer stops early, the next
    callback returns True, which tells callback-driven producers (xllamacpp) to stop.
    """
    items: queue.Queue[tuple[str, Any]] = queue.Queue()
    stopped = threading.Event()

    def callback(item: Any) -> bool:
        items.put(("item", item))
        return stopped.is_set()

    def worker() -> None:
        try:
            result = run(callback)
        except BaseException as exc:  # re-raised in the consumer
            items.put(("error", exc))
        else:
            items.put(("end", result))

    thread = threading.Thread(target=worker, name="navicite-llm-stream", daemon=True)
    thread.start()
    try:
        while True:
            kind, value = items.get()
            if kind == "item":
                yield value
            elif kind == "error":
                raise value
            else:
                return
    finally:
        stopped.set()
        thread.join()
