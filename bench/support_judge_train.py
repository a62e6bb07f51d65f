"""Train the support judge on pairs made from real documents, then on the labelled tuning part (issue 49).

``train``: reads a ``support_judge_data.py`` file, keeps at most ``--per-doc`` pairs of one
document, sets aside the pairs of one document in 50 (by a hash of its id) as a synthetic check,
adds the public labelled pairs of ``support_ce_bench.build`` (SciFact train claims with their
rationales, ExpertQA claims with their evidence; every labelled-set claim and every ExpertQA
question with a held-out pair left out), and fine-tunes MiniLM-L6 (``--minutes`` caps it).

``tune``: goes on from a trained judge on the labelled set's tuning part (never the held-out
part). ``--folds K`` first trains K models each without one fold and scores the fold it did not
see, so the tuning part gets scores from models that did not train on it (what the calibration
reads), then trains the final model on the whole part.

    .venv/bin/python bench/support_judge_train.py train --pairs /tmp/judge/pairs.jsonl --out /tmp/judge/stage1 --minutes 55
    .venv/bin/python bench/support_judge_train.py tune --start /tmp/judge/stage1 --out /tmp/judge/final --folds 5
    .venv/bin/python bench/support_judge_train.py ship --model /tmp/judge/final

``ship`` writes a trained judge into the package (``src/navicite/support/weights``): its int8
network as a difference from MiniLM (:func:`navicite.rerank.delta.write_delta`), tokenizer, config
and training record; the calibration is written there by ``support_judge_measure.py calibrate``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from support_ce_bench import build as public_pairs  # noqa: E402

from navicite.eval.support_set import held_out, load_support_set  # noqa: E402
from navicite.rerank.delta import minilm_path  # noqa: E402
from navicite.text.windows import premise_text  # noqa: E402
from navicite.train.support_trainer import JudgeTrainConfig, Pair, train_judge  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def _checked(doc: str) -> bool:
    return int(hashlib.sha256(doc.encode()).hexdigest()[:8], 16) % 50 == 0


def synthetic(path: Path, per_doc: int, seed: int) -> tuple[list[Pair], list[Pair], Counter[str]]:
    """Training and check pairs from a pairs file (at most ``per_doc`` per document), and counts per source and kind."""
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    random.Random(seed).shuffle(rows)
    taken: Counter[str] = Counter()
    train: list[Pair] = []
    check: list[Pair] = []
    counts: Counter[str] = Counter()
    for r in rows:
        if taken[r["doc"]] >= per_doc:
            continue
        taken[r["doc"]] += 1
        pair = (r["claim"], premise_text(r["title"], r["window"]), int(r["label"]))
        (check if _checked(r["doc"]) else train).append(pair)
        counts[f"source {r['source']}"] += 1
        counts[f"kind {r['kind']}:{r['label']}"] += 1
    return train, check, counts


def progress(step: int, total: int, loss: float, speed: float) -> None:
    if step % 50 == 0 or step == total:
        print(f"step {step}/{total} loss {loss:.3f} {speed:.1f} pairs/s", file=sys.stderr, flush=True)


def train_command(args: argparse.Namespace) -> None:
    train, check, counts = synthetic(args.pairs, args.per_doc, args.seed)
    if args.limit:
        train = train[: args.limit]
    public, public_counts = public_pairs(DATA, with_tune=False)
    pairs = train + public * args.public_repeats
    if args.extra:
        # Reworded pairs (support_judge_reword.py): their documents' pairs stay out of the check too.
        extra, extra_check, extra_counts = synthetic(args.extra, args.per_doc, args.seed)
        pairs += extra * args.extra_repeats
        check += extra_check
        counts.update({f"extra {k}": v for k, v in extra_counts.items()})
    random.Random(args.seed).shuffle(pairs)
    config = JudgeTrainConfig(minilm_path(), max_length=args.max_length, batch=args.batch, learning_rate=args.lr,
                              epochs=args.epochs, max_minutes=args.minutes, threads=args.threads)
    print(json.dumps({"synthetic_train": len(train), "synthetic_check": len(check), "public": len(public),
                      "counts": dict(sorted(counts.items())), "public_counts": public_counts}), flush=True)
    result = train_judge(pairs, config, args.out, progress, start_from=args.start)
    args.out.joinpath("checks.jsonl").write_text("".join(json.dumps(p) + "\n" for p in check), encoding="utf-8")
    info = {"synthetic_train": len(train), "synthetic_check": len(check), "public": len(public),
            "public_repeats": args.public_repeats, "per_doc": args.per_doc, "counts": dict(sorted(counts.items())),
            "steps": result.steps, "pairs_seen": result.pairs, "seconds": round(result.seconds),
            "final_loss": round(result.final_loss, 4), "config": {k: str(v) for k, v in vars(args).items()}}
    args.out.joinpath("train_info.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
    print(json.dumps({k: v for k, v in info.items() if k != "counts"}))


def tuning_pairs(start: Path) -> list[tuple[str, Pair]]:
    """The labelled set's tuning part as (digest, pair), each read as the judge reads it at run time:
    the window of its passages that the judge trained so far (``start``) rates highest."""
    from support_judge_measure import judge_for

    from navicite.support.base import Passage

    judge = judge_for(start)
    out = []
    for p in load_support_set():
        if not held_out(p):
            _, window = judge.best_window([Passage(q.title, q.text) for q in p.passages], p.claim)
            out.append((p.digest, (p.claim, window, int(p.supported))))
    return out


def tune_command(args: argparse.Namespace) -> None:
    from support_judge_measure import judge_for, pair_probability

    tune = tuning_pairs(args.start)
    config = JudgeTrainConfig(minilm_path(), max_length=args.max_length, batch=16, learning_rate=args.lr,
                              warmup_share=0.1, epochs=args.epochs, threads=args.threads)
    by_digest = {p.digest: p for p in load_support_set()}
    out_of_fold: dict[str, float] = {}

    def fold_of(digest: str) -> int:
        # Not the digest's own bits: those already chose the held-out part, so some folds would be empty.
        return int(hashlib.sha256(f"fold:{digest}".encode()).hexdigest()[:8], 16) % args.folds

    for fold in range(args.folds):
        seen = [pair for digest, pair in tune if fold_of(digest) != fold]
        unseen = [digest for digest, _ in tune if fold_of(digest) == fold]
        folder = args.out.parent / f"{args.out.name}-fold{fold}"
        train_judge(seen, config, folder, start_from=args.start)
        judge = judge_for(folder)
        for digest in unseen:
            out_of_fold[digest] = pair_probability(judge, by_digest[digest])
        print(f"fold {fold}: trained on {len(seen)}, scored {len(unseen)}", file=sys.stderr, flush=True)
    result = train_judge([pair for _, pair in tune], config, args.out, start_from=args.start)
    (args.out / "tune_out_of_fold.json").write_text(json.dumps(out_of_fold, indent=1), encoding="utf-8")
    start_info = json.loads((args.start / "train_info.json").read_text(encoding="utf-8"))
    info = {**start_info, "tune": {"pairs": len(tune), "epochs": args.epochs, "lr": args.lr, "folds": args.folds,
                                   "seconds": round(result.seconds)}}
    (args.out / "train_info.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
    print(json.dumps(info["tune"]))


def ship_command(args: argparse.Namespace) -> None:
    import shutil

    from navicite.rerank.delta import rebuild, write_delta
    from navicite.rerank.onnx import TOKENIZER_FILES, export_onnx, is_exported
    from navicite.support.trained import DELTA_FILE, SHIPPED

    onnx = args.model / "onnx"
    if not is_exported(onnx, "int8"):
        export_onnx(args.model, onnx, quantize=True)
    SHIPPED.mkdir(parents=True, exist_ok=True)
    write_delta(onnx / "model_int8.onnx", SHIPPED / DELTA_FILE)
    for name in TOKENIZER_FILES:
        if name != "vocab.txt" and (onnx / name).is_file():
            shutil.copy2(onnx / name, SHIPPED / name)
    shutil.copy2(args.model / "train_info.json", SHIPPED / "train_info.json")
    # The shipped delta must rebuild the very network that was measured.
    check = args.model / "rebuilt.onnx"
    rebuild(SHIPPED / DELTA_FILE, check)
    same = check.read_bytes() == (onnx / "model_int8.onnx").read_bytes()
    check.unlink()
    print(f"{SHIPPED / DELTA_FILE}: {(SHIPPED / DELTA_FILE).stat().st_size / 1e6:.1f} MB for a "
          f"{(onnx / 'model_int8.onnx').stat().st_size / 1e6:.1f} MB network; rebuilds byte for byte: {same}")
    if not same:
        raise SystemExit("the delta does not rebuild the network")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    t = commands.add_parser("train", help="stage 1: pairs made from documents, plus public labelled pairs")
    t.add_argument("--pairs", type=Path, required=True)
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--per-doc", type=int, default=300)
    t.add_argument("--public-repeats", type=int, default=2)
    t.add_argument("--minutes", type=float, default=55.0)
    t.add_argument("--epochs", type=float, default=1.0)
    t.add_argument("--batch", type=int, default=32)
    t.add_argument("--lr", type=float, default=5e-5)
    t.add_argument("--max-length", type=int, default=160)
    t.add_argument("--threads", type=int, default=2)
    t.add_argument("--seed", type=int, default=49)
    t.add_argument("--start", type=Path, help="go on from this trained judge instead of MiniLM with a new head")
    t.add_argument("--limit", type=int, default=0, help="most pairs of --pairs to train on (0: all)")
    t.add_argument("--extra", type=Path, help="a further pairs file (the reworded pairs), added --extra-repeats times")
    t.add_argument("--extra-repeats", type=int, default=2)
    u = commands.add_parser("tune", help="stage 2: the labelled set's tuning part, with out-of-fold scores")
    u.add_argument("--start", type=Path, required=True)
    u.add_argument("--out", type=Path, required=True)
    u.add_argument("--folds", type=int, default=5)
    u.add_argument("--epochs", type=float, default=2.0)
    u.add_argument("--lr", type=float, default=2e-5)
    u.add_argument("--max-length", type=int, default=320)
    u.add_argument("--threads", type=int, default=2)
    h = commands.add_parser("ship", help="write a trained judge into src/navicite/support/weights")
    h.add_argument("--model", type=Path, required=True)
    args = parser.parse_args()
    {"train": train_command, "tune": tune_command, "ship": ship_command}[args.command](args)


if __name__ == "__main__":
    main()
