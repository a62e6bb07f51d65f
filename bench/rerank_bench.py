"""Rerankers side by side (issue 9): speed of the cross-encoder runtimes, quality on the same MPR pools.

Speed (``--speed``): one SciFact question and its 270 best BM25 abstracts (title +
abstract, as MPR hands them over), scored by the torch CrossEncoder (fp32), ONNX fp32
and ONNX int8 at 256 and 128 tokens, and the ``navicite`` cascade end to end at several
depths; ratios are against torch at the same length, in the same run.

Quality (``--dataset``, repeatable): each question's MPR pool (statistical analysis,
``mpr-fallback``) is built once and then re-ranked by ``none`` (RRF), ``hybrid``, the
``navicite`` cascade with the fp32 and the int8 network (the cross-encoder reads the
same head, so its scores are computed once per question and network and fused for each
``--depth``), the pool's ceiling (gold documents first: what a perfect reranker
would reach), and the ``llm`` judge on the first ``--llm-limit`` questions (cost
reported). Prints nDCG@10, recall@10 and all-gold@10 per method.

    .venv/bin/python bench/rerank_bench.py --model /tmp/rerank-train/model --onnx-dir /tmp/rerank-train/onnx \\
        --speed --dataset beir:../shared/data/scifact --split train --limit 200 \\
        --dataset hotpotqa:../shared/data/hotpotqa/hipporag-train-100.json --home /tmp/rerank-inf-home \\
        [--llm-limit 10 --set llm.threads=1]

``--model`` takes a Hugging Face cross-encoder folder (exported once into ``--onnx-dir``)
or an exported folder; without it the shipped weights are used. Machine: 2 shared CPU
cores; the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np

from navicite.config import Settings, load_settings
from navicite.eval.datasets import EvalQuestion, load_dataset
from navicite.eval.metrics import mean_scores, retrieval_scores
from navicite.eval.resources import EvalResources
from navicite.rerank import Reranker, RerankItem, Scored, create
from navicite.rerank.fusion import FusionReranker
from navicite.rerank.navicite_ce import fuse, resolve_weights, scifact_claims_held_out
from navicite.rerank.onnx import OnnxCrossEncoder, export_onnx, is_exported
from navicite.retrieve.mpr import MultiPortfolioRetriever

SPEED_PAIRS = 270


def _load() -> str:
    return "load average " + " / ".join(f"{x:.1f}" for x in os.getloadavg())


def _with(settings: Settings, **rerank_values: object) -> Settings:
    return settings.model_copy(update={"rerank": settings.rerank.model_copy(update=rerank_values)})


def onnx_folder(model: str | None, onnx_dir: Path | None, settings: Settings) -> Path:
    """The exported folder for ``--model`` (exported into ``--onnx-dir`` on first use)."""
    if model is not None and onnx_dir is not None and not is_exported(Path(model), "int8"):
        if not is_exported(onnx_dir, "int8"):
            started = time.perf_counter()
            export_onnx(Path(model), onnx_dir)
            print(f"exported {model} to {onnx_dir} in {time.perf_counter() - started:.0f} s")
        return onnx_dir
    return resolve_weights(model, "int8", settings.cache_dir)


# ------------------------------------------------------------------------------- pools


class _Capture:
    """A reranker that keeps what MPR hands it (the pool as RerankItems) and returns the RRF order."""

    name = "none"

    def __init__(self) -> None:
        self.items: list[RerankItem] = []
        self.fusion = FusionReranker()

    def rerank(self, question: str, items, top_n: int) -> list[Scored]:
        self.items = list(items)
        return self.fusion.rerank(question, items, top_n)


def build_pools(resources: EvalResources, questions: list[EvalQuestion]) -> list[list[RerankItem]]:
    """Each question's MPR pool (statistical analysis), built once."""
    capture = _Capture()
    retriever = MultiPortfolioRetriever(resources.lexical, None, capture, resources.settings)
    pools = []
    for question in questions:
        retriever.run(question.text, top_n=1)
        allowed = set(question.candidates)
        pools.append([it for it in capture.items if not allowed or it.doc_id in allowed])
    return pools


# ------------------------------------------------------------------------------- speed


def _timed(label: str, fn, baseline: float | None, pairs: int) -> float:
    """Time ``fn(pairs)`` after a small warm-up call (first-call allocations are not what a running server pays)."""
    fn(4)
    started = time.perf_counter()
    fn(pairs)
    seconds = time.perf_counter() - started
    ratio = "" if baseline is None else f"  ({baseline / seconds:.2f}x torch)"
    print(f"| {label} | {seconds:.2f} | {pairs / seconds:.1f} |{ratio}")
    return seconds


