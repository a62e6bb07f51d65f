from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from navicite.config import Settings
from navicite.index.base import LexicalIndex
from navicite.llm.scripted import ScriptedLLM
from navicite.rerank.fusion import FusionReranker
from navicite.retrieve.expand import analysis_by_llm
from navicite.retrieve.mpr import MultiPortfolioRetriever
from navicite.stages import StageRecorder

ANALYSIS = {
    "primary": [
        {"term": "vitamin D", "synonyms": ["cholecalciferol"]},
        {"term": "fracture", "synonyms": []},
        {"term": "elderly", "synonyms": ["older adults"]},
        {"term": "supplementation", "synonyms": []},
        {"term": "women", "synonyms": []},
    ],
    "expanded": ["bone density", "osteoporosis", "falls"],
}
TRANSLATION = {"question": "비타민 D가 노인의 골절을 막아주나요?", "primary": ["비타민 D", "골절", "노인"], "expanded": ["골밀도", "골다공증", "낙상"]}


def retriever(llm, index: LexicalIndex, tmp_path: Path, flat: bool = False, analysis: str | None = "llm") -> MultiPortfolioRetriever:
    """MPR over ``index``; the scripted model analyses unless ``analysis`` says otherwise."""
    settings = Settings(home=tmp_path)
    settings.retrieve.flat_portfolio = flat
    settings.retrieve.analysis = analysis
    return MultiPortfolioRetriever(index, llm, FusionReranker(), settings)


def test_run_builds_all_portfolios_pools_and_keeps_provenance(small_index: LexicalIndex, tmp_path: Path) -> None:
    llm = ScriptedLLM([ANALYSIS, TRANSLATION])
    result = retriever(llm, small_index, tmp_path).run("Does vitamin D prevent fractures in the elderly?")
    # The collection holds English and Korean documents, so G translates into Korean.
    assert [q.portfolio for q in result.portfolios.queries] == ["Q"] * 3 + ["S"] * 3 + ["F"] * 2 + ["G"] * 2
    assert result.translation is not None and result.translation.language == "ko"
    assert "Korean" in llm.calls[1].prompt
    assert len(result.results) == 11 and not result.errors  # the 10 portfolio queries and the translated question (G)
    ids = [c.doc_id for c in result.pool]
    assert len(ids) == len(set(ids))
    assert {"d1", "k1"} <= set(ids)  # English via Q/S/F, Korean only via G
    korean = next(c for c in result.pool if c.doc_id == "k1")
    assert {p.portfolio for p in korean.provenance} == {"G"}
    # S excludes noise-term documents ("review", "image"), Q does not.
    d6 = next((c for c in result.pool if c.doc_id == "d6"), None)
    assert d6 is None or "S" not in d6.portfolios
    assert result.ranked[0].doc_id == "d1"  # found by every English portfolio
    assert result.reranker == "none"
    assert result.llm["analyze"]["calls"] == 1 and result.llm["translate"]["calls"] == 1
    assert set(result.timings) == {"analyze", "translate", "search", "pool", "rerank"}
    data = result.to_dict()
    assert data["pool_size"] == len(result.pool)
    assert data["ranked"][0]["provenance"][0]["portfolio"] in "QSFG"



def test_each_step_is_a_stage_of_the_callers_recorder(small_index: LexicalIndex, tmp_path: Path) -> None:
    recorder = StageRecorder()
    with recorder.stage("before"):
        pass
    result = retriever(ScriptedLLM([ANALYSIS, TRANSLATION]), small_index, tmp_path).run("Does vitamin D prevent fractures?", recorder=recorder)
    assert [s.name for s in recorder.stages] == ["before", "analyze", "translate", "search", "pool", "rerank"]
    assert [u.stage for u in recorder.stages[1].calls] == ["analyze"]
    # The result's timings and usage are this run's stages only.
    assert result.timings == {s.name: s.seconds for s in recorder.stages[1:]}
    assert result.llm == StageRecorder(recorder.stages[1:]).usage()["stages"]

KOREAN_ANALYSIS = {
    "primary": [
        {"term": "비타민 D", "synonyms": []},
        {"term": "골절", "synonyms": []},
        {"term": "노인", "synonyms": []},
        {"term": "보충", "synonyms": []},
        {"term": "여성", "synonyms": []},
    ],
    "expanded": ["골밀도", "골다공증", "낙상"],
}
ENGLISH_TRANSLATION = {
    "question": "Does vitamin D  supplementation prevent fractures in the elderly?",
    "primary": ["vitamin D", "fracture", "elderly"], "expanded": ["bone density", "osteoporosis", "falls"],
}

TRANSLATED = "Does vitamin D supplementation prevent fractures in the elderly?"  # the reply's spaces folded


