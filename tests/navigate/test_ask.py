"""The organising stages' call helper: model faults become None, the optional-call budget is kept."""

from __future__ import annotations

import threading

from pydantic import BaseModel

from navicite.llm.base import Message
from navicite.llm.scripted import ScriptedLLM
from navicite.navigate.ask import CallBudget, ask_json


class Reply(BaseModel):
    word: str


ASK = [Message("user", "Say a word as JSON.")]


def test_a_spent_budget_answers_none_without_asking_the_model() -> None:
    llm = ScriptedLLM([{"word": "one"}, {"word": "two"}])
    budget = CallBudget(3)
    assert ask_json(llm, ASK, Reply, "tree_refine", 16, budget) == Reply(word="one")
    # One request left: a call that might need its repair does not fit.
    assert budget.left == 2 and ask_json(llm, ASK, Reply, "tree_refine", 16, budget) == Reply(word="two")
    assert ask_json(llm, ASK, Reply, "tree_refine", 16, budget) is None
    assert len(llm.calls) == 2 and budget.declined == 1 and budget.left == 1


def test_a_repaired_reply_costs_two_calls_of_the_budget() -> None:
    llm = ScriptedLLM(["not json at all", {"word": "fixed"}, {"word": "never asked"}])
    budget = CallBudget(2)
    assert ask_json(llm, ASK, Reply, "tree_refine", 16, budget) == Reply(word="fixed")
    assert ask_json(llm, ASK, Reply, "tree_refine", 16, budget) is None
    assert len(llm.calls) == 2 and budget.left == 0


def test_bad_json_is_none_and_no_budget_means_no_limit() -> None:
    assert ask_json(ScriptedLLM(default="not json at all"), ASK, Reply, "tree_refine", 16) is None
    assert ask_json(ScriptedLLM([{"word": "two"}]), ASK, Reply, "tree_refine", 16, CallBudget()) == Reply(word="two")


def test_threads_never_take_more_than_the_budget() -> None:
    budget = CallBudget(50)
    taken: list[bool] = []
    lock = threading.Lock()

    def take() -> None:
        for _ in range(40):
            ok = budget.take()
            with lock:
                taken.append(ok)

    threads = [threading.Thread(target=take) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Each taken call reserves its repair: 25 fit, and none is settled here.
    assert taken.count(True) == 25 and budget.declined == 135 and budget.left == 0


def test_concurrent_repaired_calls_stay_within_the_budget() -> None:
    llm = ScriptedLLM(default="not json at all", concurrency=4)  # every call is repaired, and fails
    budget = CallBudget(5)
    threads = [threading.Thread(target=ask_json, args=(llm, ASK, Reply, "tree_refine", 16, budget)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(llm.calls) == 4 and budget.left == 1 and budget.declined == 2
