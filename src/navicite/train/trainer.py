"""The training loop: listwise softmax loss over (query, positive, negatives) groups.

Plain torch on the CPU. Each group is scored as ``1 + n`` (query, passage)
pairs; the loss is the cross-entropy of the positive's position under a
softmax over the group's scores, so the model learns to rank the positive
above BM25's look-alikes rather than to output calibrated probabilities.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from navicite.train.data import Group

#: Longest input the saved tokenizer announces (navicite's default ``rerank.max_length``).
RUNTIME_MAX_LENGTH = 256

#: Steps between two re-plans of a ``max_minutes`` run.
TIMING_STEPS = 10

#: ``progress(step, total_steps, loss, pairs_per_second)`` after every optimiser step.
StepProgress = Callable[[int, int, float, float], None]


@dataclass(frozen=True)
class TrainConfig:
    """Hyper-parameters of one run (defaults sized for two CPU cores).

    ``max_minutes`` caps the run by time: every few steps the loop measures its
    own average speed and sizes the schedule (learning-rate decay included) to
    fit, so a busy machine trains fewer steps instead of overrunning. The steps
    actually taken are reported, and ``max_steps`` replays them exactly.
    """

    base_model: Path
    max_length: int = 128
    groups_per_step: int = 4
    learning_rate: float = 1e-4
    head_learning_rate: float = 2e-3
    warmup_share: float = 0.1
    weight_decay: float = 0.01
    max_steps: int | None = None
    max_minutes: float | None = None
    epochs: int = 1
    seed: int = 13
    threads: int = 2
    eval_batch_pairs: int = 64


@dataclass
class Ranking:
    """How well a model puts each group's positive first."""

    groups: int
    mrr: float
    accuracy: float

    def as_dict(self) -> dict[str, float]:
        return {"groups": self.groups, "mrr": round(self.mrr, 4), "accuracy": round(self.accuracy, 4)}


@dataclass
class TrainResult:
    """What a run did and measured."""

    steps: int
    pairs: int
    seconds: float
    final_loss: float
    heldout_before: Ranking | None = None
    heldout_after: Ranking | None = None
    losses: list[float] = field(default_factory=list)

    @property
    def pairs_per_second(self) -> float:
        return self.pairs / self.seconds if self.seconds else 0.0


