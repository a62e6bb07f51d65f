"""The LLM rerank backend with the real embedded model: one call grading three short passages."""

from __future__ import annotations

import pytest

from navicite.llm.base import LLM
from navicite.rerank.base import RerankItem
from navicite.rerank.fusion import FusionReranker
from navicite.rerank.llm_judge import LLMJudgeReranker

pytestmark = pytest.mark.llm

QUESTION = "Which river flows through Vienna?"
ITEMS = [
    RerankItem("bread", "Baking bread. Bread is made from flour, water, salt and yeast, then baked in an oven."),
    RerankItem("alps", "The Alps. The Alps are a mountain range across Austria, Switzerland, Italy and France."),
    RerankItem("danube", "Danube. The Danube flows through Vienna, Bratislava and Budapest to the Black Sea."),
]


def test_real_model_grades_every_passage_and_puts_the_answer_first(real_llm: LLM) -> None:
    judge = LLMJudgeReranker(FusionReranker(), real_llm, depth=3, batch=3)
    scored = judge.rerank(QUESTION, ITEMS, top_n=3)
    assert all("llm_grade" in s.signals for s in scored)  # a valid grade for each passage in one call
    assert scored[0].doc_id == "danube"
    assert scored[0].signals["llm_grade"] > max(s.signals["llm_grade"] for s in scored[1:])
    rerank_calls = [u for u in real_llm.usage.calls if u.stage == "rerank"]
    assert len(rerank_calls) == 1 and rerank_calls[0].completion_tokens <= 3 * 16 + 16
