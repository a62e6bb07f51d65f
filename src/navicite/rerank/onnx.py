"""Cross-encoders as ONNX files: export a Hugging Face model once, score pairs without torch.

:func:`export_onnx` turns a folder holding an ``AutoModelForSequenceClassification``
with one output (what ``navicite rerank train`` writes, or any sentence-transformers
CrossEncoder) into ``model.onnx`` (fp32) and ``model_int8.onnx`` (dynamic int8
quantisation) beside a copy of the tokenizer and config. The export uses torch's
current exporter (``dynamo=True``): the legacy one silently produced wrong vectors for
MiniLM here (docs/models.md), so every export is checked against torch before it
is written out as usable.

:class:`OnnxCrossEncoder` runs such a folder with ONNX Runtime and the ``tokenizers``
library only, so the query path never imports torch.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from navicite.errors import ConfigError, NaviciteError

FP32_FILE = "model.onnx"
INT8_FILE = "model_int8.onnx"
#: Files besides the network that a runnable folder needs (or may carry, for the record).
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt", "config.json")
#: Largest difference between torch and the exported fp32 model accepted (logits).
EXPORT_TOLERANCE = 1e-3

_PROBE_PAIRS = (
    ("Does vitamin D prevent hip fractures?", "Vitamin D supplements and fracture risk in elderly women: a randomised trial."),
    ("Which river flows through Vienna?", "The Danube passes through Vienna, Budapest and Belgrade before reaching the Black Sea."),
    ("short", "A somewhat longer passage so that the pairs in this batch have different lengths and need padding."),
)


class ExportError(NaviciteError):
    """The model could not be exported, or the exported graph disagrees with torch."""


def variant_file(variant: str) -> str:
    """File name of the ``int8`` or ``fp32`` network."""
    return INT8_FILE if variant == "int8" else FP32_FILE


def export_onnx(model_dir: Path, out_dir: Path, quantize: bool = True) -> Path:
    """Write ``model.onnx`` (and ``model_int8.onnx`` if ``quantize``) plus tokenizer and config to ``out_dir``.

    Batch and sequence axes are dynamic. The fp32 graph is checked against torch on a
    few pairs and rejected if any logit differs by more than :data:`EXPORT_TOLERANCE`.

    Returns:
        ``out_dir``.

    Raises:
        ExportError: the folder is not a one-output sequence classifier, export failed,
            or the exported model's scores differ from torch's.
    """
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    model_dir, out_dir = Path(model_dir), Path(out_dir)
    try:
        model = AutoModelForSequenceClassification.from_pretrained(str(model_dir)).eval()
        tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    except Exception as exc:  # transformers raises many types for a bad folder
        raise ExportError(f"{model_dir}: not a Hugging Face sequence-classification model ({exc})") from exc
    if model.config.num_labels != 1:
        raise ExportError(f"{model_dir}: expected a one-score cross-encoder (num_labels=1), found {model.config.num_labels}")
    if not getattr(tokenizer, "is_fast", False):
        raise ExportError(f"{model_dir}: needs a fast tokenizer (tokenizer.json) so inference can run without transformers")

    batch = tokenizer([q for q, _ in _PROBE_PAIRS], [p for _, p in _PROBE_PAIRS], padding=True, truncation=True, return_tensors="pt")
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in batch]
    out_dir.mkdir(parents=True, exist_ok=True)
    fp32 = out_dir / FP32_FILE
    _export(model, names, tuple(batch[n] for n in names), fp32)
    with torch.no_grad():
        reference = model(**{n: batch[n] for n in names}).logits.numpy().ravel()
    got = _run(fp32, {n: batch[n].numpy() for n in names})
    if not np.allclose(got, reference, atol=EXPORT_TOLERANCE, rtol=0.0):
        fp32.unlink(missing_ok=True)
        raise ExportError(
            f"exported model disagrees with torch by {float(np.max(np.abs(got - reference))):.2e} "
            f"(> {EXPORT_TOLERANCE}); not using it"
        )
    tokenizer.save_pretrained(str(out_dir))
    model.config.save_pretrained(str(out_dir))
    if quantize:
        quantize_int8(fp32, out_dir / INT8_FILE)
    return out_dir


def _export(model, names: list[str], args: tuple, path: Path) -> None:
    import torch

    class Logits(torch.nn.Module):
        """Positional inputs in ``names`` order, logits out (what the ONNX graph exposes)."""

        def __init__(self) -> None:
            super().__init__()
            self.inner = model

        def forward(self, *tensors: torch.Tensor) -> torch.Tensor:
            return self.inner(**dict(zip(names, tensors))).logits

    batch, seq = torch.export.Dim("batch"), torch.export.Dim("sequence")
    try:
        torch.onnx.export(
            Logits(), args, str(path), dynamo=True, external_data=False, verbose=False,
            input_names=names, output_names=["logits"],
            # forward(*tensors) takes one tuple argument, hence the nesting.
            dynamic_shapes=(tuple({0: batch, 1: seq} for _ in names),),
        )
    except Exception as exc:  # the exporter's failures have no common base class
        raise ExportError(f"torch.onnx.export (dynamo) failed: {exc}") from exc


def quantize_int8(source: Path, target: Path) -> Path:
    """Dynamic int8 quantisation of ``source``'s weights (activations stay float; no calibration data)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8)
    return target


