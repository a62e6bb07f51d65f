"""The verifier against human labels: precision and recall on the labelled support set, per rule.

Each pair of the set (``src/navicite/data/support``, see its README) is given to the verifier
as one sentence whose aligned sources are the pair's passages; the verifier accepts the pair when
it keeps a source. Against the person's label:

- precision: accepted pairs labelled ``supported`` / accepted pairs;
- recall: supported pairs accepted / supported pairs.

In one run, on the same pairs and the same model (its answers cached in ``--home``):

- ``today``: the verifier of commit ``--baseline`` (read from git), with its defaults for the
  embedded model (hybrid scorer, overlap accept 0.8, 16 calls, wording limit 3, joint support);
- ``new``: this checkout's verifier (the support cascade, ``create_verifier``);
- ``new - RULE``: the cascade without one rule, for every rule (and without joint support); a
  rule earns its place when precision drops without it while recall does not rise to match;
- ``model only``: no word rules at all, every pair to the model.

    .venv/bin/python bench/support_bench.py --part held-out --limit 60 --home /tmp/support-bench

State the machine's load with the figures: the 1.5B model judges one pair in seconds to a minute.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from navicite import llm as llm_backends
from navicite.config import Settings
from navicite.documents import Source
from navicite.eval.support_set import SupportPair, held_out, load_support_set
from navicite.generate.align import Alignment
from navicite.generate.sources import ContextEntry
from navicite.generate.verify import Verifier, create_judge
from navicite.support.cascade import INSTRUCTIONS, Cascade

ROOT = Path(__file__).resolve().parents[1]


def entries(pair: SupportPair) -> list[ContextEntry]:
    """The pair's passages as numbered context entries (one document per distinct title)."""
    return [ContextEntry(n, Source(doc_id=f"{pair.id}/{p.title or n}", title=p.title, text=p.text), p.text, False)
            for n, p in enumerate(pair.passages, start=1)]


def accepted(verifier: Any, pair: SupportPair) -> tuple[bool, list[str]]:
    """Whether ``verifier`` keeps a source for the pair's claim, and the scorers of its checks."""
    given = entries(pair)
    [result] = verifier.run([pair.claim], [Alignment("fact", tuple(e.number for e in given))], given, "")
    return bool(result.kept), [c.scorer for c in result.checks]


