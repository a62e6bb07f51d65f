"""Build the mapped parts of the labelled support set (src/navicite/data/support/).

Two parts come from public human labels and are rebuilt by this script, deterministically:

- ``expertqa.jsonl``: ExpertQA claims with their cited evidence (each block at most 1,500
  characters, so a pair reads like one of navicite's sources); ``Complete`` -> supported,
  ``Partial`` / ``Incomplete`` -> partly (reason: not stated). A fixed random sample.
- ``scifact.jsonl``: SciFact train claims. Per claim one pair: its evidence sentences
  (``SUPPORT`` -> supported; ``CONTRADICT`` -> not_supported, reason contradicted), or the
  abstract sentence outside the evidence that shares most of the claim's words
  (not_supported, reason not stated: it talks about the same things without stating the claim).

The third part, ``read.jsonl``, is written by hand (a person read each pair) and is not touched.

    python bench/support_set_build.py --data ../shared/data
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "navicite" / "data" / "support"
_WORD = re.compile(r"[a-z0-9]+")
_COMMON = frozenset("the a an of in on and or to for with by is are was were be that this as at from".split())


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _COMMON}


def _evidence_text(raw: str) -> str:
    head, sep, rest = raw.partition("\n\n")
    return rest.strip() if sep and head.lstrip().startswith("[") and len(head.split()) <= 3 else raw.strip()


def expertqa(path: Path, supported: int, partly: int, seed: int = 39) -> list[dict]:
    """A fixed sample of ExpertQA claims with short evidence and a Complete / Partial / Incomplete label."""
    pools: dict[str, list[dict]] = {"supported": [], "partly": []}
    for number, line in enumerate(path.open(encoding="utf-8"), start=1):
        rec = json.loads(line)
        for system, answer in rec["answers"].items():
            for j, claim in enumerate(answer.get("claims") or []):
                label = {"Complete": "supported", "Partial": "partly", "Incomplete": "partly"}.get(claim.get("support"))
                evidence = [_evidence_text(e) for e in claim.get("evidence") or [] if isinstance(e, str)]
                text = re.sub(r"\s*\[\d+\]", "", str(claim.get("claim_string") or "")).strip()
                if label is None or not evidence or not text or any(len(e) > 1500 or not e for e in evidence):
                    continue
                pools[label].append({
                    "id": f"expertqa/{number}/{system}/{j}",
                    "claim": text,
                    "passages": [{"title": "", "text": e} for e in evidence],
                    "label": label,
                    "reason": "" if label == "supported" else "not stated",
                    "source": "expertqa",
                    "note": str(claim.get("reason_missing_support") or "").strip()[:200],
                })
    rng = random.Random(seed)
    return rng.sample(pools["supported"], supported) + rng.sample(pools["partly"], partly)


def scifact(path: Path, supported: int, contradicted: int, not_stated: int, seed: int = 39) -> list[dict]:
    """Pairs from SciFact claims: evidence that supports, evidence that contradicts, and a word-sharing other sentence."""
    records = [json.loads(line) for line in path.open(encoding="utf-8")]
    rng = random.Random(seed)
    rng.shuffle(records)
    out: list[dict] = []
    wanted = {"supported": supported, "contradicted": contradicted, "not stated": not_stated}
    for rec in records:
        sentences = [" ".join(s.split()) for s in rec["abstract_sentences"]]
        evidence = sorted(set(rec["evidence_sentences"]))
        kind = "supported" if rec["label"] == "SUPPORT" else "contradicted"
        # Alternate: a claim gives its evidence pair, or (when that kind is full) its not-stated pair.
        if wanted[kind] > 0:
            wanted[kind] -= 1
            out.append({
                "id": f"scifact/{rec['id']}/evidence",
                "claim": rec["claim"].strip(),
                "passages": [{"title": rec["title"], "text": " ".join(sentences[i] for i in evidence)}],
                "label": "supported" if kind == "supported" else "not_supported",
                "reason": "" if kind == "supported" else "contradicted",
                "source": "scifact",
                "note": "",
            })
            continue
        if wanted["not stated"] > 0:
            others = [i for i in range(len(sentences)) if i not in evidence]
            claim_words = _words(rec["claim"])
            best = max(others, key=lambda i: len(claim_words & _words(sentences[i])), default=None)
            if best is None or not claim_words & _words(sentences[best]):
                continue
            wanted["not stated"] -= 1
            out.append({
                "id": f"scifact/{rec['id']}/other",
                "claim": rec["claim"].strip(),
                "passages": [{"title": rec["title"], "text": sentences[best]}],
                "label": "not_supported",
                "reason": "not stated",
                "source": "scifact",
                "note": "an abstract sentence outside the evidence, sharing most of the claim's words",
            })
        if not any(wanted.values()):
            break
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    parts = {
        "expertqa.jsonl": expertqa(args.data / "expertqa" / "domain_test.jsonl", supported=70, partly=40),
        "scifact.jsonl": scifact(args.data / "scifact" / "claims_train.jsonl", supported=60, contradicted=40, not_stated=60),
    }
    for name, pairs in parts.items():
        with (OUT / name).open("w", encoding="utf-8") as f:
            for pair in pairs:
                f.write(json.dumps(pair, ensure_ascii=False) + "\n")
        print(f"{name}: {len(pairs)} pairs")


if __name__ == "__main__":
    main()