def speed(resources: EvalResources, hf_model: str | None, folder: Path, depths: list[int]) -> None:
    """Seconds and pairs/s for 270 pairs: torch vs ONNX fp32 vs ONNX int8, and the cascade end to end."""
    import torch

    torch.set_num_threads(2)
    question = resources.dataset.questions[0]
    from navicite.index.parse import free_text

    hits = resources.lexical.search(free_text(question.text), k=SPEED_PAIRS)
    items = []
    for hit in hits:
        doc = resources.lexical.get(hit.doc_id)
        items.append(RerankItem(hit.doc_id, f"{doc.title}\n{doc.abstract or doc.text}"[:2000], {"bm25": float(hit.score)}))
    texts = [it.text for it in items]
    print(f"\n## Speed: {len(items)} SciFact abstracts for question {question.id!r}; "
          f"{platform.machine()}, {os.cpu_count()} CPUs shared, torch and ONNX Runtime 2 threads, {_load()}")
    print("| runtime | seconds | pairs/s | |\n|---|---|---|---|")
    fp32 = OnnxCrossEncoder(folder, "fp32", threads=2)
    int8 = OnnxCrossEncoder(folder, "int8", threads=2)
    for length in (256, 128):
        baseline = None
        if hf_model is not None and not is_exported(Path(hf_model), "int8"):
            from sentence_transformers import CrossEncoder

            model = CrossEncoder(hf_model, max_length=length)
            baseline = _timed(f"torch fp32 @{length}", lambda n, m=model: m.predict([(question.text, t) for t in texts[:n]], batch_size=16), None, len(texts))
        _timed(f"ONNX fp32 @{length}", lambda n, L=length: fp32.score(question.text, texts[:n], L, 16), baseline, len(texts))
        _timed(f"ONNX int8 @{length}", lambda n, L=length: int8.score(question.text, texts[:n], L, 16), baseline, len(texts))
    hybrid = create(resources.settings, known_vectors=_vectors(resources))
    _timed("hybrid only (stored vectors)", lambda n: hybrid.rerank(question.text, items[:n], 50), None, len(texts))
    for depth in depths:
        settings = _with(resources.settings, backend="navicite", model=str(folder),
                         navicite=resources.settings.rerank.navicite.model_copy(update={"depth": depth}))
        cascade = create(settings, known_vectors=_vectors(resources))
        _timed(f"cascade int8 depth {depth} @{settings.rerank.navicite.max_length}", lambda n, c=cascade: c.rerank(question.text, items[:n], 50), None, len(texts))
    print(_load())


# ------------------------------------------------------------------------------- quality


@dataclass
class MethodRuns:
    """Rankings and seconds per method for one data set."""

    runs: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    seconds: dict[str, list[float]] = field(default_factory=dict)

    def add(self, method: str, qid: str, scored: list[Scored], seconds: float) -> None:
        self.runs.setdefault(method, {})[qid] = {s.doc_id: float(len(scored) - i) for i, s in enumerate(scored)}
        self.seconds.setdefault(method, []).append(seconds)


def _vectors(resources: EvalResources) -> dict[str, np.ndarray]:
    return dict(zip(resources.dense.ids, resources.dense.vectors))


def _timed_rerank(reranker: Reranker, question: str, pool: list[RerankItem]) -> tuple[list[Scored], float]:
    started = time.perf_counter()
    scored = reranker.rerank(question, pool, len(pool))
    return scored, time.perf_counter() - started


def _gold_first(question: EvalQuestion, pool: list[RerankItem]) -> list[Scored]:
    """The pool in its best possible order: what a perfect reranker would reach with it."""
    gold = question.gold
    ordered = sorted(pool, key=lambda it: -float(gold.get(it.doc_id, 0)))
    return [Scored(it.doc_id, float(len(ordered) - i)) for i, it in enumerate(ordered)]


def quality(resources: EvalResources, questions: list[EvalQuestion], folder: Path, depths: list[int], weights: list[float],
            llm_limit: int, variants: list[str], every: int = 20) -> None:
    settings = resources.settings
    started = time.perf_counter()
    pools = build_pools(resources, questions)
    sizes = [len(p) for p in pools]
    print(f"\n## Quality: {resources.dataset.name}, {len(questions)} questions, MPR pools (statistical analysis) "
          f"built in {time.perf_counter() - started:.0f} s, pool size mean {statistics.fmean(sizes):.0f} / max {max(sizes)}")
    known = _vectors(resources)
    hybrid = create(settings, known_vectors=known)
    none = FusionReranker()
    scorers = {v: OnnxCrossEncoder(folder, v, threads=settings.rerank.navicite.onnx_threads) for v in variants}
    length = settings.rerank.navicite.max_length
    out = MethodRuns()
    for done, (question, pool) in enumerate(zip(questions, pools), 1):
        if done % every == 0 and done < len(questions):
            print(f"after {done} questions ({_load()}):")
            _table(questions, out, 0)
        out.add("none (RRF)", question.id, *_timed_rerank(none, question.text, pool))
        out.add("pool ceiling (gold first)", question.id, _gold_first(question, pool), 0.0)
        ordered, prior_seconds = _timed_rerank(hybrid, question.text, pool)
        out.add("hybrid", question.id, ordered, prior_seconds)
        text = {it.doc_id: it.text for it in pool}
        for variant, scorer in scorers.items():
            head = [text[s.doc_id] for s in ordered[: max(depths)]]
            t0 = time.perf_counter()
            logits = scorer.score(question.text, head, length, settings.rerank.batch_size)
            ce_seconds = time.perf_counter() - t0
            for depth in depths:
                for weight in weights:
                    scored = fuse(ordered, logits[:depth], weight, len(ordered))
                    share = ce_seconds * min(depth, len(head)) / max(1, len(head))
                    out.add(f"navicite {variant} d{depth} w{weight:g}", question.id, scored, prior_seconds + share)
    if llm_limit:
        judge = create(_with(settings, backend="llm"), known_vectors=known, llm=resources.llm)
        before = resources.llm.usage.totals().get("rerank", {})
        for question, pool in list(zip(questions, pools))[:llm_limit]:
            out.add(f"llm d{settings.rerank.llm.depth} (first {llm_limit} q)", question.id, *_timed_rerank(judge, question.text, pool))
        after = resources.llm.usage.totals().get("rerank", {})
        cost = {k: after.get(k, 0) - before.get(k, 0) for k in ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "seconds")}
        print(f"llm judge cost over {llm_limit} questions: {cost['calls']:.0f} calls ({cost['cache_hits']:.0f} from cache), "
              f"{cost['prompt_tokens']:.0f} prompt + {cost['completion_tokens']:.0f} completion tokens, {cost['seconds']:.0f} s model time")
    _table(questions, out, llm_limit)


