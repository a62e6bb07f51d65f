"""Fine-tune a cross-encoder as a support judge: binary cross-entropy on (claim, premise, label) pairs.

Plain torch on the CPU, from the MiniLM-L6 encoder the embedder ships (a new one-output head).
Batches are made of pairs of similar length (sorted within buckets), so little of a step is
spent on padding; ``max_minutes`` caps the run and shrinks the learning-rate schedule to fit.
The result is a Hugging Face folder that :func:`navicite.rerank.onnx.export_onnx` turns into the
int8 network navicite runs without torch.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: ``(claim, premise, label)``: label 1 when the premise supports all of the claim.
Pair = tuple[str, str, int]
#: ``progress(step, total_steps, mean_loss, pairs_per_second)``.
Progress = Callable[[int, int, float, float], None]


@dataclass(frozen=True)
class JudgeTrainConfig:
    """Hyper-parameters of one run (defaults sized for two CPU cores)."""

    base_model: Path
    max_length: int = 160
    batch: int = 32
    learning_rate: float = 5e-5
    head_learning_rate: float = 1e-3
    warmup_share: float = 0.06
    epochs: float = 1.0
    max_minutes: float | None = None
    seed: int = 49
    threads: int = 2
    #: Keep the word embeddings as MiniLM has them: a third of the step's time was the optimiser
    #: updating that 30,522 x 384 matrix, and the delta that ships the network stays small.
    freeze_embeddings: bool = True


@dataclass
class JudgeTrainResult:
    """What a run did."""

    steps: int
    pairs: int
    seconds: float
    final_loss: float
    losses: list[float] = field(default_factory=list)


def batches_by_length(pairs: Sequence[Pair], batch: int, epochs: float, rng: random.Random) -> list[list[int]]:
    """Indices of ``pairs`` in batches of similar length, the batches in random order.

    Each epoch shuffles the pairs, sorts chunks of 50 batches by length and cuts them, so a batch
    pads little while the order stays random across chunks. A fractional ``epochs`` takes that
    share of a last epoch.
    """
    order: list[int] = []
    whole = int(epochs)
    for _ in range(whole):
        order += rng.sample(range(len(pairs)), len(pairs))
    if epochs > whole:
        order += rng.sample(range(len(pairs)), int((epochs - whole) * len(pairs)))
    chunk = batch * 50
    out: list[list[int]] = []
    for start in range(0, len(order), chunk):
        part = sorted(order[start:start + chunk], key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        out += [part[k:k + batch] for k in range(0, len(part), batch)]
    rng.shuffle(out)
    return out


def train_judge(pairs: Sequence[Pair], config: JudgeTrainConfig, out_dir: Path, progress: Progress | None = None,
                start_from: Path | None = None) -> JudgeTrainResult:
    """Fine-tune on ``pairs`` and save the model and tokenizer to ``out_dir``.

    ``start_from``: a judge trained before (a Hugging Face folder) to go on from, instead of the
    base encoder with a new head (the last stage, on the labelled set's tuning part).
    """
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from navicite.train.trainer import RUNTIME_MAX_LENGTH, load_base

    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    rng = random.Random(config.seed)
    if start_from is None:
        model, tokenizer = load_base(config.base_model)
    else:
        model = AutoModelForSequenceClassification.from_pretrained(str(start_from))
        tokenizer = AutoTokenizer.from_pretrained(str(start_from))
    if config.freeze_embeddings:
        model.base_model.embeddings.word_embeddings.weight.requires_grad_(False)
    batches = batches_by_length(pairs, config.batch, config.epochs, rng)
    plan = {"total": len(batches)}
    trainable = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    head = [p for n, p in trainable if n.startswith("classifier") or ".pooler." in f".{n}"]
    body = [p for n, p in trainable if not (n.startswith("classifier") or ".pooler." in f".{n}")]
    optimiser = torch.optim.AdamW([{"params": body, "weight_decay": 0.01},
                                   {"params": head, "weight_decay": 0.0, "lr": config.head_learning_rate}],
                                  lr=config.learning_rate)

    def factor(step: int) -> float:
        warm = max(1, int(config.warmup_share * plan["total"]))
        if step < warm:
            return (step + 1) / warm
        return max(0.0, (plan["total"] - step) / max(1, plan["total"] - warm))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, factor)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    model.train()
    started, seen, losses = time.perf_counter(), 0, []
    for step, batch in enumerate(batches, 1):
        if step > plan["total"]:
            break
        enc = tokenizer([pairs[i][0] for i in batch], [pairs[i][1] for i in batch], truncation=True,
                        max_length=config.max_length, padding=True, return_tensors="pt")
        logits = model(**enc).logits[:, 0]
        loss = loss_fn(logits, torch.tensor([float(pairs[i][2]) for i in batch]))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad(set_to_none=True)
        seen += len(batch)
        losses.append(loss.item())
        elapsed = time.perf_counter() - started
        if config.max_minutes is not None and step % 20 == 0:
            # Re-planned as the run goes: the speed changes with the machine's other load.
            plan["total"] = max(step, min(len(batches), int(config.max_minutes * 60 / (elapsed / step))))
        if progress is not None:
            progress(step, plan["total"], _mean_tail(losses), seen / elapsed if elapsed else 0.0)
    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer.model_max_length = max(config.max_length, RUNTIME_MAX_LENGTH)
    model.save_pretrained(str(out_dir))
    tokenizer.save_pretrained(str(out_dir))
    return JudgeTrainResult(len(losses), seen, time.perf_counter() - started, _mean_tail(losses), losses)


def _mean_tail(values: list[float], n: int = 100) -> float:
    tail = values[-n:]
    return sum(tail) / len(tail) if tail else math.nan
