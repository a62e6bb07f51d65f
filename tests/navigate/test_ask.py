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
    budget = CallBudget(1)
    assert ask_json(llm, ASK, Reply, "tree_refine", 16, budget) == Reply(word="one")
    assert ask_json(llm, ASK, Reply, "tree_refine", 16, budget) is None
    assert len(llm.calls) == 1 and budget.declined == 1


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
    assert taken.count(True) == 50 and budget.declined == 110 and budget.left == 0