def _run(path: Path, feed: dict[str, np.ndarray]) -> np.ndarray:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {k: v.astype(np.int64) for k, v in feed.items()})[0].ravel()


def is_exported(folder: Path, variant: str) -> bool:
    """Whether ``folder`` holds the ``variant`` network and a fast tokenizer."""
    return (folder / variant_file(variant)).is_file() and (folder / "tokenizer.json").is_file()


class OnnxCrossEncoder:
    """Scores (question, passage) pairs with an exported folder; loaded on first use, thread-safe.

    Args:
        folder: output of :func:`export_onnx`.
        variant: ``int8`` or ``fp32``.
        threads: ONNX Runtime intra-op threads.
    """

    def __init__(self, folder: Path, variant: str = "int8", threads: int = 2) -> None:
        self.folder = Path(folder)
        self.variant = variant
        self.threads = threads
        self._session = None
        self._tokenizer = None
        self._inputs: list[str] = []
        self._lock = threading.Lock()

    def _load(self) -> None:
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise ConfigError(
                "rerank.backend=navicite needs ONNX Runtime: pip install 'navicite[rerank]' "
                "(or onnxruntime), or use rerank.backend=hybrid"
            ) from exc
        from tokenizers import Tokenizer

        with self._lock:
            if self._session is not None:
                return
            options = ort.SessionOptions()
            options.intra_op_num_threads = self.threads
            options.inter_op_num_threads = 1
            # Spinning workers fight other processes for the cores; on a shared 2-core machine
            # (load ~10) 40 pairs took 4.5 s with spinning and 3.1 s without (2 threads).
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            path = self.folder / variant_file(self.variant)
            self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
            self._inputs = [i.name for i in self._session.get_inputs()]
            self._tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
            self._pad_id = _pad_id(self.folder, self._tokenizer)

    def score(self, question: str, texts: Sequence[str], max_length: int = 256, batch_size: int = 16) -> np.ndarray:
        """One relevance logit per text, in input order.

        Pairs are truncated to ``max_length`` tokens (longest part first, as transformers
        does) and batched by similar length so little compute goes to padding.
        """
        if not texts:
            return np.zeros(0, dtype=np.float32)
        self._load()
        assert self._tokenizer is not None and self._session is not None
        tokenizer = self._tokenizer
        with self._lock:  # truncation is tokenizer state: set and use it in one step
            tokenizer.enable_truncation(max_length=max_length, strategy="longest_first")
            tokenizer.no_padding()
            encodings = tokenizer.encode_batch([(question, t) for t in texts])
        order = np.argsort([len(e.ids) for e in encodings], kind="stable")
        out = np.zeros(len(texts), dtype=np.float32)
        for start in range(0, len(order), max(1, batch_size)):
            chosen = order[start : start + batch_size]
            out[chosen] = self._session.run(None, self._feed([encodings[i] for i in chosen]))[0].reshape(len(chosen), -1)[:, -1]
        return out

    def _feed(self, encodings: list) -> dict[str, np.ndarray]:
        width = max(len(e.ids) for e in encodings)
        arrays = {
            "input_ids": np.full((len(encodings), width), self._pad_id, dtype=np.int64),
            "attention_mask": np.zeros((len(encodings), width), dtype=np.int64),
            "token_type_ids": np.zeros((len(encodings), width), dtype=np.int64),
        }
        for row, enc in enumerate(encodings):
            n = len(enc.ids)
            arrays["input_ids"][row, :n] = enc.ids
            arrays["attention_mask"][row, :n] = 1
            arrays["token_type_ids"][row, :n] = enc.type_ids
        return {name: arrays[name] for name in self._inputs}


def _pad_id(folder: Path, tokenizer) -> int:
    config = folder / "tokenizer_config.json"
    token = "[PAD]"
    if config.is_file():
        value = json.loads(config.read_text(encoding="utf-8")).get("pad_token")
        token = value.get("content", token) if isinstance(value, dict) else (value or token)
    pad_id = tokenizer.token_to_id(token)
    return 0 if pad_id is None else pad_id


def copy_runtime_files(source: Path, target: Path, variant: str) -> Path:
    """Copy the files :class:`OnnxCrossEncoder` needs for ``variant`` (e.g. into the package's weights folder)."""
    target.mkdir(parents=True, exist_ok=True)
    for name in (variant_file(variant), *TOKENIZER_FILES):
        if (source / name).is_file():
            shutil.copy2(source / name, target / name)
    return target
