from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from navicite import rerank
from navicite.config import Settings
from navicite.errors import ConfigError
from navicite.rerank import navicite_ce
from navicite.rerank.base import RerankItem
from navicite.rerank.fusion import FusionReranker
from navicite.rerank.navicite_ce import CascadeReranker, resolve_weights
from navicite.rerank.onnx import OnnxCrossEncoder

QUESTION = "Does vitamin D supplementation prevent hip fractures?"
# Prior (rrf) order: a, b, c, d, e.
ITEMS = [RerankItem(doc, f"text {doc}", {"rrf": 1.0 - 0.1 * i}) for i, doc in enumerate("abcde")]


class TableScorer(OnnxCrossEncoder):
    """Scores from a table by text (control-flow tests only); records what it was asked."""

    def __init__(self, table: dict[str, float]) -> None:
        self.table = table
        self.seen: list[list[str]] = []

    def score(self, question: str, texts: Sequence[str], max_length: int = 256, batch_size: int = 16) -> np.ndarray:
        self.seen.append(list(texts))
        return np.array([self.table[t] for t in texts], dtype=np.float32)


def _with(settings: Settings, **rerank_values: object) -> Settings:
    return settings.model_copy(update={"rerank": settings.rerank.model_copy(update=rerank_values)})


def test_cascade_scores_only_the_head_and_keeps_it_above_the_tail() -> None:
    scorer = TableScorer({"text a": 0.0, "text b": 1.0, "text c": 5.0})
    cascade = CascadeReranker(FusionReranker(), scorer, depth=3, weight=1.0)
    scored = cascade.rerank(QUESTION, ITEMS, top_n=5)
    assert scorer.seen == [["text a", "text b", "text c"]]
    assert [s.doc_id for s in scored] == ["c", "b", "a", "d", "e"]
    assert scored[0].signals["navicite"] == 5.0 and "navicite" not in scored[3].signals
    assert all("hybrid" in s.signals and "rrf" in s.signals for s in scored)
    assert [s.score for s in scored] == sorted((s.score for s in scored), reverse=True)


def test_cascade_weight_blends_prior_and_cross_encoder() -> None:
    scorer = TableScorer({"text a": 0.0, "text b": 1.0, "text c": 2.0})
    prior_only = CascadeReranker(FusionReranker(), scorer, depth=3, weight=0.0).rerank(QUESTION, ITEMS, 3)
    assert [s.doc_id for s in prior_only] == ["a", "b", "c"]
    # The prior's scaled scores over the head are 1, 0.5, 0; the CE's 0, 0.5, 1: at 0.6 the CE wins.
    blended = CascadeReranker(FusionReranker(), scorer, depth=3, weight=0.6).rerank(QUESTION, ITEMS, 3)
    assert [s.doc_id for s in blended] == ["c", "b", "a"]


def test_cascade_depth_zero_and_empty_input() -> None:
    scorer = TableScorer({})
    cascade = CascadeReranker(FusionReranker(), scorer, depth=0)
    assert [s.doc_id for s in cascade.rerank(QUESTION, ITEMS, 2)] == ["a", "b"]
    assert cascade.rerank(QUESTION, [], 5) == []
    assert scorer.seen == []


def test_missing_weights_say_what_to_do(settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(navicite_ce, "SHIPPED_WEIGHTS", tmp_path / "no-weights")
    with pytest.raises(ConfigError, match=r"navicite rerank train.*rerank.backend=hybrid"):
        rerank.create(_with(settings, backend="navicite"))
    with pytest.raises(ConfigError, match="rerank.model="):
        rerank.create(_with(settings, backend="navicite", model=str(tmp_path)))


def test_hugging_face_folder_is_exported_once_into_the_cache(
    seeded_cross_encoder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[Path, Path, bool]] = []

    def fake_export(model_dir: Path, out_dir: Path, quantize: bool = True) -> Path:
        calls.append((model_dir, out_dir, quantize))
        out_dir.mkdir(parents=True)
        (out_dir / "model_int8.onnx").write_bytes(b"x")
        (out_dir / "tokenizer.json").write_text("{}")
        return out_dir

    monkeypatch.setattr(navicite_ce, "export_onnx", fake_export)
    first = resolve_weights(str(seeded_cross_encoder), "int8", tmp_path)
    again = resolve_weights(str(seeded_cross_encoder), "int8", tmp_path)
    assert first == again and first.is_relative_to(tmp_path / "rerank-onnx")
    assert len(calls) == 1 and calls[0][2] is True


def test_navicite_backend_with_a_real_exported_model(settings: Settings, exported_cross_encoder: Path) -> None:
    items = [
        RerankItem("vitd", "Vitamin D and hip fracture. Supplements lowered hip fractures in a trial.", {"bm25": 9.0}),
        RerankItem("gut", "Gut microbiome and obesity. Microbes differ between obese and lean people.", {"bm25": 1.0}),
        RerankItem("statin", "Statins and heart attacks. Statin therapy reduced cardiovascular events.", {"bm25": 2.0}),
    ]
    for variant in ("int8", "fp32"):
        reranker = rerank.create(_with(settings, backend="navicite", model=str(exported_cross_encoder), navicite=settings.rerank.navicite.model_copy(update={"onnx_variant": variant, "depth": 2})))
        assert reranker.name == "navicite"
        scored = reranker.rerank(QUESTION, items, top_n=3)
        assert sorted(s.doc_id for s in scored) == ["gut", "statin", "vitd"]
        head = [s for s in scored if "navicite" in s.signals]
        assert len(head) == 2 and all(np.isfinite(s.signals["navicite"]) for s in head)
        assert {"dense", "bm25", "hybrid"} <= set(scored[0].signals)
        assert scored[2].score < 1.0 <= scored[1].score  # the tail sits below the cascaded head
        rerank.release(reranker)
        with pytest.raises(sqlite3.ProgrammingError):  # the hybrid first stage's store is closed with it
            reranker.prior.store.get_many(["x"])


def test_shipped_weights_rank_the_relevant_abstract_first(settings: Settings) -> None:
    # No rerank.model: the int8 network inside the package, at the default length; weight 1 ranks by it alone.
    items = [
        RerankItem("gut", "Gut microbiome and obesity\nMicrobes differ between obese and lean people.", {"bm25": 3.0}),
        RerankItem("vitd", "Vitamin D and falls\nIn a trial of 2,000 women, vitamin D supplements lowered the rate of hip fractures.", {"bm25": 1.0}),
        RerankItem("statin", "Statins and heart attacks\nStatin therapy reduced cardiovascular events.", {"bm25": 2.0}),
    ]
    reranker = rerank.create(_with(settings, backend="navicite", navicite=settings.rerank.navicite.model_copy(update={"weight": 1.0})))
    try:
        scored = reranker.rerank("Vitamin D supplementation reduces hip fractures in older women.", items, top_n=3)
    finally:
        rerank.release(reranker)
    assert scored[0].doc_id == "vitd"
    assert scored[0].signals["navicite"] > max(s.signals["navicite"] for s in scored[1:])
