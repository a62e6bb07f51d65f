"""MPR analysis and translation with the real embedded model (slow: ~1 minute per call on a busy machine)."""

from __future__ import annotations

from pathlib import Path

import pytest

from navicite import index as index_package
from navicite.config import Settings
from navicite.documents import Document
from navicite.llm.base import LLM, usage_scope
from navicite.rerank.fusion import FusionReranker
from navicite.retrieve.keywords import is_generic
from navicite.retrieve.mpr import MultiPortfolioRetriever
from navicite.text.language import question_language

pytestmark = pytest.mark.llm

DOCS = [
    Document("e1", "Vitamin D and hip fractures in older women", "Cholecalciferol supplements lowered hip fracture rates."),
    Document("e2", "Statins and heart disease", "Statin therapy reduced cardiovascular events."),
    Document("k1", "노인의 비타민 D 보충과 골절", "비타민 D 보충은 노인의 골절 위험을 낮추었다."),
]


@pytest.fixture(scope="module")
def retriever(real_llm: LLM, tmp_path_factory: pytest.TempPathFactory) -> MultiPortfolioRetriever:
    settings = Settings(home=tmp_path_factory.mktemp("mpr-real"))
    settings.retrieve.analysis = "llm"  # the method's analysis call (the embedded model's default is statistical)
    idx = index_package.create(settings)
    idx.upsert(DOCS)
    return MultiPortfolioRetriever(idx, real_llm, FusionReranker(), settings)


def test_english_question_gets_valid_keywords(retriever: MultiPortfolioRetriever) -> None:
    with usage_scope() as calls:
        analysis = retriever.analyzer.run("Summarise whether statins reduce the risk of heart attacks.")
    assert analysis.path == "llm", analysis.fallback_reason
    # One call that ends within its budget: a cut reply would cost a repair call as long again.
    assert len(calls) == 1 and calls[0].completion_tokens < retriever.analyzer.max_tokens, calls
    assert analysis.language == "en"
    assert 1 <= len(analysis.primary) <= 5 and 1 <= len(analysis.expanded) <= 3
    terms = [k.term.lower() for k in analysis.primary]
    assert any("statin" in t for t in terms)
    assert not any(is_generic(k.term) for k in analysis.primary + analysis.expanded)


def test_korean_question_is_analysed_and_translated_for_g(retriever: MultiPortfolioRetriever, tmp_path: Path) -> None:
    result = retriever.run("비타민 D 보충이 노인의 골절을 줄이는지 요약해 주세요.")
    analysis = result.analysis
    assert analysis.path == "llm", analysis.fallback_reason
    assert analysis.language == "ko"
    assert any(any("\uac00" <= ch <= "\ud7a3" for ch in k.term) for k in analysis.primary)
    assert not any(is_generic(k.term) for k in analysis.primary)
    # The collection also holds English documents, so G searches with English translations.
    assert result.translation is not None and result.translation.language == "en", result.portfolios.skipped
    assert any(q.portfolio == "G" for q in result.portfolios.queries)
    # The whole question comes back in English too, and is reranked against.
    assert result.translation.question and question_language(result.translation.question) == "en", result.translation
    assert result.ranked_against[1] == result.translation.question
    # Korean takes more tokens per keyword than English: the reply must still fit the budget in one call.
    assert result.llm["analyze"]["calls"] == 1 and result.llm["translate"]["calls"] >= 1
    assert result.llm["analyze"]["completion_tokens"] < retriever.analyzer.max_tokens
    assert {c.doc_id for c in result.pool} & {"k1", "e1"}