def test_korean_question_reaches_english_documents_through_g(small_index: LexicalIndex, tmp_path: Path) -> None:
    llm = ScriptedLLM([KOREAN_ANALYSIS, ENGLISH_TRANSLATION])
    result = retriever(llm, small_index, tmp_path).run("비타민 D 보충제가 노인의 골절을 막아주나요?")
    assert result.analysis.language == "ko" and "English" in llm.calls[1].prompt
    g = [q.text for q in result.portfolios.queries if q.portfolio == "G"]
    assert g and "fracture" in g[0]
    english = next(c for c in result.pool if c.doc_id == "d1")
    assert "G" in english.portfolios
    # The Korean keywords still find the Korean documents, whatever particles the text has.
    assert {"k1", "k2"} <= {c.doc_id for c in result.pool}
    # The translated keywords are in the trace (what `ask` records for its retrieve stage).
    assert result.to_dict()["translation"] == {"language": "en", **ENGLISH_TRANSLATION, "question": TRANSLATED}


def test_no_llm_runs_the_fallback_and_records_skipped_g(small_index: LexicalIndex, tmp_path: Path) -> None:
    result = retriever(None, small_index, tmp_path).run("Does BRCA1 raise breast cancer risk?")
    assert result.analysis.path == "fallback"
    assert result.portfolios.skipped["G"] == "no LLM configured to translate keywords"
    d4 = next(c for c in result.pool if c.doc_id == "d4")
    assert "F" in d4.portfolios  # (p1 OR p2 OR p3) AND p4 holds BRCA1 AND cancer


def test_the_embedded_model_does_not_analyse_by_default_but_still_translates(small_index: LexicalIndex, tmp_path: Path) -> None:
    # Unset, retrieve.analysis is statistical with the embedded backend (the settings' default):
    # the model's first call is portfolio G's translation, not the analysis.
    llm = ScriptedLLM([TRANSLATION])
    result = retriever(llm, small_index, tmp_path, analysis=None).run("Does vitamin D prevent fractures in the elderly?")
    assert result.analysis.path == "fallback" and "retrieve.analysis=statistical" in (result.analysis.fallback_reason or "")
    assert len(llm.calls) == 1 and "Korean" in llm.calls[0].prompt
    assert {"Q", "S", "G"} <= {q.portfolio for q in result.portfolios.queries}


@pytest.mark.parametrize(
    ("backend", "analysis", "by_llm"),
    [("embedded", None, False), ("openai", None, True), ("embedded", "llm", True), ("openai", "statistical", False)],
)
def test_who_analyses_follows_the_backend_unless_set(backend: str, analysis: str | None, by_llm: bool, tmp_path: Path) -> None:
    settings = Settings(home=tmp_path)
    settings.llm.backend = backend
    settings.retrieve.analysis = analysis
    assert analysis_by_llm(settings) is by_llm


def test_flat_portfolio_b_adds_the_bag_of_words_hits(small_index: LexicalIndex, tmp_path: Path) -> None:
    question = "Does BRCA1 raise breast cancer risk?"
    strict = retriever(None, small_index, tmp_path).run(question)
    with_b = retriever(None, small_index, tmp_path, flat=True).run(question)
    assert [r.portfolio for r in with_b.results] == [r.portfolio for r in strict.results] + ["B"]
    assert with_b.results[-1].query == "Does OR BRCA1 OR raise OR breast OR cancer OR risk"
    assert with_b.results[-1].hits[0].doc_id == "d4"
    assert {c.doc_id for c in strict.pool} <= {c.doc_id for c in with_b.pool}
    assert "B" in next(c for c in with_b.pool if c.doc_id == "d4").portfolios


def test_bad_translation_skips_g_with_reason(small_index: LexicalIndex, tmp_path: Path) -> None:
    llm = ScriptedLLM([ANALYSIS, "no json", "still no json"])
    result = retriever(llm, small_index, tmp_path).run("Does vitamin D prevent fractures in the elderly?")
    assert "translation failed" in result.portfolios.skipped["G"]
    assert "G" not in {q.portfolio for q in result.portfolios.queries}


def test_create_retriever_from_settings(tmp_path: Path) -> None:
    from navicite.config import load_settings
    from navicite.retrieve.mpr import create_retriever

    settings = load_settings(tmp_path, ["llm.backend=none", "rerank.backend=none"])
    retriever_ = create_retriever(settings)
    assert retriever_.llm is None and retriever_.reranker.name == "none"
    result = retriever_.run("anything at all")  # an empty collection: nothing found, nothing raised
    assert result.pool == [] and result.analysis.path == "fallback"


