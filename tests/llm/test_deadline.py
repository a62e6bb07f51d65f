"""One deadline for a whole answer: its scope, and every backend's calls checking it."""

from __future__ import annotations

import threading
import time

import pytest

from navicite.llm import deadline
from navicite.llm.base import LLMError, Message, carry_context
from navicite.llm.scripted import ScriptedLLM

ASK = [Message("user", "hi")]


def test_no_deadline_outside_a_scope_and_the_earliest_inside_nested_ones() -> None:
    assert deadline.time_left() is None
    with deadline.deadline(30):
        assert 29 < (deadline.time_left() or 0) <= 30
        with deadline.deadline(5, setting="x.inner"):
            assert (deadline.time_left() or 99) <= 5
        assert (deadline.time_left() or 0) > 29
        with deadline.deadline(None):
            assert (deadline.time_left() or 0) > 29
    assert deadline.time_left() is None


def test_a_passed_deadline_is_one_line_naming_its_setting_and_not_an_llm_error() -> None:
    with deadline.deadline(0.01), pytest.raises(deadline.DeadlineExceeded) as raised:
        time.sleep(0.02)
        deadline.check("the model was still writing")
    message = str(raised.value)
    assert "llm.answer_timeout_s" in message and "the model was still writing" in message and "\n" not in message
    assert not isinstance(raised.value, LLMError)  # stages catch LLMError for fallbacks; a passed deadline ends the answer


def test_calls_and_streams_stop_once_the_deadline_has_passed() -> None:
    llm = ScriptedLLM(default="an answer in several words")
    assert llm.complete(ASK) == "an answer in several words"
    with deadline.deadline(0.01):
        time.sleep(0.02)
        with pytest.raises(deadline.DeadlineExceeded):
            llm.complete(ASK)
        with pytest.raises(deadline.DeadlineExceeded):
            list(llm.stream(ASK))
    assert len(llm.calls) == 1  # the refused calls never reached the backend


def test_waiting_for_a_busy_model_ends_at_the_deadline() -> None:
    llm = ScriptedLLM(default="ok", concurrency=1)
    llm._slots.acquire()  # another request holds the only slot
    try:
        started = time.monotonic()
        with deadline.deadline(0.2), pytest.raises(deadline.DeadlineExceeded, match="to be free"):
            llm.complete(ASK)
        assert time.monotonic() - started < 2
    finally:
        llm._slots.release()


def test_work_handed_to_a_thread_keeps_the_deadline() -> None:
    seen: list[float | None] = []
    with deadline.deadline(30):
        worker = threading.Thread(target=carry_context(lambda: seen.append(deadline.time_left())))
        worker.start()
        worker.join()
    assert seen[0] is not None and seen[0] <= 30
