"""A blank-filling check of support (issue 49): does the model put the claim's own value back?

The support judge answers yes or no about a whole claim, and the labelled set's wrong pairs it
accepts are mostly bindings: the right names or numbers with the wrong roles ("186 patients were
treated with a radical operation" where the passage gives 251 for that and 186 for X-ray; Somers'
D and Kendall's tau-b swapped). A model that drafts such answers right reads a narrow question
better than a verdict, so this check asks one: each name or number of the claim that the
passages mention is blanked out in turn, and the model fills the blank from the passages
(the shipped system prompt, source first, one short JSON reply). A fill that gives the value back
is evidence of the binding; a fill that gives another value is evidence against it.

``run`` writes per pair the masks and fills (resumes from ``--out``); ``report`` joins them with
the shipped question's p(yes) (``bench/results/support-judge-variants.json``) and the word rules,
and prints accept levels per part against the labelled set's labels (ExpertQA experts, SciFact
annotators, assistant readers of navicite's answers and PDFs; never against a model). The
combination is chosen on the tuning part and read on the held-out part.

    .venv/bin/python bench/support_fill.py run --home /work/runs/judge-home --out bench/results/support-fill.json
    .venv/bin/python bench/support_fill.py report --out bench/results/support-fill.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from pydantic import BaseModel
from support_judge_variants import interleaved, objections, source_text

from navicite import prompts
from navicite.eval.support_set import SupportPair, held_out, load_support_set
from navicite.llm.base import LLM, CallOptions, LLMError
from navicite.messages import Message
from navicite.support.llm import plain_claim
from navicite.support.words import claim_names, mentions, source_vocabulary

BLANK = "____"
#: Names blanked per claim, numbers first (a value is what a wrong binding gets wrong most often).
MAX_MASKS = 3
ASK_FILL = """{source}

The sentence below has one blank ({blank}). Using only the source above, fill the blank with
the source's words. If the source does not say what belongs there, give an empty string.
Reply with JSON: {{"blank": "..."}}

Sentence: {sentence}"""
VARIANTS = Path(__file__).resolve().parent / "results" / "support-judge-variants.json"


class Fill(BaseModel):
    blank: str = ""


def masks(pair: SupportPair) -> list[tuple[str, str]]:
    """``(name, claim with that name blanked)`` for up to :data:`MAX_MASKS` names the passages mention."""
    claim = plain_claim(pair.claim)
    vocabularies = [source_vocabulary(p.text) for p in pair.passages if p.text.strip()]
    names = [n for n in claim_names(claim) if any(mentions(n, v) for v in vocabularies)]
    names.sort(key=lambda n: not n[0].isdigit())
    out = []
    for name in names:
        at = re.search(r"(?<![\w.])" + re.escape(name) + r"(?![\w])", claim)
        if at is None:
            continue
        out.append((name, claim[: at.start()] + BLANK + claim[at.end() :]))
        if len(out) == MAX_MASKS:
            break
    return out


def agrees(name: str, fill: str) -> bool:
    """Whether ``fill`` gives ``name`` back, read as the word rules read a passage (:func:`mentions`)."""
    return mentions(name, source_vocabulary(fill))


def ask(model: LLM, pair: SupportPair, sentence: str) -> str:
    messages = prompts.render("cite_system") + [
        Message("user", ASK_FILL.format(source=source_text(pair), blank=BLANK, sentence=sentence))]
    try:
        return model.complete_json(messages, Fill, CallOptions(temperature=0.0, max_tokens=40, stage="verify")).blank
    except LLMError:  # a misbehaving reply is no fill
        return ""


def run_command(args: argparse.Namespace) -> None:
    from navicite import llm as llm_backends
    from navicite.config import Settings

    settings = Settings(home=args.home, llm={"backend": "embedded", "threads": args.threads})
    model = llm_backends.create(settings)
    out = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {}
    pairs = interleaved(load_support_set(None))[: args.limit or None]
    started = time.time()
    for k, pair in enumerate(pairs, start=1):
        if pair.digest in out:
            continue
        t = time.time()
        fills = [{"name": n, "fill": ask(model, pair, s)} for n, s in masks(pair)]
        out[pair.digest] = {"held_out": held_out(pair), "supported": pair.supported, "source": pair.source,
                            "fills": fills, "s": round(time.time() - t, 2)}
        args.out.write_text(json.dumps(out, indent=1), encoding="utf-8")
        print(f"[{k}/{len(pairs)} {time.time() - started:.0f}s] {len(fills)} masks", file=sys.stderr, flush=True)


def report_command(args: argparse.Namespace) -> None:
    rows = json.loads(args.out.read_text(encoding="utf-8"))
    shipped = json.loads(VARIANTS.read_text(encoding="utf-8"))
    objecting = objections()
    for part in (False, True):
        sel = [(d, r) for d, r in rows.items() if r["held_out"] == part and d in shipped and "passage" in shipped[d]]
        sup = sum(r["supported"] for _, r in sel)
        print(f"\n{'held-out' if part else 'tuning'}: {len(sel)} pairs, {sup} supported")
        # Per pair: True when every fill agrees, False when one disagrees, None when nothing was blanked.
        filled = {d: all(agrees(f["name"], f["fill"]) for f in r["fills"]) if r["fills"] else None for d, r in sel}
        for label, value in (("every fill agrees", True), ("a fill disagrees", False)):
            group = [r for d, r in sel if filled[d] is value]
            print(f"  {label}: {len(group)} pairs, {sum(r['supported'] for r in group)} supported")

        def verdict(d: str, level: float, rescue: float | None, veto: bool) -> bool:
            p = shipped[d]["passage"]["p"]
            if objecting[d] or (veto and filled[d] is False):
                return False
            return p >= level or (rescue is not None and filled[d] is True and p >= rescue)

        for level, rescue, veto in ((0.5, None, False), (0.5, None, True), (0.4, None, True), (0.5, 0.3, False),
                                    (0.5, 0.3, True), (0.5, 0.2, True), (0.4, 0.2, True), (0.3, None, True)):
            got = [(verdict(d, level, rescue, veto), r["supported"]) for d, r in sel]
            acc = [y for v, y in got if v]
            answers = [(verdict(d, level, rescue, veto), r["supported"]) for d, r in sel if r["source"] == "read:answers"]
            acc_a = [y for v, y in answers if v]
            print(f"  p>={level} rescue {rescue} veto {veto}: {len(acc)} acc, P {sum(acc) / max(1, len(acc)):.3f} "
                  f"R {sum(acc) / max(1, sup):.3f}; answers {len(acc_a)} acc, P {sum(acc_a) / max(1, len(acc_a)):.3f} "
                  f"R {sum(acc_a) / max(1, sum(y for _, y in answers)):.3f}")
    print(f"\nseconds per pair with masks: "
          f"{sum(r['s'] for r in rows.values() if r['fills']) / max(1, sum(bool(r['fills']) for r in rows.values())):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="blank and fill every labelled pair's names")
    run.add_argument("--home", type=Path, required=True, help="navicite home (its LLM cache is reused)")
    run.add_argument("--out", type=Path, required=True)
    run.add_argument("--threads", type=int, default=2)
    run.add_argument("--limit", type=int, default=0, help="first N pairs in interleaved hash order (0: all)")
    report = sub.add_parser("report", help="accept levels with the fills, against the labels")
    report.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    run_command(args) if args.command == "run" else report_command(args)


if __name__ == "__main__":
    main()
