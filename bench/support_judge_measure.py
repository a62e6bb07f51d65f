"""The trained support judge against the labelled set: scores, the calibration, and its figures (issue 49).

``score``: the trained judge's probability for every labelled pair (the pair's passages read
window by window, as the run-time judge reads them: :class:`navicite.support.trained.TrainedJudge`).
For the tuning part, ``--oof`` takes the out-of-fold scores of ``support_judge_train.py tune``
instead (models that did not train on the pair), so the calibration is fitted on fair scores.

``features``: per pair, the embedded model's yes/no (the verifier's own support question,
:class:`navicite.support.llm.LLMJudge`, answers cached in ``--home``) and the word rules that
object to it.

``calibrate``: fits the combined score of :mod:`navicite.support.calibrated` on the tuning part
(logistic regression), sets the accept threshold for tuning precision >= ``--precision``
(``--recall-loss`` guards nothing here: it is only reported), writes the calibration, and prints
tuning and held-out precision and recall for the trained judge alone, the model alone, and the
combination. The held-out part is only read to report.

    .venv/bin/python bench/support_judge_measure.py score --model /tmp/judge/final --oof /tmp/judge/final/tune_out_of_fold.json --out /tmp/judge/probs.json
    .venv/bin/python bench/support_judge_measure.py features --home /tmp/support-bench --out /tmp/judge/features.json
    .venv/bin/python bench/support_judge_measure.py calibrate --probs /tmp/judge/probs.json --features /tmp/judge/features.json --out src/navicite/support/weights/calibration.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

from support_ce_bench import auc

from navicite.eval.support_set import SupportPair, held_out, load_support_set
from navicite.rerank.onnx import export_onnx, is_exported
from navicite.support.base import Passage
from navicite.support.calibrated import Calibration, model_vote
from navicite.support.cascade import default_rules
from navicite.support.rules import Fragment, Numbers, OverlapAccept
from navicite.support.trained import TrainedJudge


def judge_for(folder: Path, threads: int = 2) -> TrainedJudge:
    """The trained judge of a Hugging Face folder (exported to int8 ONNX once, beside it) or an exported folder."""
    target = folder if is_exported(folder, "int8") else folder / "onnx"
    if not is_exported(target, "int8"):
        export_onnx(folder, target, quantize=True)
    return TrainedJudge(target, threads=threads)


def pair_probability(judge: TrainedJudge, pair: SupportPair) -> float:
    """The judge's probability that the pair's passages support its claim."""
    return judge.probability([Passage(p.title, p.text) for p in pair.passages], pair.claim)


def objection_rules() -> list:
    """The word rules whose objections the calibration weighs (the cascade's refusing rules)."""
    return [r for r in default_rules() if not isinstance(r, OverlapAccept) and r.name != "fragment"]


def score_command(args: argparse.Namespace) -> None:
    judge = judge_for(args.model)
    oof = json.loads(args.oof.read_text(encoding="utf-8")) if args.oof else {}
    started = time.time()
    probs = {}
    for pair in load_support_set(args.pairs):
        if not held_out(pair) and pair.digest in oof:
            probs[pair.digest] = oof[pair.digest]
        else:
            probs[pair.digest] = pair_probability(judge, pair)
    args.out.write_text(json.dumps(probs, indent=1), encoding="utf-8")
    print(f"scored {len(probs)} pairs ({len(oof)} out-of-fold) in {time.time() - started:.0f} s")


def features_command(args: argparse.Namespace) -> None:
    from navicite import llm as llm_backends
    from navicite.config import Settings
    from navicite.support.llm import LLMJudge

    settings = Settings(home=args.home, llm={"backend": "embedded", "threads": args.threads})
    judge = LLMJudge(llm_backends.create(settings))
    rules = objection_rules()
    out = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {}
    # The tuning part first: the calibration is fitted on it; the held-out part is only reported.
    pairs = sorted(load_support_set(args.pairs), key=held_out)
    started = time.time()
    for k, pair in enumerate(pairs, start=1):
        if pair.digest in out:
            continue
        premises = [Passage(p.title, p.text) for p in pair.passages]
        objections = [r.name for r in rules if (v := r.decide(premises, pair.claim, ())) is not None and not v.supported]
        vetoes = [r.name for r in (Fragment(), Numbers()) if r.decide(premises, pair.claim, ()) is not None]
        verdict = judge.entails(premises, pair.claim)
        out[pair.digest] = {"llm": verdict.supported, "llm_score": verdict.score, "objections": objections, "vetoes": vetoes}
        args.out.write_text(json.dumps(out, indent=1), encoding="utf-8")
        print(f"[{k}/{len(pairs)} {time.time() - started:.0f}s]", file=sys.stderr, flush=True)
    print(f"features of {len(out)} pairs; model {settings.llm.model}")


def _figures(decisions: list[tuple[bool, bool]]) -> tuple[int, float, float]:
    accepted = [s for a, s in decisions if a]
    supported = sum(s for _, s in decisions)
    return len(accepted), (sum(accepted) / len(accepted) if accepted else math.nan), sum(accepted) / max(1, supported)


def threshold_for(scores: list[tuple[float, bool]], precision: float) -> float:
    """The lowest threshold whose accepted pairs (score >= threshold) reach ``precision`` (and stay there above it)."""
    candidates = sorted({s for s, _ in scores})
    ok = [t for t in candidates if (f := _figures([(s >= t, y) for s, y in scores]))[0] and f[1] >= precision]
    # The lowest t from which precision holds for every higher t too (no lucky dip).
    for t in ok:
        if all(u in ok for u in candidates if u >= t and _figures([(s >= u, y) for s, y in scores])[0]):
            return t
    return max(candidates) + 1e-6


def calibrate_command(args: argparse.Namespace) -> None:
    from sklearn.linear_model import LogisticRegression

    probs = json.loads(args.probs.read_text(encoding="utf-8"))
    feats = json.loads(args.features.read_text(encoding="utf-8"))
    pairs = [p for p in load_support_set(args.pairs) if p.digest in probs and p.digest in feats]
    rule_names = [r.name for r in objection_rules()]

    def vote(p: SupportPair) -> float:
        f = feats[p.digest]
        return model_vote(f.get("llm_score", 1.0 if f["llm"] else 0.0))

    def row(p: SupportPair, with_llm: bool = True) -> list[float]:
        q = min(max(probs[p.digest], 1e-6), 1 - 1e-6)
        f = feats[p.digest]
        return [math.log(q / (1 - q)), vote(p) if with_llm else 0.0, *[float(n in f["objections"]) for n in rule_names]]

    tune = [p for p in pairs if not held_out(p)]
    held = [p for p in pairs if held_out(p)]
    # A vetoed pair (a fragment, a number no passage holds) is refused before any score: not fitted on.
    fit = [p for p in tune if not feats[p.digest]["vetoes"]]
    model = LogisticRegression(C=args.c).fit([row(p) for p in fit], [int(p.supported) for p in fit])
    w = model.coef_[0]
    cal0 = Calibration(float(model.intercept_[0]), float(w[0]), float(w[1]),
                       {n: float(x) for n, x in zip(rule_names, w[2:])}, 0.0)

    def z(p: SupportPair) -> float:
        f = feats[p.digest]
        if f["vetoes"]:
            return -math.inf
        return cal0.base(probs[p.digest], f["objections"]) + cal0.llm * vote(p)

    threshold = threshold_for([(z(p), p.supported) for p in tune if not feats[p.digest]["vetoes"]], args.precision)
    trained_t = threshold_for([(probs[p.digest], p.supported) for p in tune], args.precision)
    model_t = threshold_for([(vote(p), p.supported) for p in tune], args.precision)
    print(f"pairs: tuning {len(tune)} ({sum(p.supported for p in tune)} supported), held-out {len(held)} "
          f"({sum(p.supported for p in held)} supported)")
    print(f"weights: bias {cal0.bias:.3f}, trained {cal0.trained:.3f}, llm {cal0.llm:.3f}, "
          + ", ".join(f"{n} {x:.3f}" for n, x in cal0.rules.items()) + f"; threshold {threshold:.3f}")
    print("\n| judge | part | accepted | precision | recall |\n|---|---|---|---|---|")
    for name, part in (("tuning", tune), ("held-out", held)):
        for label, decide in (
            (f"trained alone, p >= {trained_t:.3f}", lambda p: probs[p.digest] >= trained_t),
            (f"trained, vetoes, p >= {trained_t:.3f}", lambda p: probs[p.digest] >= trained_t and not feats[p.digest]["vetoes"]),
            ("model alone (yes)", lambda p: feats[p.digest]["llm"]),
            (f"model alone, vote >= {model_t:.3f}", lambda p: vote(p) >= model_t),
            ("model yes and no rule objects", lambda p: feats[p.digest]["llm"] and not feats[p.digest]["objections"]),
            (f"calibrated, z >= {threshold:.3f}", lambda p: z(p) >= threshold),
        ):
            n, prec, rec = _figures([(bool(decide(p)), p.supported) for p in part])
            print(f"| {label} | {name} | {n} | {prec:.3f} | {rec:.3f} |")
    asked = sum(not feats[p.digest]["vetoes"] and abs(cal0.base(probs[p.digest], feats[p.digest]["objections"]) - threshold)
                < abs(cal0.llm) for p in held)
    print(f"\nheld-out pairs on which the model's vote could change the verdict (asked): {asked} of {len(held)}")
    held_auc = auc([(probs[p.digest], p.supported) for p in held])
    print(f"trained judge AUC: tuning {auc([(probs[p.digest], p.supported) for p in tune]):.3f}, held-out {held_auc:.3f}")
    print(f"model's vote AUC: tuning {auc([(vote(p), p.supported) for p in tune]):.3f}, "
          f"held-out {auc([(vote(p), p.supported) for p in held]):.3f}")
    print(f"calibrated score AUC: tuning {auc([(z(p), p.supported) for p in tune]):.3f}, "
          f"held-out {auc([(z(p), p.supported) for p in held]):.3f}")
    n, prec, rec = _figures([(z(p) >= threshold, p.supported) for p in tune])
    final = Calibration(cal0.bias, cal0.trained, cal0.llm, cal0.rules, threshold,
                        {"pairs": len(tune), "precision": round(prec, 3), "recall": round(rec, 3),
                         "target_precision": args.precision, "model": "qwen2.5-coder-1.5b (embedded)"})
    if args.out:
        final.save(args.out)
        print(f"calibration written to {args.out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    s = commands.add_parser("score")
    s.add_argument("--model", type=Path, required=True)
    s.add_argument("--oof", type=Path)
    s.add_argument("--out", type=Path, required=True)
    f = commands.add_parser("features")
    f.add_argument("--home", type=Path, default=Path("/tmp/support-bench"))
    f.add_argument("--threads", type=int, default=1)
    f.add_argument("--out", type=Path, required=True)
    c = commands.add_parser("calibrate")
    c.add_argument("--probs", type=Path, required=True)
    c.add_argument("--features", type=Path, required=True)
    c.add_argument("--precision", type=float, default=0.95)
    c.add_argument("--c", type=float, default=1.0, help="inverse regularisation of the logistic fit")
    c.add_argument("--out", type=Path)
    for command in (s, f, c):
        command.add_argument("--pairs", type=Path, help="folder of the labelled set (default: the shipped one)")
    args = parser.parse_args()
    {"score": score_command, "features": features_command, "calibrate": calibrate_command}[args.command](args)


if __name__ == "__main__":
    main()
