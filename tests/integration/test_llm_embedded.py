"""The embedded llama.cpp backend with the real 1.5B model (few, short calls)."""

from __future__ import annotations

import re
import time

import pytest
from pydantic import BaseModel, Field

from navicite.llm.base import LLM, CallOptions, LLMError, LLMInputError, LLMOutputError, Message, usage_scope
from navicite.llm.embedded import EmbeddedLLM, unload_models

pytestmark = pytest.mark.llm

HANGUL = re.compile(r"[\uac00-\ud7a3]")


class Capital(BaseModel):
    country: str
    capital: str
    confident: bool


def test_schema_constrained_call_returns_a_valid_object(real_llm: LLM) -> None:
    answer = real_llm.complete_json(
        [Message("user", "What is the capital of Japan? Answer as JSON with country, capital and confident.")],
        Capital,
        CallOptions(stage="it-json", max_tokens=48, temperature=0.0),
    )
    assert isinstance(answer, Capital)
    assert "tokyo" in answer.capital.lower()
    usage = [u for u in real_llm.usage.calls if u.stage == "it-json"]
    assert len(usage) == 1 and usage[0].completion_tokens > 0  # valid on the first try: no repair


def test_korean_prompt_gets_a_korean_reply(real_llm: LLM) -> None:
    reply = real_llm.complete(
        [
            Message("system", "항상 한국어로만 답하세요."),
            Message("user", "하늘은 왜 파란가요? 한 문장으로 답하세요."),
        ],
        CallOptions(stage="it-ko", max_tokens=40, temperature=0.0),
    )
    hangul = len(HANGUL.findall(reply))
    letters = len(re.findall(r"[A-Za-z]", reply))
    assert hangul >= 5 and hangul > letters, reply


def test_repeated_call_is_served_by_the_cache(real_llm: LLM) -> None:
    messages = [Message("user", "Name one primary colour. One word.")]
    options = CallOptions(stage="it-cache", max_tokens=5, temperature=0.0)
    first = real_llm.complete(messages, options)
    assert isinstance(real_llm, EmbeddedLLM)
    generated = real_llm._generate

    def must_not_run(request):  # type: ignore[no-untyped-def]
        raise AssertionError("the model was called although the answer is cached")

    real_llm._generate = must_not_run  # type: ignore[method-assign]
    try:
        started = time.perf_counter()
        second = real_llm.complete(messages, options)
        elapsed = time.perf_counter() - started
    finally:
        real_llm._generate = generated  # type: ignore[method-assign]
    assert second == first
    stage = [u for u in real_llm.usage.calls if u.stage == "it-cache"]
    assert [u.cache_hit for u in stage] == [False, True]
    assert stage[1].completion_tokens == 0
    assert elapsed < 0.5


def test_streaming_gives_the_reply_in_pieces(real_llm: LLM) -> None:
    pieces = list(real_llm.stream([Message("user", "Count from 1 to 5, separated by commas.")],
                                  CallOptions(stage="it-stream", max_tokens=16, temperature=0.0, use_cache=False)))
    assert len(pieces) > 1
    assert "1" in "".join(pieces) and "3" in "".join(pieces)


def test_empty_prompt_is_a_typed_error(real_llm: LLM) -> None:
    with pytest.raises(LLMInputError, match="empty prompt"):
        real_llm.complete([Message("user", "   ")])


def test_over_long_prompt_is_rejected_quickly(real_llm: LLM) -> None:
    started = time.perf_counter()
    with pytest.raises(LLMInputError, match="llm.context_size"):
        real_llm.complete([Message("user", "evidence " * 6000)], CallOptions(max_tokens=8, use_cache=False))
    assert time.perf_counter() - started < 10


def test_count_tokens_is_exact_and_grows(real_llm: LLM) -> None:
    short = real_llm.count_tokens([Message("user", "hello")])
    longer = real_llm.count_tokens([Message("user", "hello " * 50)])
    assert 0 < short < longer
    # "hello" + 49 x " hello" + a trailing " ": one token each in Qwen's vocabulary
    assert longer - short == 50


class Impossible(BaseModel):
    value: int = Field(ge=10, le=1)


class Essay(BaseModel):
    text: str = Field(min_length=5000)


@pytest.mark.parametrize("schema", [Impossible, Essay])
def test_unsatisfiable_schema_is_a_typed_error_without_hanging(real_llm: LLM, schema: type[BaseModel]) -> None:
    started = time.perf_counter()
    with pytest.raises(LLMOutputError):
        real_llm.complete_json([Message("user", "Fill in the object.")], schema,
                               CallOptions(stage="it-bad", max_tokens=16, use_cache=False))
    assert time.perf_counter() - started < 60


def test_one_model_instance_serves_several_threads(small_real_llm: LLM) -> None:
    import threading

    assert isinstance(small_real_llm, EmbeddedLLM)
    replies: list[str] = []
    errors: list[BaseException] = []

    def ask(i: int) -> None:
        try:
            replies.append(small_real_llm.complete([Message("user", f"Say the number {i}.")],
                                                   CallOptions(stage="it-threads", max_tokens=6, use_cache=False)))
        except BaseException as exc:  # collected and re-checked in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    assert len(replies) == 3
    twin = EmbeddedLLM(small_real_llm.settings)
    assert twin.runtime is small_real_llm.runtime  # one loaded model per process


def test_unloaded_models_start_again_with_an_empty_prompt_cache(small_real_llm: LLM) -> None:
    messages = [Message("system", "Reply with one word. " * 20), Message("user", "Say yes.")]
    options = CallOptions(stage="it-unload", max_tokens=2, use_cache=False)

    def cached() -> int:
        with usage_scope() as calls:
            small_real_llm.complete(messages, options)
        return calls[0].cached_tokens

    cached()
    assert cached() > 100  # the same prompt again: llama.cpp reuses its prefix
    unload_models()
    assert cached() == 0  # a freshly loaded model, as in a new process


def test_the_hidden_state_at_a_reply_opening_is_read_and_a_too_long_input_is_an_error(small_real_llm: LLM) -> None:
    assert isinstance(small_real_llm, EmbeddedLLM)
    asked = [Message("user", "Is Paris the capital of France? Reply in JSON.")]
    first = small_real_llm.last_hidden_state(asked, '{"answer": ')
    assert len(first) == 896  # Qwen2.5-0.5B's width
    assert first == small_real_llm.last_hidden_state(asked, '{"answer": ')
    other = small_real_llm.last_hidden_state([Message("user", "Is Lyon the capital of France? Reply in JSON.")], '{"answer": ')
    assert other != first
    with pytest.raises(LLMError):
        small_real_llm.last_hidden_state([Message("user", "word " * 20000)])