def load_base(path: Path):
    """A one-output sequence classifier (new linear head) on the encoder at ``path``, and its tokenizer."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()  # the "newly initialised head" notice is expected here
    tokenizer = AutoTokenizer.from_pretrained(str(path))
    model = AutoModelForSequenceClassification.from_pretrained(str(path), num_labels=1)
    return model, tokenizer


def score_pairs(model, tokenizer, pairs: Sequence[tuple[str, str]], max_length: int, batch: int) -> list[float]:
    """Model scores of (query, passage) pairs, without gradients."""
    import torch

    model.eval()
    scores: list[float] = []
    with torch.inference_mode():
        for start in range(0, len(pairs), batch):
            chunk = pairs[start : start + batch]
            enc = tokenizer([q for q, _ in chunk], [p for _, p in chunk], truncation=True, max_length=max_length, padding=True, return_tensors="pt")
            scores.extend(model(**enc).logits[:, 0].tolist())
    return scores


def rank_groups(scores_of: Callable[[Sequence[tuple[str, str]]], list[float]], groups: Sequence[Group]) -> Ranking:
    """MRR and top-1 accuracy of the positive in each group, ties counted against the positive."""
    pairs = [(g.query, t) for g in groups for t in g.texts()]
    scores = scores_of(pairs)
    reciprocal, hits, at = 0.0, 0, 0
    for g in groups:
        own = scores[at : at + 1 + len(g.negatives)]
        at += len(own)
        rank = 1 + sum(1 for s in own[1:] if s >= own[0])
        reciprocal += 1.0 / rank
        hits += rank == 1
    n = max(len(groups), 1)
    return Ranking(len(groups), reciprocal / n, hits / n)


class CrossEncoderTrainer:
    """Stage: training groups -> a fine-tuned cross-encoder saved as a Hugging Face folder."""

    def __init__(self, config: TrainConfig) -> None:
        self.config = config

    def _evaluate(self, model, tokenizer, groups: Sequence[Group]) -> Ranking | None:
        if not groups:
            return None
        cfg = self.config
        return rank_groups(lambda pairs: score_pairs(model, tokenizer, pairs, cfg.max_length, cfg.eval_batch_pairs), groups)

    def run(
        self,
        train: Sequence[Group],
        heldout: Sequence[Group],
        out_dir: Path,
        progress: StepProgress | None = None,
        evaluate_before: bool = False,
    ) -> TrainResult:
        """Train on ``train``, score ``heldout`` after (and before, if asked), save model and tokenizer to ``out_dir``."""
        import torch

        cfg = self.config
        torch.set_num_threads(cfg.threads)
        torch.manual_seed(cfg.seed)
        rng = random.Random(cfg.seed)
        model, tokenizer = load_base(cfg.base_model)
        before = self._evaluate(model, tokenizer, heldout) if evaluate_before else None

        batches = self._batches(train, rng)
        plan = {"total": len(batches)}
        optimiser = torch.optim.AdamW(self._parameter_groups(model), lr=cfg.learning_rate)
        # The lambda reads plan["total"], so a time cap that shortens the run shortens warm-up and decay with it.
        schedule = torch.optim.lr_scheduler.LambdaLR(
            optimiser, lambda step: _linear_warmup_decay(step, max(1, int(plan["total"] * cfg.warmup_share)), plan["total"])
        )

        model.train()
        started, pairs, losses = time.perf_counter(), 0, []
        for step, batch in enumerate(batches, 1):
            if step > plan["total"]:
                break
            size = 1 + len(batch[0].negatives)
            queries = [g.query for g in batch for _ in range(size)]
            texts = [t for g in batch for t in g.texts()]
            enc = tokenizer(queries, texts, truncation=True, max_length=cfg.max_length, padding=True, return_tensors="pt")
            logits = model(**enc).logits.view(len(batch), size)
            # The positive sits at index 0 of every group.
            loss = torch.nn.functional.cross_entropy(logits, torch.zeros(len(batch), dtype=torch.long))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            schedule.step()
            optimiser.zero_grad(set_to_none=True)
            pairs += len(texts)
            losses.append(loss.item())
            elapsed = time.perf_counter() - started
            if cfg.max_minutes is not None and step % TIMING_STEPS == 0:
                # Re-planned as the run goes: on a shared machine the speed changes with the neighbours' load.
                affordable = int(cfg.max_minutes * 60 / (elapsed / step))
                plan["total"] = max(step, min(len(batches), affordable))
            if progress is not None:
                progress(step, plan["total"], _mean_tail(losses), pairs / elapsed)
        seconds = time.perf_counter() - started

        after = self._evaluate(model, tokenizer, heldout)
        out_dir.mkdir(parents=True, exist_ok=True)
        # Loaders that take no max_length read it from the tokenizer; 512 would make every pair slow.
        tokenizer.model_max_length = max(cfg.max_length, RUNTIME_MAX_LENGTH)
        model.save_pretrained(str(out_dir))
        tokenizer.save_pretrained(str(out_dir))
        return TrainResult(len(losses), pairs, seconds, _mean_tail(losses), before, after, losses)

    def _batches(self, train: Sequence[Group], rng: random.Random) -> list[list[Group]]:
        cfg = self.config
        # Groups of different sizes cannot share one softmax matrix: batch by size.
        by_size: dict[int, list[Group]] = {}
        for g in train:
            by_size.setdefault(len(g.negatives), []).append(g)
        batches: list[list[Group]] = []
        for _ in range(cfg.epochs):
            for same in by_size.values():
                order = list(same)
                rng.shuffle(order)
                batches.extend(order[i : i + cfg.groups_per_step] for i in range(0, len(order), cfg.groups_per_step))
        rng.shuffle(batches)
        return batches[: cfg.max_steps] if cfg.max_steps is not None else batches

    def _parameter_groups(self, model) -> list[dict]:
        cfg = self.config
        # The pair head (pooler + new linear layer) starts from nothing useful for pairs; at the
        # encoder's rate its near-zero scores barely move in the few hundred steps a CPU affords.
        head, decay, plain = [], [], []
        for name, param in model.named_parameters():
            if name.startswith("classifier") or ".pooler." in f".{name}":
                head.append(param)
            elif name.endswith("bias") or "LayerNorm" in name:
                plain.append(param)  # biases and layer norms are not decayed (the usual BERT recipe)
            else:
                decay.append(param)
        return [
            {"params": decay, "weight_decay": cfg.weight_decay},
            {"params": plain, "weight_decay": 0.0},
            {"params": head, "weight_decay": 0.0, "lr": cfg.head_learning_rate},
        ]


def _linear_warmup_decay(step: int, warmup: int, total: int) -> float:
    if step < warmup:
        return (step + 1) / warmup
    return max(0.0, (total - step) / max(1, total - warmup))


def _mean_tail(values: list[float], n: int = 50) -> float:
    tail = values[-n:]
    return sum(tail) / len(tail) if tail else math.nan