def test_portfolio_d_pools_documents_found_by_meaning_only(tmp_path: Path) -> None:
    from navicite.retrieve.mpr import collection_dense, create_retriever

    assert collection_dense(Settings(home=tmp_path)) is None  # nothing embedded yet: no portfolio D
    settings, lexical = embedded_collection(tmp_path)
    result = create_retriever(settings, index=lexical, reranker=FusionReranker()).run("Why are dogs loyal pets?")
    d = [r for r in result.results if r.portfolio == "D"]
    assert len(d) == 1 and d[0].hits[0].doc_id == "canine"
    found_by = {c.doc_id: {p.portfolio for p in c.provenance} for c in result.pool}
    assert found_by["canine"] == {"D"}  # no question word occurs in it: only the embedding finds it


def embedded_collection(home: Path) -> tuple[Settings, LexicalIndex]:
    """Three documents with stored document vectors (as ``navicite ingest --embed`` leaves them)."""
    from navicite import embed, index
    from navicite.documents import Document
    from navicite.ingest.vectors import embed_collection
    from navicite.vectors import open_store

    settings = Settings(home=home)
    settings.llm.backend = "none"
    lexical = index.create(settings)
    lexical.upsert([
        Document(id="canine", title="Canine companions", abstract="Puppies bond with the families that raise them."),
        Document(id="reef", title="Coral reefs", abstract="Warm water bleaches coral."),
        Document(id="otter", title="Sea otters", abstract="Otters crack shellfish with stones."),
    ])
    with open_store(home, settings.embed.model) as store:
        embed_collection(lexical, store, embed.create(settings))
    return settings, lexical


def test_portfolio_d_loads_the_stored_vectors_on_the_first_search_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from navicite.retrieve.mpr import collection_dense, create_retriever
    from navicite.vectors import VectorStore

    settings, lexical = embedded_collection(tmp_path)
    reads: list[int] = []
    original = VectorStore.document_vectors
    monkeypatch.setattr(VectorStore, "document_vectors", lambda self: reads.append(1) or original(self))
    dense = collection_dense(settings)
    retriever_ = create_retriever(settings, index=lexical, reranker=FusionReranker())
    assert dense is not None and reads == []  # creating the engine's searcher reads no vectors
    for _ in range(2):
        result = retriever_.run("Why are dogs loyal pets?")
        assert [h.doc_id for r in result.results if r.portfolio == "D" for h in r.hits][:1] == ["canine"]
    assert reads == [1]
    retriever_.close()
    dense.close()  # type: ignore[attr-defined]


def test_no_portfolio_d_while_no_document_has_a_vector(tmp_path: Path) -> None:
    from navicite import index
    from navicite.documents import Document
    from navicite.retrieve.mpr import create_retriever
    from navicite.vectors import open_store

    settings = Settings(home=tmp_path)
    settings.llm.backend = "none"
    lexical = index.create(settings)
    lexical.upsert([Document(id="reef", title="Coral reefs", abstract="Warm water bleaches coral.")])
    with open_store(tmp_path, settings.embed.model) as store:  # a reranker's passage vectors only
        store.put_many({"passage": np.ones(384, dtype=np.float32)})
    retriever_ = create_retriever(settings, index=lexical, reranker=FusionReranker())
    assert retriever_.dense is not None
    result = retriever_.run("coral reefs")
    assert "D" not in {r.portfolio for r in result.results}
    retriever_.close()


def test_closing_the_retriever_closes_the_reranker_and_portfolio_d_stores(tmp_path: Path) -> None:
    from navicite.retrieve.mpr import create_retriever

    settings, lexical = embedded_collection(tmp_path)
    retriever_ = create_retriever(settings, index=lexical)
    assert retriever_.reranker.name == "hybrid"
    retriever_.run("Why are dogs loyal pets?")
    retriever_.close()
    for store in (retriever_.reranker.store, retriever_.dense.store):  # type: ignore[attr-defined,union-attr]
        with pytest.raises(sqlite3.ProgrammingError):
            store.get_many(["x"])


def test_the_translated_question_is_searched_and_reranked_against(small_index: LexicalIndex, tmp_path: Path) -> None:
    llm = ScriptedLLM([KOREAN_ANALYSIS, ENGLISH_TRANSLATION])
    result = retriever(llm, small_index, tmp_path).run("비타민 D 보충제가 노인의 골절을 막아주나요?")
    assert "Question: 비타민 D 보충제가 노인의 골절을 막아주나요?" in llm.calls[1].prompt
    translated = TRANSLATED
    assert result.translation is not None and result.translation.question == translated  # spaces folded
    free = [r for r in result.results if r.portfolio == "G" and r.query.startswith("Does OR vitamin")]
    assert len(free) == 1 and free[0].hits[0].doc_id == "d1"
    assert result.ranked_against == ["비타민 D 보충제가 노인의 골절을 막아주나요?", translated]
    assert result.to_dict()["translation"]["question"] == translated
