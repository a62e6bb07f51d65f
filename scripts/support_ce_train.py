"""Train navicite's support cross-encoder: MiniLM-L6 fine-tuned to say whether passages support a claim.

Training pairs (claim, passages, 1 = supported / 0 = partly, not supported or contradicted):

- SciFact train claims (``claims_train.jsonl``): the rationale sentences (SUPPORT -> 1,
  CONTRADICT -> 0) and, per claim, the abstract sentence outside the rationale that shares most
  of the claim's words (not stated -> 0);
- ExpertQA (``domain_test.jsonl``): each claim with its cited evidence, labelled by the expert
  (Complete -> 1; Partial, Incomplete -> 0);
- with ``--with-tune``: the tuning part of the labelled support set (never the held-out part).

Nothing derived from a held-out claim is used: a SciFact claim whose text is a held-out pair's
claim is dropped, and so is every ExpertQA question that has a held-out pair. By default every
claim of the labelled set (tuning part too) is dropped from the public data, so the tuning part
is a clean validation set on which ``--validate`` chooses the thresholds.

    OMP_NUM_THREADS=1 nice -n 15 python scripts/support_ce_train.py --data ../shared/data \
        --out /tmp/h39ce/model --minutes 20 --threads 1

Then ``--out /tmp/h39ce/model --ship src/navicite/support/weights`` exports the int8 ONNX network
and writes it as its delta over MiniLM (``model_int8.delta``) with the tokenizer and the record.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from pathlib import Path

from navicite.eval.support_set import SupportPair, held_out, load_support_set
from navicite.support.crossenc import pair_text

_WORD = re.compile(r"[a-z0-9]+")
_COMMON = frozenset("the a an of in on and or to for with by is are was were be that this as at from".split())


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _COMMON}


def _norm(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _evidence_text(raw: str) -> str:
    head, sep, rest = raw.partition("\n\n")
    return rest.strip() if sep and head.lstrip().startswith("[") and len(head.split()) <= 3 else raw.strip()


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
    import torch

    from navicite.train.trainer import RUNTIME_MAX_LENGTH, load_base

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    model, tokenizer = load_base(base)
    order = [i for _ in range(args.epochs) for i in rng.sample(range(len(pairs)), len(pairs))]
    batches = [order[i : i + args.batch] for i in range(0, len(order), args.batch)]
    total = len(batches)
    head = [p for n, p in model.named_parameters() if n.startswith("classifier") or ".pooler." in f".{n}"]
    body = [p for n, p in model.named_parameters() if not (n.startswith("classifier") or ".pooler." in f".{n}")]
    optimiser = torch.optim.AdamW([{"params": body, "weight_decay": 0.01},
                                   {"params": head, "weight_decay": 0.0, "lr": args.head_lr}], lr=args.lr)
    plan = {"total": total}
    warm = max(1, int(0.1 * total))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: (s + 1) / warm if s < warm else max(0.0, (plan["total"] - s) / max(1, plan["total"] - warm)))
    loss_fn = torch.nn.BCEWithLogitsLoss()
    model.train()
    started, losses = time.perf_counter(), []
    for step, batch in enumerate(batches, 1):
        if step > plan["total"]:
            break
        enc = tokenizer([pairs[i][0] for i in batch], [pairs[i][1] for i in batch], truncation=True,
                        max_length=args.max_length, padding=True, return_tensors="pt")
        logits = model(**enc).logits[:, 0]
        loss = loss_fn(logits, torch.tensor([float(pairs[i][2]) for i in batch]))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad(set_to_none=True)
        losses.append(loss.item())
        elapsed = time.perf_counter() - started
        if args.minutes and step % 10 == 0:
            plan["total"] = max(step, min(total, int(args.minutes * 60 / (elapsed / step))))
        if step % 20 == 0:
            print(f"step {step}/{plan['total']} loss {sum(losses[-20:]) / 20:.3f} {elapsed:.0f}s", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer.model_max_length = max(args.max_length, RUNTIME_MAX_LENGTH)
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    return {"steps": len(losses), "planned_steps": total, "seconds": round(time.perf_counter() - started),
            "final_loss": round(sum(losses[-50:]) / max(1, len(losses[-50:])), 4)}


def ship(model: Path, weights: Path) -> None:
    """Export ``model`` to int8 ONNX and write it into ``weights`` as a delta over MiniLM, with its tokenizer."""
    import shutil

    from navicite.rerank.delta import write_delta
    from navicite.rerank.navicite_ce import DELTA_FILE
    from navicite.rerank.onnx import export_onnx, is_exported, variant_file

    exported = model / "onnx"
    if not is_exported(exported, "int8"):
        export_onnx(model, exported, quantize=True)
    write_delta(exported / variant_file("int8"), weights / DELTA_FILE)
    for name in ("tokenizer.json", "tokenizer_config.json", "config.json"):
        shutil.copy2(exported / name, weights / name)
    shutil.copy2(model / "train_info.json", weights / "train_info.json")
    print(f"wrote {weights / DELTA_FILE} ({(weights / DELTA_FILE).stat().st_size / 1e6:.1f} MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--out", type=Path, required=True, help="folder for the trained Hugging Face model")
    parser.add_argument("--with-tune", action="store_true", help="train on the labelled tuning part too")
    parser.add_argument("--minutes", type=float, default=20.0, help="time cap (the schedule shrinks to fit)")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=4e-5)
    parser.add_argument("--head-lr", type=float, default=1e-3)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--counts-only", action="store_true")
    parser.add_argument("--ship", type=Path, metavar="WEIGHTS", help="only export the trained --out folder into WEIGHTS "
                        "(src/navicite/support/weights) as an int8 delta over MiniLM")
    args = parser.parse_args()
    if args.ship:
        ship(args.out, args.ship)
        return

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