def old_verifier(commit: str, llm: Any) -> Any:
    """The verifier of ``commit`` with its embedded-model defaults, loaded from git beside this checkout's modules."""
    code = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:src/navicite/generate/verify.py"],
                          check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "verify_old.py"
    path.write_text(code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("verify_old", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["verify_old"] = module
    assert spec.loader is not None
    spec.loader.exec_module(module)

    class Fresh:
        """A new old-style verifier per pair: its judge call budget is per answer."""

        def run(self, *args: Any) -> Any:
            if llm is None:
                return module.Verifier(module.LexicalScorer(), 0.5, 0.8, novel_words=3).run(*args)
            judge = module.JudgeScorer(llm)
            scorer = module.HybridScorer(module.JudgeScorer(llm), accept=0.8, max_calls=16)
            return module.Verifier(scorer, 0.5, 0.8, novel_words=3, judge=judge, joint=True).run(*args)

    return Fresh()


class NewVerifier:
    """This checkout's verifier around a given cascade (a fresh call budget per pair)."""

    def __init__(self, cascade: Cascade, joint: bool = True) -> None:
        self.cascade = cascade
        self.joint = joint

    def run(self, *args: Any) -> Any:
        self.cascade.calls = 0
        return Verifier(self.cascade, 0.8, joint=self.joint and self.cascade.model is not None).run(*args)


def rule_table(pairs: list[SupportPair], rules: list[Any]) -> None:
    """Each rule alone on every pair (no model): how often it decides, and how often its decision
    goes against the person's label (a refusal of a pair labelled supported, an acceptance of
    one that is not)."""
    from navicite.support.rules import instructs

    print("\n| rule (alone, no model) | decides | refuses | of those labelled supported | accepts | of those not supported |"
          "\n|---|---|---|---|---|---|")
    screened = [p for p in pairs if any(instructs(q) for q in p.passages)]
    print(f"| instructions | {len(screened)} | {len(screened)} | {sum(p.supported for p in screened)} | 0 | 0 |")
    for rule in rules:
        verdicts = [(rule.decide(list(p.passages), p.claim, ()), p) for p in pairs]
        refused = [p for v, p in verdicts if v is not None and not v.supported]
        accepted_ = [p for v, p in verdicts if v is not None and v.supported]
        print(f"| {rule.name} | {len(refused) + len(accepted_)} | {len(refused)} | {sum(p.supported for p in refused)} | "
              f"{len(accepted_)} | {sum(not p.supported for p in accepted_)} |")


def figures(outcomes: list[tuple[bool, bool]]) -> dict[str, float]:
    """Precision and recall of acceptance against ``supported`` labels, from (accepted, supported)."""
    tp = sum(1 for a, s in outcomes if a and s)
    accepted_n = sum(1 for a, _ in outcomes if a)
    supported_n = sum(1 for _, s in outcomes if s)
    return {"precision": tp / accepted_n if accepted_n else 0.0, "recall": tp / supported_n if supported_n else 0.0,
            "accepted": accepted_n, "tp": tp}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["held-out", "tune", "all"], default="held-out")
    parser.add_argument("--source", help="only the pairs of this source (e.g. read:answers)")
    parser.add_argument("--limit", type=int, help="the first N pairs of the part in hash order (a fixed random subset)")
    parser.add_argument("--home", type=Path, default=Path("/tmp/support-bench"), help="data directory (its LLM cache)")
    parser.add_argument("--baseline", default="f4b0ade", help="commit whose verifier is 'today'")
    parser.add_argument("--no-ablations", action="store_true")
    parser.add_argument("--out", type=Path, help="per-pair outcomes as JSONL")
    parser.add_argument("--backend", default="embedded", help="llm.backend ('none': word rules only, a dry run)")
    parser.add_argument("--verifier", default=None, help="generate.verifier of 'new' (e.g. trained; default: the default)")
    parser.add_argument("--rules", action="store_true", help="only each rule alone on the pairs, no model (seconds)")
    parser.add_argument("--report", type=Path, help="only print the table of a --out file (of a finished or stopped run)")
    args = parser.parse_args()
    if args.report:
        report(from_file(args.report), str(args.report))
        return

    pairs = load_support_set()
    if args.part != "all":
        pairs = [p for p in pairs if held_out(p) == (args.part == "held-out")]
    pairs = [p for p in pairs if not args.source or p.source == args.source]
    pairs = pairs[: args.limit] if args.limit else pairs
    if args.rules:
        from navicite.support.rules import Fragment, Names, OverlapAccept, OverlapFloor, Subject, Wording

        print(f"pairs: {len(pairs)} ({args.part}); labels {dict(Counter(p.label for p in pairs))}")
        rule_table(pairs, [Fragment(), Names(), Subject(), Wording(3), OverlapFloor(), OverlapAccept(span=False),
                           OverlapAccept()])
        return
    settings = Settings(home=args.home, llm={"backend": args.backend},
                        generate={"verifier": args.verifier} if args.verifier else {})
    llm = llm_backends.create(settings) if args.backend != "none" else None
    new = create_judge(llm, settings)
    configs: dict[str, Any] = {"today": old_verifier(args.baseline, llm), "new": NewVerifier(new)}
    rule_names = [INSTRUCTIONS, *(r.name for r in new.rules)]
    if not args.no_ablations:
        for name in rule_names:
            configs[f"new - {name}"] = NewVerifier(new.without(name))
        configs["new - joint"] = NewVerifier(new, joint=False)
        configs["new - wording - overlap-accept"] = NewVerifier(new.without("wording").without("overlap-accept"))
        configs["model only"] = NewVerifier(Cascade([], new.model, screen_instructions=False))
    outcomes: dict[str, list[tuple[bool, bool]]] = {name: [] for name in configs}
    fires: Counter[str] = Counter()
    started = time.time()
    out = args.out.open("w", encoding="utf-8") if args.out else None
    for k, pair in enumerate(pairs, start=1):
        row: dict[str, Any] = {"id": pair.id, "label": pair.label, "source": pair.source}
        for name, verifier in configs.items():
            ok, scorers = accepted(verifier, pair)
            outcomes[name].append((ok, pair.supported))
            row[name] = ok
            if name == "new":
                row["scorers"] = scorers
                fires.update({s for s in scorers if s in rule_names})
        if out:
            out.write(json.dumps(row) + "\n")
            out.flush()
        print(f"[{k}/{len(pairs)} {time.time() - started:.0f}s] {pair.label:13} today={row['today']!s:5} "
              f"new={row['new']!s:5} {pair.claim[:70]}", file=sys.stderr, flush=True)

    if out:
        out.close()
    print(f"model {settings.llm.model}; {time.time() - started:.0f} s; rules of the new cascade: {', '.join(rule_names)}")
    report(rows_of(outcomes, pairs, fires), f"{args.part}{f', first {args.limit} by hash' if args.limit else ''}")


def rows_of(outcomes: dict[str, list[tuple[bool, bool]]], pairs: list[SupportPair], fires: Counter[str]) -> dict[str, Any]:
    """What :func:`report` reads: outcomes per configuration, the pairs' labels and sources, rule fires."""
    return {"outcomes": outcomes, "labels": [p.label for p in pairs], "sources": [p.source for p in pairs], "fires": fires}


def from_file(path: Path) -> dict[str, Any]:
    """The same from a ``--out`` file (a run stopped early is reported on the pairs it finished)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    names = [k for k in rows[0] if k not in ("id", "label", "source", "scorers")]
    fires: Counter[str] = Counter()
    for r in rows:
        fires.update(set(r["scorers"]))
    return {"outcomes": {n: [(r[n], r["label"] == "supported") for r in rows] for n in names},
            "labels": [r["label"] for r in rows], "sources": [r["source"] for r in rows], "fires": fires}


def report(data: dict[str, Any], part: str) -> None:
    """The table: per configuration accepted pairs, precision and recall; per rule its fires in ``new``."""
    outcomes, fires = data["outcomes"], data["fires"]
    print(f"pairs: {len(data['labels'])} ({part}); labels {dict(Counter(data['labels']))}; sources {dict(Counter(data['sources']))}")
    print("\n| verifier | rule fires (new) | accepted | precision | recall |\n|---|---|---|---|---|")
    for name, rows in outcomes.items():
        f = figures(rows)
        rule = name.removeprefix("new - ") if name.startswith("new - ") else ""
        print(f"| {name} | {fires.get(rule, '') if rule else ''} | {f['accepted']} | {f['precision']:.3f} | {f['recall']:.3f} |")
    print("\nper source (today / new):")
    for source in sorted(set(data["sources"])):
        idx = [i for i, s in enumerate(data["sources"]) if s == source]
        t = figures([outcomes["today"][i] for i in idx])
        n = figures([outcomes["new"][i] for i in idx])
        print(f"  {source}: n={len(idx)} today P={t['precision']:.3f} R={t['recall']:.3f} | new P={n['precision']:.3f} R={n['recall']:.3f}")


if __name__ == "__main__":
    main()
