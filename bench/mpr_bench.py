"""MPR against flat baselines, side by side on the same questions (issue 5).

Runs the evaluation harness with the MPR methods registered, prints the metric
table, per-stage seconds (p50) and LLM cost per question, and the rerank speed.

    .venv/bin/python bench/mpr_bench.py --dataset beir:../shared/data/scifact --split train \
        --limit 100 --home /tmp/mpr-home --out /tmp/mpr-out -m bm25 -m hybrid -m bm25-rerank \
        -m mpr-fallback -m mpr-rerank-fallback [-m mpr -m mpr-rerank] [--set llm.threads=1]

Per-question records go to ``--out`` (a re-run resumes from them); the LLM's
answers are cached in ``<home>/cache``. Machine: state it with the figures
(2 shared CPU cores here, no GPU).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from navicite.config import load_settings  # noqa: E402
from navicite.eval.datasets import load_dataset  # noqa: E402
from navicite.eval.report import markdown_table  # noqa: E402
from navicite.eval.resources import EvalResources  # noqa: E402
from navicite.eval.runner import RetrievalRunner  # noqa: E402
from navicite.rerank import RerankItem  # noqa: E402


def _stage_table(report) -> str:  # noqa: ANN001 -- a RetrievalReport
    lines = ["| method | stage | p50 s | mean s |", "|---|---|---|---|"]
    by_method: dict[str, dict[str, list[float]]] = {}
    tokens: dict[str, list[tuple[int, int, int]]] = {}
    for record in report.records:
        stages = by_method.setdefault(record.method, {})
        for stage, seconds in record.trace.stage_seconds.items():
            stages.setdefault(stage, []).append(seconds)
        t = record.trace
        tokens.setdefault(record.method, []).append((t.llm_calls, t.prompt_tokens, t.completion_tokens))
    for method, stages in by_method.items():
        for stage, values in stages.items():
            lines.append(f"| {method} | {stage} | {statistics.median(values):.3f} | {statistics.fmean(values):.3f} |")
    lines += ["", "| method | LLM calls/q | prompt tok/q | completion tok/q |", "|---|---|---|---|"]
    for method, rows in tokens.items():
        calls, prompt, completion = (statistics.fmean(col) for col in zip(*rows))
        lines.append(f"| {method} | {calls:.2f} | {prompt:.0f} | {completion:.0f} |")
    return "\n".join(lines)


def _rerank_speed(resources: EvalResources, pairs: int) -> str:
    """Pairs per second of the configured reranker on ``pairs`` corpus documents, embeddings not precomputed."""
    from navicite import rerank

    docs = resources.dataset.corpus[:pairs]
    items = [RerankItem(d.id, f"{d.title}\n{d.abstract or d.text}", {"bm25": 1.0, "agreement": 1.0}) for d in docs]
    reranker = rerank.create(resources.settings)
    reranker.rerank("warm up the model", items[:2], 2)
    start = time.perf_counter()
    reranker.rerank(resources.dataset.questions[0].text, items, 50)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    reranker.rerank(resources.dataset.questions[1].text, items, 50)
    warm = time.perf_counter() - start
    return (
        f"rerank ({reranker.name}) of {len(items)} candidates: {cold:.2f} s new texts "
        f"({len(items) / cold:.0f} pairs/s), {warm:.3f} s texts already embedded ({len(items) / warm:.0f} pairs/s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--split")
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--home", default="/tmp/mpr-home")
    parser.add_argument("--out")
    parser.add_argument("-m", "--method", action="append", required=True)
    parser.add_argument("--set", action="append", default=[], dest="overrides")
    parser.add_argument("--k", default="10,50,100")
    parser.add_argument("--rerank-pairs", type=int, default=0, help="Also time the reranker on this many candidates.")
    args = parser.parse_args()

    settings = load_settings(args.home, args.overrides)
    data = load_dataset(args.dataset, args.split)
    questions = data.questions[: args.limit]
    resources = EvalResources(data, settings)
    ks = [int(k) for k in args.k.split(",")]
    runner = RetrievalRunner(resources, args.method, ks, out_dir=None if not args.out else __import__("pathlib").Path(args.out))
    started = time.perf_counter()
    report = runner.run(questions, split=args.split)
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs (shared); data set {data.name}, "
          f"{len(questions)} questions, {len(data.corpus)} documents; run took {time.perf_counter() - started:.0f} s")
    print(markdown_table(report))
    print(_stage_table(report))
    if args.rerank_pairs:
        print(_rerank_speed(resources, args.rerank_pairs))


if __name__ == "__main__":
    main()
