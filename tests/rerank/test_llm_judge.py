from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from navicite import rerank
from navicite.config import Settings
from navicite.errors import ConfigError
from navicite.llm.base import LLMUnavailableError
from navicite.llm.cache import AnswerCache
from navicite.llm.scripted import ScriptedLLM
from navicite.rerank.base import RerankItem
from navicite.rerank.fusion import FusionReranker
from navicite.rerank.llm_judge import (
    Grades,
    LLMJudgeReranker,
    PassageGrade,
    merge_order,
    valid_grades,
)

QUESTION = "Which river flows through Vienna?"
# Prior (rrf) order: a, b, c, d, e, f.
ITEMS = [RerankItem(doc, f"Passage {doc.upper()} text", {"rrf": 1.0 - 0.1 * i}) for i, doc in enumerate("abcdef")]


def _grades(*pairs: tuple[int, int]) -> dict:
    return {"grades": [{"passage": p, "grade": g} for p, g in pairs]}


def _judge(llm: ScriptedLLM, depth: int = 4, batch: int = 2) -> LLMJudgeReranker:
    return LLMJudgeReranker(FusionReranker(), llm, depth=depth, batch=batch, passage_chars=200)


def test_valid_grades_drops_bad_indices_grades_and_repeats() -> None:
    reply = Grades(grades=[PassageGrade(passage=p, grade=g) for p, g in [(1, 3), (0, 2), (4, 1), (2, 7), (3, 1), (3, 2)]])
    assert valid_grades(reply, 3) == {0: 3}


def test_merge_order_moves_only_graded_ids() -> None:
    assert merge_order(["a", "b", "c", "d"], {"a": 0, "c": 3, "d": 3}) == ["c", "b", "d", "a"]
    assert merge_order(["a", "b"], {}) == ["a", "b"]


def test_grades_reorder_the_head_and_the_tail_keeps_prior_order(scripted_llm: Callable[..., ScriptedLLM]) -> None:
    llm = scripted_llm(_grades((1, 0), (2, 1)), _grades((1, 3), (2, 2)))
    scored = _judge(llm).rerank(QUESTION, ITEMS, top_n=6)
    assert [s.doc_id for s in scored] == ["c", "d", "b", "a", "e", "f"]
    assert [s.signals.get("llm_grade") for s in scored] == [3.0, 2.0, 1.0, 0.0, None, None]
    assert all("hybrid" in s.signals for s in scored)
    assert [s.score for s in scored] == sorted((s.score for s in scored), reverse=True)
    assert len(llm.calls) == 2 and llm.calls[0].json_schema is not None
    first = llm.calls[0].prompt
    assert QUESTION in first and "[1] Passage A text" in first and "[2] Passage B text" in first and "Passage C" not in first
    totals = llm.usage.totals()
    assert totals["rerank"]["calls"] == 2


def test_bad_json_and_wrong_indices_keep_prior_places(scripted_llm: Callable[..., ScriptedLLM]) -> None:
    # Batch 1: not JSON, and the repair is not JSON either. Batch 2: passage 9 does not exist, passage 2 graded.
    llm = scripted_llm("no idea", "still no JSON", _grades((9, 3), (2, 3)))
    scored = _judge(llm).rerank(QUESTION, ITEMS, top_n=6)
    # Only d got a usable grade, so nothing moves: graded candidates swap only among themselves.
    assert [s.doc_id for s in scored] == ["a", "b", "c", "d", "e", "f"]
    assert [s.signals.get("llm_grade") for s in scored] == [None, None, None, 3.0, None, None]
    assert len(llm.calls) == 3  # the failed batch had its one repair attempt


def test_failed_calls_leave_the_prior_order(scripted_llm: Callable[..., ScriptedLLM]) -> None:
    llm = scripted_llm(default=LLMUnavailableError("server down"))
    scored = _judge(llm).rerank(QUESTION, ITEMS, top_n=3)
    assert [s.doc_id for s in scored] == ["a", "b", "c"]
    assert not any("llm_grade" in s.signals for s in scored)


def test_depth_bounds_the_calls_and_answers_are_cached(tmp_path: Path) -> None:
    cache = AnswerCache(tmp_path / "llm.sqlite")
    llm = ScriptedLLM([_grades((1, 1), (2, 1), (3, 3))], cache=cache)
    judge = LLMJudgeReranker(FusionReranker(), llm, depth=3, batch=5)
    assert [s.doc_id for s in judge.rerank(QUESTION, ITEMS, 6)][:3] == ["c", "a", "b"]
    replay = LLMJudgeReranker(FusionReranker(), ScriptedLLM([], cache=cache), depth=3, batch=5)
    assert [s.doc_id for s in replay.rerank(QUESTION, ITEMS, 6)][:3] == ["c", "a", "b"]
    assert [s.doc_id for s in _judge(ScriptedLLM([]), depth=0).rerank(QUESTION, ITEMS, 2)] == ["a", "b"]
    assert _judge(ScriptedLLM([])).rerank(QUESTION, [], 2) == []


def test_create_builds_the_llm_backend_or_explains(settings: Settings, scripted_llm: Callable[..., ScriptedLLM]) -> None:
    cfg = settings.model_copy(update={"rerank": settings.rerank.model_copy(update={"backend": "llm", "llm": settings.rerank.llm.model_copy(update={"depth": 7})})})
    judge = rerank.create(cfg, llm=scripted_llm())
    assert judge.name == "llm" and judge.depth == 7 and judge.prior.name == "hybrid"
    rerank.release(judge)
    with pytest.raises(sqlite3.ProgrammingError):  # the hybrid first stage's store is closed with it
        judge.prior.store.get_many(["x"])
    no_llm = cfg.model_copy(update={"llm": cfg.llm.model_copy(update={"backend": "none"})})
    with pytest.raises(ConfigError, match="llm.backend"):
        rerank.create(no_llm)
