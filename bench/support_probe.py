"""A probe on the embedded model's hidden state: does it judge support better than the shipped verdict?

The verifier's own support question (:func:`navicite.support.llm.support_messages`) is laid out by
the model's chat template up to the verdict word (``{"supported": ``) and read by the embedded
1.5B model in llama.cpp's embedding mode with last-token pooling
(:meth:`navicite.llm.embedded.EmbeddedLLM.last_hidden_state`): the vector the model picks its
verdict from. A logistic probe on it is fitted on the labelled set's tuning part (out of fold
for the tuning figures) and read on the held-out part, beside the shipped verdict on the same
pairs (the word rules, then the model's p(yes) >= 0.5, replayed from the replies stored in
``bench/results/support-judge-variants.json``). Labels: the labelled set's (people for ExpertQA
and SciFact, assistant reading sessions for navicite's answers and the PDFs); no figure here is
graded by the model it measures.

    .venv/bin/python bench/support_probe.py features --out /work/runs/probe/labelled.npz --threads 2
    .venv/bin/python bench/support_probe.py public --out /work/runs/probe/public.npz --limit 600
    .venv/bin/python bench/support_probe.py fit --features /work/runs/probe/labelled.npz [--public /work/runs/probe/public.npz]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from navicite.config import Settings  # noqa: E402
from navicite.eval.support_set import SupportPair, held_out, load_support_set  # noqa: E402
from navicite.llm.embedded import EmbeddedLLM  # noqa: E402
from navicite.support.base import Passage  # noqa: E402
from navicite.support.llm import VERDICT_START, bounded_sources, support_messages  # noqa: E402

HERE = Path(__file__).parent
VARIANTS = HERE / "results" / "support-judge-variants.json"
DATA = HERE.resolve().parents[1] / "shared" / "data"
#: What the shipped judge reads of a passage at most (``LLMJudge.max_chars``).
MAX_CHARS = 6000


def reader(threads: int) -> EmbeddedLLM:
    """The embedded model as navicite runs it (its default model file, no answer cache)."""
    return EmbeddedLLM(Settings(home=Path(tempfile.mkdtemp()), llm={"backend": "embedded", "threads": threads, "cache": False}))


def hidden_state(llm: EmbeddedLLM, passages: list[Passage], claim: str) -> np.ndarray:
    """The model's state at the verdict word of the support question for one pair."""
    messages = support_messages(bounded_sources(passages, MAX_CHARS), claim.strip())
    return np.asarray(llm.last_hidden_state(messages, VERDICT_START), dtype=np.float32)


def _collect(out: Path, items: list[tuple[str, list[Passage], str]], threads: int) -> None:
    """Hidden states of ``(key, passages, claim)`` items into ``out`` (.npz), resuming what is there."""
    done: dict[str, np.ndarray] = dict(np.load(out)) if out.is_file() else {}
    llm = reader(threads)
    started = time.time()
    for k, (key, passages, claim) in enumerate(items, start=1):
        if key not in done:
            done[key] = hidden_state(llm, passages, claim)
        if k % 10 == 0 or k == len(items):
            np.savez(out, **done)
            print(f"[{k}/{len(items)} {time.time() - started:.0f}s]", file=sys.stderr, flush=True)
    print(f"{len(done)} vectors in {out} ({time.time() - started:.0f} s)")


def features_command(args: argparse.Namespace) -> None:
    pairs = load_support_set(None)
    _collect(args.out, [(p.digest, [Passage(q.title, q.text) for q in p.passages], p.claim) for p in pairs], args.threads)


def public_command(args: argparse.Namespace) -> None:
    """A sample of the public labelled pairs the trained network learnt from (SciFact train claims,
    ExpertQA claims of no held-out question; ``support_ce_bench.build``), as extra training rows."""
    sys.path.insert(0, str(HERE))
    from support_ce_bench import build as public_pairs

    pairs, _ = public_pairs(DATA, with_tune=False)
    random.Random(49).shuffle(pairs)
    chosen = pairs[: args.limit]
    labels = {f"public{k}": int(label) for k, (_, _, label) in enumerate(chosen, start=1)}
    args.out.with_suffix(".json").write_text(json.dumps(labels), encoding="utf-8")
    _collect(args.out, [(f"public{k}", [Passage("", text)], claim) for k, (claim, text, _) in enumerate(chosen, start=1)],
             args.threads)


def public_rows(path: Path | None, dims: int) -> tuple[np.ndarray, np.ndarray]:
    """The public pairs' vectors and labels (``public``'s output), or empty arrays."""
    if path is None:
        return np.zeros((0, dims), dtype=np.float32), np.zeros(0, dtype=bool)
    vectors = dict(np.load(path))
    labels = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    keys = sorted(k for k in vectors if k in labels)
    return np.stack([vectors[k] for k in keys]), np.array([bool(labels[k]) for k in keys])


def probe_scores(x: np.ndarray, y: np.ndarray, held: np.ndarray, extra: tuple[np.ndarray, np.ndarray],
                 c: float) -> tuple[np.ndarray, np.ndarray]:
    """Tuning scores out of fold (5 fits, each leaving a fifth of the tuning pairs out; the extra
    rows always in) and held-out scores of the fit on all of them."""
    from sklearn.base import clone
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    model = make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=5000))
    ex, ey = extra
    oof = np.zeros(len(y))
    for train, rest in StratifiedKFold(5, shuffle=True, random_state=0).split(x, y):
        oof[rest] = clone(model).fit(np.concatenate([x[train], ex]), np.concatenate([y[train], ey])).decision_function(x[rest])
    return oof, model.fit(np.concatenate([x, ex]), np.concatenate([y, ey])).decision_function(held)


