"""The question translator with the real embedded model: one short question into Korean."""

from __future__ import annotations

import pytest

from navicite.eval.translation import QuestionTranslator, korean_translation_problem
from navicite.llm.base import LLM

pytestmark = pytest.mark.llm


def test_real_model_translates_a_question_into_korean(real_llm: LLM) -> None:
    result = QuestionTranslator(real_llm, temperatures=(0.0, 0.6), max_tokens=80).run(
        "Where was Marie Curie born?"
    )
    assert result.problem is None, result
    # Hangul, no English clause, a finished sentence; the 1.5B model may transliterate the name.
    assert korean_translation_problem(result.text) is None
    assert result.text != "Where was Marie Curie born?"