def _table(questions: list[EvalQuestion], out: MethodRuns, llm_limit: int) -> None:
    qrels = {q.id: q.gold for q in questions}
    print("| method | questions | nDCG@10 | recall@10 | all-gold@10 | rerank s/q p50 |\n|---|---|---|---|---|---|")
    for method, run in out.runs.items():
        subset = {qid: qrels[qid] for qid in run}
        means = mean_scores(retrieval_scores(subset, run, [10]))
        print(f"| {method} | {len(run)} | {means['ndcg@10']:.4f} | {means['recall@10']:.4f} | {means['all_gold@10']:.4f} | "
              f"{statistics.median(out.seconds[method]):.3f} |")
    if llm_limit:
        # The llm row covers fewer questions: the same subset for the other methods, for a fair look.
        subset_ids = list(out.runs[next(m for m in out.runs if m.startswith("llm"))])
        print(f"same {len(subset_ids)} questions, every method:")
        for method, run in out.runs.items():
            part = {qid: run[qid] for qid in subset_ids}
            means = mean_scores(retrieval_scores({qid: qrels[qid] for qid in subset_ids}, part, [10]))
            print(f"|   {method} | {len(part)} | {means['ndcg@10']:.4f} | {means['recall@10']:.4f} | {means['all_gold@10']:.4f} | |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="Hugging Face cross-encoder folder or exported ONNX folder (default: shipped weights).")
    parser.add_argument("--onnx-dir", type=Path, help="Where to export --model (default: the home's cache).")
    parser.add_argument("--speed", action="store_true", help="Time the runtimes on 270 SciFact pairs.")
    parser.add_argument("--dataset", action="append", default=[], help="KIND:PATH for the quality table (repeatable).")
    parser.add_argument("--split", default="train", help="Split of BEIR data sets.")
    parser.add_argument("--limit", type=int, default=200, help="First N questions of each data set.")
    parser.add_argument("--depths", default="40", help="Cascade depths, comma-separated.")
    parser.add_argument("--weights", default=None, help="Cascade CE weights, comma-separated (default: the setting).")
    parser.add_argument("--variants", default="fp32,int8", help="ONNX networks in the quality table.")
    parser.add_argument("--llm-limit", type=int, default=0, help="Also run the llm judge on the first N questions.")
    parser.add_argument("--home", default="/tmp/rerank-inf-home")
    parser.add_argument("--set", action="append", default=[], dest="overrides")
    args = parser.parse_args()

    settings = load_settings(args.home, args.overrides)
    folder = onnx_folder(args.model, args.onnx_dir, settings)
    depths = [int(d) for d in args.depths.split(",")]
    weights = [float(w) for w in args.weights.split(",")] if args.weights else [settings.rerank.navicite.weight]
    print(f"model {args.model or 'shipped'} -> ONNX folder {folder}; cascade length {settings.rerank.navicite.max_length}, "
          f"depths {depths}, weights {weights}; {platform.machine()}, {os.cpu_count()} CPUs shared, {_load()}")
    if args.speed:
        scifact = load_dataset("beir:../shared/data/scifact", "train")
        speed(EvalResources(scifact, settings), args.model, folder, sorted({*depths, 20, 40, 80}))
    held_out = scifact_claims_held_out([args.model, folder])
    for spec in args.dataset:
        data = load_dataset(spec, args.split if spec.startswith("beir:") else None)
        if held_out is not None and data.name == "beir:scifact" and args.split == "train" and args.limit > held_out:
            # The later claims are the model's training data: scoring them would report a leak.
            raise SystemExit(f"this model trained on SciFact train claims past the first {held_out}; use --limit {held_out} or less")
        quality(EvalResources(data, settings), data.questions[: args.limit], folder, depths, weights, args.llm_limit,
                args.variants.split(","))
    print(_load())


if __name__ == "__main__":
    main()
