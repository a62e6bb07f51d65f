"""A BERT sentence encoder run by ONNX Runtime, built from its safetensors weights (no torch).

sentence-transformers needs PyTorch, several hundred megabytes, to run the 22M-parameter
MiniLM. The encoder is a short stack of standard operations, so this module writes it as an
ONNX graph straight from the weight file (a second or so, in memory, on first use) and runs
it with ONNX Runtime and the ``tokenizers`` library, both of which the cross-encoder already
needs. The sentence vector is what sentence-transformers computes for such a model: the
mean of the last layer's token vectors under the attention mask, scaled to unit length.
``bench/embed_onnx_check.py`` compares the two on 1,000 SciFact passages.

Only BERT-family encoders with mean pooling are built here (the shipped MiniLM and its
relatives); :func:`supports` says whether a folder is one.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from navicite.embed.base import EmbedderUnavailable

#: The ONNX operator set the graph is written in (LayerNormalization needs 17).
OPSET = 17
#: Added to the attention score of a padding position: its softmax weight becomes 0 in float32.
_MASKED = -1e9


@dataclass(frozen=True)
class BertShape:
    """The sizes of a BERT encoder, read from its ``config.json``."""

    hidden: int
    heads: int
    layers: int
    eps: float

    @classmethod
    def read(cls, folder: Path) -> BertShape:
        """The shape in ``folder/config.json``."""
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        return cls(
            hidden=int(config["hidden_size"]), heads=int(config["num_attention_heads"]),
            layers=int(config["num_hidden_layers"]), eps=float(config.get("layer_norm_eps", 1e-12)),
        )


def supports(folder: Path) -> bool:
    """Whether ``folder`` holds a BERT encoder with mean pooling that this module can run."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        pooling = folder / "1_Pooling" / "config.json"
        mean = json.loads(pooling.read_text(encoding="utf-8")).get("pooling_mode_mean_tokens", False) if pooling.is_file() else False
    except (OSError, ValueError):
        return False
    return (
        config.get("model_type") == "bert" and config.get("hidden_act", "gelu") == "gelu"
        and config.get("position_embedding_type", "absolute") == "absolute" and bool(mean)
        and (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file()
    )


def max_tokens(folder: Path, default: int = 256) -> int:
    """The sequence length sentence-transformers truncates to for this model."""
    config = folder / "sentence_bert_config.json"
    try:
        return int(json.loads(config.read_text(encoding="utf-8")).get("max_seq_length", default))
    except (OSError, ValueError, TypeError):
        return default


def _weights(folder: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    tensors = load_file(str(folder / "model.safetensors"))
    # Some exports prefix every name with the architecture ("bert.encoder..."): drop it.
    return {name.removeprefix("bert."): value for name, value in tensors.items()}


def build_encoder(weights: dict[str, np.ndarray], shape: BertShape):  # noqa: ANN201 -- onnx.ModelProto, an optional dependency
    """The encoder layers as an ONNX model: ``embedded`` [batch, tokens, hidden] and
    ``mask_bias`` [batch, 1, 1, tokens] in, the last layer's ``hidden`` [batch, tokens, hidden] out.

    The embedding lookup and pooling stay outside the graph (numpy does them in microseconds),
    which keeps the graph to the part worth running fast.
    """
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits = [], []
    head = shape.hidden // shape.heads

    def const(name: str, value: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(kind: str, inputs: list[str], out: str, **attrs: object) -> str:
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def linear(x: str, prefix: str, out: str) -> str:
        # torch keeps a linear layer's weight as [out, in]; MatMul wants [in, out].
        w = const(f"{prefix}.w", weights[f"{prefix}.weight"].T)
        b = const(f"{prefix}.b", weights[f"{prefix}.bias"])
        return op("Add", [op("MatMul", [x, w], f"{out}.mm"), b], out)

    def norm(x: str, prefix: str, out: str) -> str:
        scale = const(f"{prefix}.g", weights[f"{prefix}.weight"])
        bias = const(f"{prefix}.beta", weights[f"{prefix}.bias"])
        return op("LayerNormalization", [x, scale, bias], out, axis=-1, epsilon=shape.eps)

    split = const("split_heads", np.array([0, 0, shape.heads, head], dtype=np.int64))
    join = const("join_heads", np.array([0, 0, shape.hidden], dtype=np.int64))
    scale = const("attn_scale", np.array(1.0 / np.sqrt(head), dtype=np.float32))
    half = const("half", np.array(0.5, dtype=np.float32))
    one = const("one", np.array(1.0, dtype=np.float32))
    root2 = const("root2", np.array(np.sqrt(2.0), dtype=np.float32))

    x = norm("embedded", "embeddings.LayerNorm", "h0")
    for i in range(shape.layers):
        p, a = f"encoder.layer.{i}", f"l{i}"

        def heads(name: str, perm: list[int]) -> str:
            projected = linear(x, f"{p}.attention.self.{name}", f"{a}.{name}")
            return op("Transpose", [op("Reshape", [projected, split], f"{a}.{name}.r")], f"{a}.{name}.t", perm=perm)

        q, k, v = heads("query", [0, 2, 1, 3]), heads("key", [0, 2, 3, 1]), heads("value", [0, 2, 1, 3])
        scores = op("Add", [op("Mul", [op("MatMul", [q, k], f"{a}.qk"), scale], f"{a}.qks"), "mask_bias"], f"{a}.scores")
        context = op("MatMul", [op("Softmax", [scores], f"{a}.p", axis=-1), v], f"{a}.ctx")
        context = op("Reshape", [op("Transpose", [context], f"{a}.ctx.t", perm=[0, 2, 1, 3]), join], f"{a}.ctx.r")
        attended = linear(context, f"{p}.attention.output.dense", f"{a}.ao")
        x1 = norm(op("Add", [attended, x], f"{a}.res1"), f"{p}.attention.output.LayerNorm", f"{a}.h1")
        inner = linear(x1, f"{p}.intermediate.dense", f"{a}.in")
        # BERT's GELU is the exact one: x * (1 + erf(x / sqrt 2)) / 2.
        erf = op("Erf", [op("Div", [inner, root2], f"{a}.in.s")], f"{a}.erf")
        gelu = op("Mul", [op("Mul", [inner, op("Add", [erf, one], f"{a}.erf1")], f"{a}.g0"), half], f"{a}.gelu")
        out = linear(gelu, f"{p}.output.dense", f"{a}.out")
        x = norm(op("Add", [out, x1], f"{a}.res2"), f"{p}.output.LayerNorm", f"{a}.h2")
    nodes.append(helper.make_node("Identity", [x], ["hidden"]))

    graph = helper.make_graph(
        nodes, "bert_encoder",
        [helper.make_tensor_value_info("embedded", TensorProto.FLOAT, ["batch", "tokens", shape.hidden]),
         helper.make_tensor_value_info("mask_bias", TensorProto.FLOAT, ["batch", 1, 1, "tokens"])],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", "tokens", shape.hidden])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="navicite")


class OnnxBertEmbedder:
    """Sentence vectors of a BERT encoder folder (sentence-transformers layout) by ONNX Runtime.

    Args:
        folder: the model folder (``config.json``, ``model.safetensors``, ``tokenizer.json``).
        name: the name vectors are stored under (the ``embed.model`` setting).
        languages: languages the model reads, or None for any.
        batch_size: texts per forward pass.
        threads: ONNX Runtime intra-op threads (0: its default, the physical cores).
    """

    def __init__(
        self, folder: Path, name: str, languages: frozenset[str] | None = None, batch_size: int = 64, threads: int = 0,
    ) -> None:
        self.folder = Path(folder)
        self.name = name
        self.languages = languages
        self.batch_size = max(1, batch_size)
        self.threads = threads
        self._lock = threading.Lock()
        self._runtime: _Runtime | None = None

    def _load(self) -> _Runtime:
        with self._lock:
            if self._runtime is None:
                self._runtime = _loaded(str(self.folder), self.threads)
            return self._runtime

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        """Unit-length float32 rows, one per text (questions and passages are embedded alike)."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        runtime = self._load()
        encodings = runtime.tokenizer.encode_batch(list(texts))
        # Texts of similar length share a batch, so little work goes to padding.
        order = np.argsort([len(e.ids) for e in encodings], kind="stable")
        out = np.zeros((len(texts), runtime.tables["word"].shape[1]), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            chosen = order[start : start + self.batch_size]
            out[chosen] = runtime.pooled([encodings[i] for i in chosen])
        return out


@dataclass(frozen=True)
class _Runtime:
    """A built encoder: its ONNX Runtime session, tokenizer and embedding tables."""

    session: Any
    tokenizer: Any
    tables: dict[str, np.ndarray]

    def pooled(self, encodings: list) -> np.ndarray:
        """Unit-length mean-pooled vectors of one batch of encodings."""
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        types = np.zeros_like(ids)
        mask = np.zeros((len(encodings), width), dtype=np.float32)
        for row, enc in enumerate(encodings):
            n = len(enc.ids)
            ids[row, :n], types[row, :n], mask[row, :n] = enc.ids, enc.type_ids, 1.0
        embedded = self.tables["word"][ids] + self.tables["position"][:width][None] + self.tables["type"][types]
        bias = ((1.0 - mask) * _MASKED)[:, None, None, :].astype(np.float32)
        hidden = self.session.run(None, {"embedded": embedded.astype(np.float32), "mask_bias": bias})[0]
        summed = (hidden * mask[:, :, None]).sum(axis=1)
        mean = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        return mean / np.maximum(np.linalg.norm(mean, axis=1, keepdims=True), 1e-12)


@lru_cache(maxsize=4)
def _loaded(folder: str, threads: int) -> _Runtime:
    """The encoder of ``folder``, built once per process and shared by every embedder of it
    (retrieval, the reranker and ingest each create one)."""
    try:
        import onnxruntime as ort
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise EmbedderUnavailable(
            f"the embedder needs onnxruntime, onnx, safetensors and tokenizers ({exc.name} is missing): "
            "pip install 'navicite[local]'"
        ) from exc
    path = Path(folder)
    try:
        weights = _weights(path)
        model = build_encoder(weights, BertShape.read(path))
        tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
    except Exception as exc:  # a damaged or foreign file fails in many ways; the fix is the same
        raise EmbedderUnavailable(f"cannot read the embedding model in {path} ({exc}); check the setting embed.model") from exc
    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
    # Spinning threads take cores from the model and the index on a small machine.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    tokenizer.enable_truncation(max_length=max_tokens(path))
    tokenizer.no_padding()
    tables = {
        "word": weights["embeddings.word_embeddings.weight"],
        "position": weights["embeddings.position_embeddings.weight"],
        "type": weights["embeddings.token_type_embeddings.weight"],
    }
    return _Runtime(session, tokenizer, tables)
