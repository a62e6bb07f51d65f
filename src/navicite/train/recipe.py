"""Assemble the reranker's training set from the development data folder.

``TrainingSetBuilder.run`` reads the corpora, builds groups from every source,
drops any group whose query the evaluation guard rejects, and splits off a
held-out slice of the *training* data for the end-of-run figures.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from navicite import embed
from navicite.eval.datasets import read_json
from navicite.llm import LLM
from navicite.train import data
from navicite.train.corpora import Passage, scifact_corpus, title_text_corpus
from navicite.train.negatives import DenseMiner, FusedMiner, Miner, NegativeMiner
from navicite.train.split import (
    SCIFACT_EVAL_CLAIMS,
    EvalGuard,
    default_guard,
    scifact_train_split,
)
from navicite.train.synthetic import SyntheticQueryWriter, sample_jobs

#: ``progress(what, done, total)`` while building.
BuildProgress = Callable[[str, int, int], None]

#: Inverse-cloze groups when ``max_groups`` does not size them.
DEFAULT_INVERSE_CLOZE = 2000


@dataclass(frozen=True)
class DataOptions:
    """What goes into the training set.

    Args:
        data_dir: the shared development data folder (``scifact/``, ``hotpotqa/``, ``musique/``).
        max_groups: cap on all groups (train + held-out); inverse-cloze groups fill what the other sources leave.
        synthetic: passages the LLM writes a query for (0: no LLM at all).
        negatives: hard negatives per group.
        heldout_share: share of queries held out of training for the final figures.
        claim_repeats: times each SciFact training claim is used, with fresh negatives (0: none).
        dense_negatives: also mine claim negatives by embedding cosine (the shipped MiniLM).
        cache_dir: where the corpus embeddings are kept between runs (None: not kept).
    """

    data_dir: Path
    max_groups: int | None = None
    synthetic: int = 0
    negatives: int = 7
    heldout_share: float = 0.05
    seed: int = 13
    claim_repeats: int = 2
    dense_negatives: bool = True
    cache_dir: Path | None = None


@dataclass
class TrainingData:
    """The built set, with its provenance for the model card."""

    train: list[data.Group]
    heldout: list[data.Group]
    sources: dict[str, int] = field(default_factory=dict)
    dropped_by_guard: int = 0
    synthetic_requested: int = 0
    synthetic_usable: int = 0

    def summary(self) -> dict[str, object]:
        return {
            "train_groups": len(self.train),
            "heldout_groups": len(self.heldout),
            "sources": self.sources,
            "dropped_by_guard": self.dropped_by_guard,
            "synthetic_requested": self.synthetic_requested,
            "synthetic_usable": self.synthetic_usable,
            # Whoever scores the model on SciFact train must stay within these first claims.
            "scifact_eval_claims": SCIFACT_EVAL_CLAIMS,
        }


class TrainingSetBuilder:
    """Stage: data folder (+ LLM) -> :class:`TrainingData`.

    Args:
        llm: called only when ``options.synthetic`` > 0.
        guard: the evaluation-question guard; built from ``data_dir`` when omitted.
    """

    def __init__(
        self,
        options: DataOptions,
        llm: Callable[[], LLM] | None = None,
        guard: EvalGuard | None = None,
        progress: BuildProgress | None = None,
    ) -> None:
        self.options = options
        self.llm = llm
        self.guard = guard or default_guard(options.data_dir)
        self.progress = progress

    def run(self) -> TrainingData:
        opt = self.options
        root = opt.data_dir
        rng = random.Random(opt.seed)
        scifact = scifact_corpus(root / "scifact" / "corpus.jsonl")
        hotpot = title_text_corpus(root / "hotpotqa" / "hipporag-train-corpus.json", "hotpot")
        musique = title_text_corpus(root / "musique" / "hipporag-train-corpus.json", "musique")
        miners = {"scifact": NegativeMiner(scifact), "hotpot": NegativeMiner(hotpot), "musique": NegativeMiner(musique)}

        labelled = self._claims(scifact, miners["scifact"], rng)
        labelled += data.musique_groups(read_json(root / "musique" / "hipporag-train-100.json"), opt.negatives, rng)
        labelled += data.hotpot_distractor_groups(read_json(root / "hotpotqa" / "distractor-dev-100.json"), opt.negatives, rng)
        written, requested = self._synthetic(scifact, hotpot, musique)
        labelled += data.synthetic_groups(written, miners, opt.negatives, rng)

        wanted = DEFAULT_INVERSE_CLOZE if opt.max_groups is None else max(0, opt.max_groups - len(labelled))
        groups = labelled + data.inverse_cloze_groups(scifact, miners["scifact"], wanted, opt.negatives, rng)
        kept, dropped = data.guarded(groups, self.guard)
        rng.shuffle(kept)
        if opt.max_groups is not None:
            kept = kept[: opt.max_groups]
        train, heldout = data.split_heldout(kept, opt.heldout_share, rng)
        return TrainingData(
            train,
            heldout,
            dict(Counter(g.source for g in kept)),
            dropped,
            synthetic_requested=requested,
            synthetic_usable=len(written),
        )

    def _claims(self, scifact: list[Passage], bm25: NegativeMiner, rng: random.Random) -> list[data.Group]:
        opt = self.options
        if opt.claim_repeats <= 0:
            return []
        _, claims = scifact_train_split(opt.data_dir)
        miner: Miner = bm25
        if opt.dense_negatives:
            if self.progress:
                self.progress("embedding SciFact for negatives", 0, len(scifact))
            miner = FusedMiner([bm25, DenseMiner(scifact, embed.shipped(), cache_dir=opt.cache_dir)])
            if self.progress:
                self.progress("embedding SciFact for negatives", len(scifact), len(scifact))
        return data.claim_groups(claims, {p.pid: p for p in scifact}, miner, opt.negatives, rng, opt.claim_repeats)

    def _synthetic(self, scifact: list[Passage], hotpot: list[Passage], musique: list[Passage]):
        opt = self.options
        if opt.synthetic <= 0 or self.llm is None:
            return [], 0
        jobs = sample_jobs([(scifact, "claim"), (hotpot, "question"), (musique, "question")], opt.synthetic, opt.seed)
        writer = SyntheticQueryWriter(self.llm())
        report = None if self.progress is None else (lambda done, total: self.progress("synthetic queries", done, total))
        return writer.run(jobs, report), len(jobs)
