from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from navicite import rerank
from navicite.config import Settings, load_settings
from navicite.errors import ConfigError
from navicite.rerank.base import RerankItem, min_max
from navicite.rerank.cross_encoder import CrossEncoderReranker
from navicite.rerank.fusion import FusionReranker

QUESTION = "Does vitamin D supplementation prevent hip fractures?"
ITEMS = [
    RerankItem("gut", "Gut microbiome and obesity. Microbes differ between obese and lean people.", {"rrf": 0.03, "agreement": 5.0}),
    RerankItem("vitd", "Vitamin D and hip fracture. Cholecalciferol supplements lowered hip fractures in a trial.", {"rrf": 0.01, "bm25": 12.0, "agreement": 2.0}),
    RerankItem("statin", "Statins and heart attacks. Statin therapy reduced cardiovascular events.", {"rrf": 0.02, "bm25": 1.0, "agreement": 1.0}),
]


def test_min_max_scales_and_zeroes_constant_columns() -> None:
    assert np.allclose(min_max(np.array([2.0, 4.0, 3.0])), [0.0, 1.0, 0.5])
    assert np.allclose(min_max(np.array([7.0, 7.0])), [0.0, 0.0])


def test_fusion_orders_by_rrf_and_keeps_flat_order_without_it() -> None:
    assert [s.doc_id for s in FusionReranker().rerank(QUESTION, ITEMS, 2)] == ["gut", "statin"]
    flat = [RerankItem(i, "text") for i in ("a", "b", "c")]
    assert [s.doc_id for s in FusionReranker().rerank(QUESTION, flat, 5)] == ["a", "b", "c"]


def test_create_picks_backend_and_explains_bad_config(settings: Settings) -> None:
    assert rerank.create(settings.model_copy(update={"rerank": settings.rerank.model_copy(update={"backend": "none"})})).name == "none"
    assert rerank.create(settings).name == "hybrid"
    ce = settings.model_copy(update={"rerank": settings.rerank.model_copy(update={"backend": "cross-encoder"})})
    with pytest.raises(ConfigError, match="rerank.model"):
        rerank.create(ce)
    unknown = settings.model_copy(update={"rerank": settings.rerank.model_copy(update={"backend": "nope"})})
    with pytest.raises(ConfigError, match="not available"):
        rerank.create(unknown)


def test_hybrid_with_real_embeddings_prefers_the_relevant_text(settings: Settings) -> None:
    hybrid = rerank.create(settings)
    scored = hybrid.rerank(QUESTION, ITEMS, top_n=2)
    assert len(scored) == 2 and scored[0].doc_id == "vitd"
    top = scored[0].signals
    assert {"dense", "bm25", "agreement", "rrf"} <= set(top)
    assert top["dense"] > scored[1].signals["dense"]
    # Vectors are cached: a second call embeds only the question.
    calls: list[int] = []
    original = hybrid.embedder.embed
    hybrid.embedder.embed = lambda texts, query=False: calls.append(len(texts)) or original(texts, query=query)  # type: ignore[method-assign]
    hybrid.rerank(QUESTION, ITEMS, top_n=3)
    assert calls == [1]


def test_hybrid_dense_only_weights_follow_cosine(settings: Settings) -> None:
    dense_only = settings.model_copy(
        update={"rerank": settings.rerank.model_copy(update={"hybrid": settings.rerank.hybrid.model_copy(update={"bm25_weight": 0.0, "agreement_weight": 0.0})})}
    )
    scored = rerank.create(dense_only).rerank(QUESTION, ITEMS, top_n=3)
    cosines = [s.signals["dense"] for s in scored]
    assert cosines == sorted(cosines, reverse=True)


def test_cross_encoder_backend_loads_a_local_model(settings: Settings, tiny_cross_encoder: Path) -> None:
    cfg = settings.rerank.model_copy(update={"backend": "cross-encoder", "model": str(tiny_cross_encoder), "max_length": 64})
    reranker = rerank.create(settings.model_copy(update={"rerank": cfg}))
    assert isinstance(reranker, CrossEncoderReranker)
    scored = reranker.rerank(QUESTION, ITEMS, top_n=3)
    assert sorted(s.doc_id for s in scored) == ["gut", "statin", "vitd"]
    assert all(np.isfinite(s.signals["cross_encoder"]) for s in scored)
    assert [s.score for s in scored] == sorted((s.score for s in scored), reverse=True)


def test_cross_encoder_missing_model_is_a_config_error(tmp_path: Path) -> None:
    reranker = CrossEncoderReranker(str(tmp_path / "no-such-model"))
    with pytest.raises(ConfigError, match="cannot load cross-encoder"):
        reranker.rerank(QUESTION, ITEMS, 1)


def test_a_registered_backend_is_a_valid_setting_and_an_unknown_one_lists_the_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from navicite.pipeline import Engine

    monkeypatch.setattr(rerank, "_BACKENDS", dict(rerank._BACKENDS))  # the registration ends with the test
    rerank.register_backend("test-fusion", lambda settings, known_vectors=None: FusionReranker())
    chosen = load_settings(tmp_path, ["rerank.backend=test-fusion"])
    assert isinstance(rerank.create(chosen), FusionReranker)
    assert "test-fusion" in rerank.backends()
    misspelt = load_settings(tmp_path, ["rerank.backend=hybird"])  # any name loads; the registry decides
    with pytest.raises(ConfigError, match=r"'hybird' is not available; choose one of cross-encoder, hybrid, llm, navicite, none, test-fusion"):
        Engine(misspelt)


def test_hybrid_leaves_out_the_cosine_for_a_language_the_model_does_not_read(settings: Settings) -> None:
    hybrid = rerank.create(settings)  # the shipped MiniLM: English only
    calls: list[int] = []
    original = hybrid.embedder.embed
    hybrid.embedder.embed = lambda texts, query=False: calls.append(len(texts)) or original(texts, query=query)  # type: ignore[method-assign]
    scored = hybrid.rerank("비타민 D 보충제는 고관절 골절을 예방하는가?", ITEMS, top_n=3)
    assert calls == []  # neither the question nor the passages were embedded
    assert all("dense" not in s.signals for s in scored)
    # BM25 (weight 0.4) and agreement (0.1) alone: vitd's BM25 outweighs gut's agreement.
    assert [s.doc_id for s in scored] == ["vitd", "gut", "statin"]