Scores = list[tuple[float, bool]]


def _at(scores: Scores, t: float) -> str:
    acc = [y for s, y in scores if s >= t]
    return f"{len(acc)} acc, P {sum(acc) / len(acc) if acc else math.nan:.3f} R {sum(acc) / max(1, sum(y for _, y in scores)):.3f}"


def lowest_at(scores: Scores, precision: float, least: int = 10) -> float:
    """The lowest threshold whose accepted pairs (at least ``least``) keep ``precision``: most recall at it."""
    ok = [t for t in sorted({s for s, _ in scores})
          if len(acc := [y for s, y in scores if s >= t]) >= least and sum(acc) / len(acc) >= precision]
    return ok[0] if ok else max(s for s, _ in scores) + 1e-6


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def fit_command(args: argparse.Namespace) -> None:
    from sklearn.linear_model import LogisticRegression

    sys.path.insert(0, str(HERE))
    from support_ce_bench import auc
    from support_judge_variants import objections

    vectors = dict(np.load(args.features))
    variants = json.loads(VARIANTS.read_text(encoding="utf-8"))
    objecting = objections()
    pairs = [p for p in load_support_set(None) if p.digest in vectors and "passage" in variants.get(p.digest, {})]
    tune = [p for p in pairs if not held_out(p)]
    test = [p for p in pairs if held_out(p)]
    y = np.array([p.supported for p in tune])
    x = np.stack([vectors[p.digest] for p in tune])
    extra = public_rows(args.public, x.shape[1])
    print(f"{len(tune)} tuning pairs ({int(y.sum())} supported), {len(test)} held-out "
          f"({sum(p.supported for p in test)}), {len(extra[1])} public pairs added to training")

    def report(name: str, tune_scores: Scores, test_scores: Scores, threshold: float) -> None:
        answers = [s for s, p in zip(test_scores, test) if p.source == "read:answers"]
        print(f"{name}: AUC tuning {auc(tune_scores):.3f}, held-out {auc(test_scores):.3f} (answer sentences "
              f"{auc(answers):.3f}); at {threshold:+.2f}: tuning {_at(tune_scores, threshold)}; "
              f"held-out {_at(test_scores, threshold)}; answer sentences {_at(answers, threshold)}")

    def shipped(p: SupportPair) -> float:
        return 0.0 if objecting[p.digest] else variants[p.digest]["passage"]["p"]

    base_t = [(shipped(p), p.supported) for p in tune]
    report("shipped verdict (word rules, then p(yes))", base_t, [(shipped(p), p.supported) for p in test], 0.5)
    report("the model's p(yes) alone", [(variants[p.digest]["passage"]["p"], p.supported) for p in tune],
           [(variants[p.digest]["passage"]["p"], p.supported) for p in test], 0.5)
    # The accept level of each probe arm is set on tuning where the shipped verdict's tuning precision is kept.
    target = sum(y_ for s, y_ in base_t if s >= 0.5) / sum(1 for s, _ in base_t if s >= 0.5)
    held_x = np.stack([vectors[p.digest] for p in test])
    for c in args.c:
        oof, held = probe_scores(x, y, held_x, extra, c)
        arms: dict[str, Callable[[float, SupportPair], float]] = {
            "probe alone": lambda s, p: s,
            "probe after the word rules (an objection refuses)": lambda s, p: -99.0 if objecting[p.digest] else s,
        }
        for name, score in arms.items():
            st = [(score(float(s), p), p.supported) for s, p in zip(oof, tune)]
            sh = [(score(float(s), p), p.supported) for s, p in zip(held, test)]
            report(f"C {c}, {name}", st, sh, lowest_at(st, target))
        # Both readings of the model (two calls a claim): the probe's and its p(yes), one logistic fit
        # on the tuning part's out-of-fold probe scores; an objection refuses.
        rows_t = [[s, _logit(variants[p.digest]["passage"]["p"])] for s, p in zip(oof, tune)]
        rows_h = [[s, _logit(variants[p.digest]["passage"]["p"])] for s, p in zip(held, test)]
        both = LogisticRegression(max_iter=5000).fit(rows_t, y)
        st = [(-99.0 if objecting[p.digest] else float(z), p.supported) for z, p in zip(both.decision_function(rows_t), tune)]
        sh = [(-99.0 if objecting[p.digest] else float(z), p.supported) for z, p in zip(both.decision_function(rows_h), test)]
        report(f"C {c}, probe and p(yes) in one fit, after the word rules", st, sh, lowest_at(st, target))
    print(f"(probe accept levels: the lowest at which tuning keeps the shipped verdict's precision, {target:.3f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    f = sub.add_parser("features", help="hidden states of the labelled pairs")
    f.add_argument("--out", type=Path, required=True)
    f.add_argument("--threads", type=int, default=1)
    q = sub.add_parser("public", help="hidden states of a sample of public labelled pairs")
    q.add_argument("--out", type=Path, required=True)
    q.add_argument("--limit", type=int, default=600)
    q.add_argument("--threads", type=int, default=1)
    g = sub.add_parser("fit", help="fit probes on the tuning part; figures beside the shipped verdict")
    g.add_argument("--features", type=Path, required=True)
    g.add_argument("--public", type=Path, help="public's vectors (.npz, its labels .json beside it), added to training")
    g.add_argument("--c", type=float, nargs="*", default=[0.0003, 0.001, 0.003])
    args = parser.parse_args()
    {"features": features_command, "public": public_command, "fit": fit_command}[args.command](args)


if __name__ == "__main__":
    main()
