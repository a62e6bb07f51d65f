"""The ONNX MiniLM encoder gives sentence-transformers' vectors, without torch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from navicite import embed
from navicite.embed import bert_onnx
from navicite.embed.models import shipped_folder

#: sentence-transformers' vectors of 16 texts (12 SciFact abstracts, a question, a Korean question,
#: one letter, and a text past the 256-token limit), written by bench/embed_onnx_check.py --write-fixture.
REFERENCE = Path(__file__).resolve().parents[1] / "fixtures" / "minilm_reference.npz"


def test_vectors_equal_sentence_transformers_on_the_reference_texts() -> None:
    reference = np.load(REFERENCE)
    texts, expected = [str(t) for t in reference["texts"]], reference["vectors"]
    got = embed.shipped(batch_size=5).embed(texts)  # batches of mixed lengths: padding must not change a vector
    assert got.shape == expected.shape and got.dtype == np.float32
    cosine = (got * expected).sum(axis=1)
    assert cosine.min() >= 0.999, cosine
    # The default settings choose this encoder.
    from navicite.config import load_settings

    assert isinstance(embed.create(load_settings("/nonexistent-home")), bert_onnx.OnnxBertEmbedder)


def test_a_text_alone_and_in_a_batch_gets_the_same_vector() -> None:
    encoder = embed.shipped(batch_size=8)
    texts = ["short one", "a considerably longer sentence about the homocysteine levels of adults " * 3]
    together = encoder.embed(texts)
    alone = np.vstack([encoder.embed([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_only_bert_encoders_with_mean_pooling_are_built(tmp_path: Path) -> None:
    assert bert_onnx.supports(shipped_folder())
    other = tmp_path / "model"
    other.mkdir()
    for name in ("config.json", "model.safetensors", "tokenizer.json"):
        (other / name).write_bytes((shipped_folder() / name).read_bytes())
    assert not bert_onnx.supports(other)  # no pooling config: not known to be mean pooling
    (other / "1_Pooling").mkdir()
    (other / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_cls_token": True}), encoding="utf-8")
    assert not bert_onnx.supports(other)
    (other / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_mean_tokens": True}), encoding="utf-8")
    assert bert_onnx.supports(other)
    config = json.loads((other / "config.json").read_text(encoding="utf-8"))
    (other / "config.json").write_text(json.dumps({**config, "model_type": "xlm-roberta"}), encoding="utf-8")
    assert not bert_onnx.supports(other)


def test_a_damaged_weight_file_is_a_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    for name in ("config.json", "tokenizer.json"):
        (folder / name).write_bytes((shipped_folder() / name).read_bytes())
    (folder / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(embed.EmbedderUnavailable, match="embed.model"):
        bert_onnx.OnnxBertEmbedder(folder, "broken").embed(["x"])


def test_an_ask_with_the_default_embedder_and_reranker_never_imports_torch(tmp_path: Path) -> None:
    # In a child process: this test process may have imported torch for other tests.
    script = "\n".join([
        "import sys",
        "import navicite",
        "from navicite.ingest.sample import sample_documents",
        "from navicite.llm.scripted import ScriptedLLM",
        # The model is not what this is about: a scripted one says the same thing to every request.
        "model = ScriptedLLM(default='Folic acid lowers homocysteine [1].')",
        f"with navicite.Collection({str(tmp_path / 'home')!r}, llm=model) as c:",
        "    c.add(sample_documents())",
        "    answer = c.ask('Does folic acid supplementation lower blood homocysteine levels?')",
        "    retrieve = answer.trace[0].outputs",
        "    assert retrieve['reranker'] in ('hybrid', 'navicite'), retrieve['reranker']",
        "assert 'onnxruntime' in sys.modules, 'the embedder did not run'",
        "assert 'torch' not in sys.modules, 'torch was imported'",
        "assert 'sentence_transformers' not in sys.modules",
        "print('ok')",
    ])
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-2000:]


def test_embedders_of_one_model_share_one_built_encoder() -> None:
    # Retrieval, the reranker and ingest each create an embedder: the graph is built once a process.
    assert embed.shipped()._load() is embed.shipped(batch_size=8)._load()
