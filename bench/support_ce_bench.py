"""The support cross-encoder against human labels: thresholds chosen on the tuning part, figures on the held-out part.

Each pair of the labelled support set (``src/navicite/data/support``) is scored once by the
cross-encoder (int8 ONNX, as shipped: claim first, the pair's passages read together). On the
**tuning part** (never the held-out part) it chooses:

- ``accept``: the lowest threshold whose tuning precision is at least ``--precision`` (0.95);
- ``refuse``: the highest threshold below which at most ``--recall-loss`` (5 %) of the tuning
  part's supported pairs fall: between the two, the cascade asks the LLM.

Then it prints precision and recall on the held-out part at those thresholds and over a grid,
with the pair counts. A model trained without the tuning part (``support_ce_train.py`` without
``--with-tune``) makes the tuning part a clean validation set.

    python bench/support_ce_bench.py --model /tmp/h39ce/modelA     # a trained folder (exported once)
    python bench/support_ce_bench.py                               # the shipped weights

The cascade with the LLM (the verifier's path, rules first) is measured by
``bench/support_bench.py --support-judge cross-encoder+llm``.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from navicite.config import Settings
from navicite.eval.support_set import SupportPair, held_out, load_support_set
from navicite.rerank.onnx import OnnxCrossEncoder, export_onnx, is_exported
from navicite.support.crossenc import SUPPORT_MAX_LENGTH, CrossEncoderJudge


def figures(scored: list[tuple[float, bool]], accept: float) -> tuple[int, int, float, float]:
    """Accepted pairs, of them supported, precision and recall at ``accept``."""
    acc = [s for p, s in scored if p >= accept]
    supported = sum(s for _, s in scored)
    tp = sum(acc)
    return len(acc), tp, tp / len(acc) if acc else math.nan, tp / supported if supported else math.nan


def choose(scored: list[tuple[float, bool]], precision: float, recall_loss: float) -> tuple[float, float]:
    """(accept, refuse) thresholds from tuning-part scores (see the module docstring)."""
    candidates = sorted({p for p, _ in scored})
    accept = next((t for t in candidates if figures(scored, t)[2] >= precision), 1.0)
    positives = sorted(p for p, s in scored if s)
    below = int(math.floor(recall_loss * len(positives)))
    refuse = positives[below - 1] if below else 0.0
    return accept, min(refuse, accept)


def scorer_for(model: Path | None, home: Path) -> OnnxCrossEncoder:
    """The int8 scorer of ``model`` (a trained Hugging Face folder, exported once) or the shipped weights."""
    if model is None:
        from navicite.generate.verify import support_scorer

        return support_scorer(Settings(home=home), threads=1)
    target = model / "onnx"
    if not is_exported(target, "int8"):
        export_onnx(model, target, quantize=True)
    return OnnxCrossEncoder(target, "int8", threads=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, help="trained Hugging Face folder (default: the shipped weights)")
    parser.add_argument("--home", type=Path, default=Path("/tmp/support-ce-bench"))
    parser.add_argument("--precision", type=float, default=0.95)
    parser.add_argument("--recall-loss", type=float, default=0.05)
    parser.add_argument("--max-length", type=int, default=SUPPORT_MAX_LENGTH, help="tokens per pair (as trained)")
    parser.add_argument("--out", type=Path, help="per-pair probabilities as JSONL")
    args = parser.parse_args()

    judge = CrossEncoderJudge(scorer_for(args.model, args.home), accept=0.5, max_length=args.max_length)
    pairs = load_support_set()
    probs: dict[str, float] = {}
    for pair in pairs:
        probs[pair.digest] = judge.probability(pair.passages, pair.claim)
    if args.out:
        with args.out.open("w", encoding="utf-8") as out:
            for pair in pairs:
                out.write(json.dumps({"id": pair.id, "held_out": held_out(pair), "label": pair.label,
                                      "source": pair.source, "p": round(probs[pair.digest], 5)}) + "\n")

    def part(held: bool, source: str | None = None) -> list[tuple[float, bool]]:
        return [(probs[p.digest], p.supported) for p in pairs
                if held_out(p) == held and (source is None or p.source == source)]

    tune, held = part(False), part(True)
    accept, refuse = choose(tune, args.precision, args.recall_loss)
    print(f"tuning part: {len(tune)} pairs ({sum(s for _, s in tune)} supported); "
          f"held-out: {len(held)} pairs ({sum(s for _, s in held)} supported)")
    print(f"chosen on the tuning part: accept >= {accept:.3f} (precision >= {args.precision}), "
          f"refuse <= {refuse:.3f} (at most {args.recall_loss:.0%} of supported below)")
    print("\n| threshold | tuning: accepted | P | R | held-out: accepted | supported of them | P | R |\n|---|---|---|---|---|---|---|---|")
    grid = sorted({0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, round(accept, 3)})
    for t in grid:
        ta, _, tp_, tr = figures(tune, t)
        ha, htp, hp, hr = figures(held, t)
        mark = " (chosen)" if t == round(accept, 3) else ""
        print(f"| {t:.3f}{mark} | {ta} | {tp_:.3f} | {tr:.3f} | {ha} | {htp} | {hp:.3f} | {hr:.3f} |")
    band = [(p, s) for p, s in held if refuse < p < accept]
    print(f"\nheld-out pairs in the unsure band ({refuse:.3f}, {accept:.3f}): {len(band)} "
          f"({sum(s for _, s in band)} supported); refused below: {sum(1 for p, _ in held if p <= refuse)} "
          f"({sum(s for p, s in held if p <= refuse)} supported)")
    print("\nheld-out per source at the chosen accept threshold:")
    for source in sorted({p.source for p in pairs}):
        rows = part(True, source)
        a, tp, p, r = figures(rows, accept)
        print(f"  {source}: n={len(rows)} supported={sum(s for _, s in rows)} accepted={a} P={p:.3f} R={r:.3f}")


if __name__ == "__main__":
    main()
