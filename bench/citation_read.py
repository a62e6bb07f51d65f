"""A reading sheet for citation trust: every sentence shown as cited, beside the passages it cites.

A person reads each sentence against its passages and marks it supported or not; the share of
supported sentences is the figure. Inputs are ``ARM=PATH`` (or a bare ``PATH``, its own arm):
``bench/answer_bench.py`` records (``cited``), ``navicite eval qa``'s ``per_question.jsonl``
(``sentences`` + ``citations``), or a folder of answer JSON files (``bench/pile_questions.py``'s
``answers/``, or ``navicite ask --json`` output saved one file per answer).

    .venv/bin/python bench/citation_read.py before=/tmp/pile-before/answers after=/tmp/pile-after/answers \\
        --blind /tmp/read/key.json > /tmp/read/sheet.md

``--blind KEY`` shuffles the sentences of every arm together (fixed ``--seed``) and numbers them,
so the reader cannot tell which arm a sentence came from; the key (number -> arm, question) goes
to ``KEY``. The reader writes one line per sheet number: ``N y`` (supported: the cited passages
state all of it, or make it plainly follow), ``N p`` (partly) or ``N n`` (not supported), then
optionally a reason. ``--verdicts FILE --key KEY`` prints, per arm, the share marked ``y``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path
from typing import Any

from navicite.documents import place_label


def cited(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The record's cited sentences as ``{"sentence", "passages": [{"marker", "title", "place", "text"}]}``."""
    if isinstance(record.get("cited"), list):
        return record["cited"]
    by_marker = {c["marker"]: c for c in record.get("citations", [])}
    out = []
    for s in record.get("sentences", []):
        if s.get("kind") != "cited":
            continue
        passages = [
            {"marker": m, "title": by_marker[m]["title"], "text": by_marker[m]["passage"],
             "place": place_label(by_marker[m].get("pages", []), by_marker[m].get("section", ""))}
            for m in s.get("markers", []) if m in by_marker
        ]
        out.append({"sentence": s["text"], "passages": passages})
    return out


def records(path: Path, config: str | None = None, method: str | None = None) -> list[dict[str, Any]]:
    """The answer records at ``path``: a JSONL file, or a folder of one-answer JSON files (sorted by name)."""
    if path.is_dir():
        return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(path.glob("*.json"))]
    out = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in out if (not config or r.get("config") == config) and (not method or r.get("method") == method)]


def rows(inputs: list[str], config: str | None, method: str | None) -> list[tuple[str, str, dict[str, Any]]]:
    """``(arm, question, cited sentence)`` for every cited sentence of every input, in input order."""
    out = []
    for item in inputs:
        arm, _, path = item.rpartition("=")
        for record in records(Path(path), config, method):
            out.extend((arm or path, record["question"], c) for c in cited(record))
    return out


_VERDICT = re.compile(r"^\s*(\d+)[\s.:)-]+([ypn])\b", re.IGNORECASE)


def shares(verdict_lines: list[str], key: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Per arm, how many sentences were marked ``y``, ``p`` and ``n``."""
    marks = {}
    for line in verdict_lines:
        m = _VERDICT.match(line)
        if m:
            marks[int(m.group(1))] = m.group(2).lower()
    missing = [n for n in range(1, len(key["rows"]) + 1) if n not in marks]
    if missing:
        raise SystemExit(f"no verdict for sheet numbers {missing[:10]}{' ...' if len(missing) > 10 else ''}: one line 'N y|p|n' each")
    out: dict[str, dict[str, int]] = {}
    for n, row in enumerate(key["rows"], 1):
        counts = out.setdefault(row["arm"], {"y": 0, "p": 0, "n": 0})
        counts[marks[n]] += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="*", help="ARM=PATH or PATH: answer records (JSONL) or a folder of answer JSON files")
    parser.add_argument("--config", help="answer_bench records: only this configuration")
    parser.add_argument("--method", help="eval qa records: only this method")
    parser.add_argument("--blind", type=Path, help="shuffle the arms together; write the key here")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--verdicts", type=Path, help="the reader's lines 'N y|p|n': print the share per arm (needs --key)")
    parser.add_argument("--key", type=Path, help="the key written by --blind")
    args = parser.parse_args()
    if args.verdicts:
        if not args.key:
            raise SystemExit("--verdicts needs --key, the file --blind wrote")
        key = json.loads(args.key.read_text(encoding="utf-8"))
        for arm, c in shares(args.verdicts.read_text(encoding="utf-8").splitlines(), key).items():
            total = sum(c.values())
            print(f"{arm}: {c['y']} of {total} cited sentences supported ({c['y'] / total:.0%}); partly {c['p']}, not {c['n']}")
        return
    found = rows(args.inputs, args.config, args.method)
    if args.blind:
        random.Random(args.seed).shuffle(found)
        args.blind.write_text(json.dumps({"rows": [{"arm": a, "question": q, "sentence": c["sentence"]} for a, q, c in found]},
                                         ensure_ascii=False, indent=1), encoding="utf-8")
    for n, (_, question, c) in enumerate(found, 1):
        print(f"### {n}. {c['sentence']}\n\nQuestion: {question}\n")
        for p in c["passages"]:
            text = " ".join(p["text"].split())
            print(f"> [{p['marker']}] **{p['title']}** {p['place']}: {text}\n")


if __name__ == "__main__":
    main()
