"""Labelling sheets of (claim, passage) pairs from real navicite answers, for the labelled support set.

``sheet``: every (sentence, source) pair the verifier checked in the answers of one or more
``pile_questions.py --out`` folders (``answers/*.json``: cited sentences, withheld ones and the
refused answer sentence alike), with the passage the check read (the draft's sources). The
verifier's own verdict is left out of the sheet, so the reader labels blind; pairs are shuffled
and numbered. ``merge``: a reader's labels (one JSON object per line: ``n``, ``label``
``supported`` / ``partly`` / ``not_supported``, ``reason``) joined to the sheet become pairs of the
labelled set (``src/navicite/data/support/read_answers_2.jsonl`` format).

    .venv/bin/python bench/support_pairs_from_answers.py sheet --answers /tmp/ho/before --answers /tmp/pile/before --out /tmp/label/sheet.jsonl
    .venv/bin/python bench/support_pairs_from_answers.py merge --sheet /tmp/label/sheet.jsonl --labels /tmp/label/labels.jsonl --out src/navicite/data/support/read_answers_2.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path


def pairs_of(folder: Path) -> list[dict]:
    """The checked (sentence, source) pairs of the answers in ``folder/answers``."""
    out = []
    for path in sorted((folder / "answers").glob("*.json")):
        answer = json.loads(path.read_text(encoding="utf-8"))
        sources = {s["number"]: s for s in answer.get("draft_sources") or []}
        for kind, sentences in (("shown", answer.get("sentences") or []), ("withheld", answer.get("withheld") or [])):
            for k, sentence in enumerate(sentences):
                seen = set()
                for check in sentence.get("checks") or []:
                    source = sources.get(check["source"])
                    if source is None or check["source"] in seen or check.get("scorer") == "quote":
                        continue
                    seen.add(check["source"])
                    out.append({"id": f"read/answer2/{folder.name}/{path.stem}/{kind}{k}/{check['source']}",
                                "question": answer["question"], "claim": sentence["text"],
                                "passages": [{"title": source.get("title") or "", "text": source["text"]}],
                                "place": f"{source.get('pages') or ''} {source.get('section') or ''}".strip()})
    return out


def sheet(args: argparse.Namespace) -> None:
    rows = [p for folder in args.answers for p in pairs_of(folder)]
    unique = list({(r["claim"], r["passages"][0]["text"]): r for r in rows}.values())
    random.Random(49).shuffle(unique)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as out:
        for n, row in enumerate(unique, start=1):
            out.write(json.dumps({"n": n, **row}, ensure_ascii=False) + "\n")
    print(f"{len(unique)} pairs ({len(rows)} checks) from {len(args.answers)} answer folders -> {args.out}")


def merge(args: argparse.Namespace) -> None:
    rows = {r["n"]: r for r in map(json.loads, args.sheet.read_text(encoding="utf-8").splitlines())}
    labels = [json.loads(line) for line in args.labels.read_text(encoding="utf-8").splitlines() if line.strip()]
    written = 0
    with args.out.open("w", encoding="utf-8") as out:
        for label in labels:
            row = rows[label["n"]]
            if label["label"] not in ("supported", "partly", "not_supported"):
                raise SystemExit(f"pair {label['n']}: label {label['label']!r} is none of supported, partly, not_supported")
            out.write(json.dumps({"id": row["id"], "claim": row["claim"], "passages": row["passages"], "label": label["label"],
                                  "reason": label.get("reason", ""), "source": "read:answers",
                                  "note": f"{args.note}; question: {row['question']}"}, ensure_ascii=False) + "\n")
            written += 1
    print(f"{written} labelled pairs -> {args.out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    s = commands.add_parser("sheet")
    s.add_argument("--answers", type=Path, action="append", required=True)
    s.add_argument("--out", type=Path, required=True)
    m = commands.add_parser("merge")
    m.add_argument("--sheet", type=Path, required=True)
    m.add_argument("--labels", type=Path, required=True)
    m.add_argument("--out", type=Path, required=True)
    m.add_argument("--note", default="a real navicite answer's checked pair, labelled by an assistant reading session")
    args = parser.parse_args()
    (sheet if args.command == "sheet" else merge)(args)


if __name__ == "__main__":
    main()
