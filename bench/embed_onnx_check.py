"""The ONNX MiniLM embedder against sentence-transformers: same vectors, and how fast.

Embeds the first N SciFact abstracts (title + text, ``../shared/data/scifact/corpus.jsonl``)
with navicite's default embedder (MiniLM built as an ONNX graph from the packaged weights,
run by ONNX Runtime) and with sentence-transformers on PyTorch (the ``train`` extra), in one
process, and prints the cosine of each pair (min / mean) and the seconds of each, with their
ratio. ``--write-fixture`` also stores sentence-transformers' vectors of a few texts as the
test fixture ``tests/fixtures/minilm_reference.npz``. Run from the project root:

    .venv/bin/python bench/embed_onnx_check.py --passages 1000
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from navicite import embed

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "minilm_reference.npz"
#: Texts besides SciFact's that the fixture also holds: short, non-English and over-long ones.
EXTRA = [
    "Does folic acid lower homocysteine?",
    "비타민 D는 골절을 예방하는가?",
    "x",
    "The quick brown fox. " * 120,  # past the 256-token limit: both must truncate alike
]


def scifact(path: Path, n: int) -> list[str]:
    texts = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            texts.append(f"{row.get('title', '')}. {row['text']}".strip())
            if len(texts) == n:
                break
    return texts


def timed(embedder: embed.Embedder, texts: list[str]) -> tuple[np.ndarray, float]:
    embedder.embed(texts[:2])  # load first: the timing is of embedding, not of loading
    start = time.perf_counter()
    vectors = embedder.embed(texts)
    return vectors, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path("../shared/data/scifact/corpus.jsonl"))
    parser.add_argument("--passages", type=int, default=1000)
    parser.add_argument("--write-fixture", action="store_true")
    args = parser.parse_args()
    texts = scifact(args.data, args.passages)
    print(f"data: {args.data} first {len(texts)} abstracts; machine: {platform.machine()}, {os.cpu_count()} cpus, "
          f"load {os.getloadavg()[0]:.1f}")
    onnx, onnx_s = timed(embed.shipped(), texts)
    torch, torch_s = timed(embed.SentenceTransformerEmbedder(), texts)
    cosine = (onnx * torch).sum(axis=1)
    print(f"cosine onnx vs sentence-transformers: min {cosine.min():.6f} mean {cosine.mean():.6f} "
          f"(rows below 0.999: {int((cosine < 0.999).sum())})")
    print(f"seconds: onnx {onnx_s:.1f}, sentence-transformers {torch_s:.1f}; ratio onnx/st {onnx_s / torch_s:.2f}")
    if args.write_fixture:
        sample = texts[:12] + EXTRA
        np.savez_compressed(FIXTURE, texts=np.array(sample), vectors=embed.SentenceTransformerEmbedder().embed(sample))
        print(f"wrote {FIXTURE} ({len(sample)} texts)")


if __name__ == "__main__":
    main()
