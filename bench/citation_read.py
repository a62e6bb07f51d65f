"""A reading sheet for citation trust: every sentence shown as cited, beside the passages it cites.

A person reads each sentence against its passages and marks it supported or not; the share of
supported sentences is the figure. The records are ``bench/answer_bench.py``'s (``cited``) or
``navicite eval qa``'s ``per_question.jsonl`` (``sentences`` + ``citations``).

    .venv/bin/python bench/citation_read.py /tmp/ab15/trust.jsonl --config new > /tmp/trust.md

With ``--verdicts FILE`` (one line per sentence, in the sheet's order: ``y`` supported, ``n``
not) it prints the share instead of the sheet.
"""

from __future__ import annotations

import argparse
import json
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", type=Path)
    parser.add_argument("--config", help="answer_bench records: only this configuration")
    parser.add_argument("--method", help="eval qa records: only this method")
    parser.add_argument("--verdicts", type=Path, help="one y/n per sheet sentence: print the share")
    args = parser.parse_args()
    rows = []
    for line in args.records.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if (args.config and record.get("config") != args.config) or (args.method and record.get("method") != args.method):
            continue
        rows.extend((record["question"], c) for c in cited(record))
    if args.verdicts:
        marks = [m.strip().lower()[:1] for m in args.verdicts.read_text().splitlines() if m.strip()]
        if len(marks) != len(rows):
            raise SystemExit(f"{len(marks)} verdicts for {len(rows)} cited sentences: one line per sentence, y or n")
        supported = marks.count("y")
        print(f"{supported} of {len(rows)} cited sentences supported ({supported / len(rows):.0%})")
        return
    for n, (question, c) in enumerate(rows, 1):
        print(f"### {n}. {c['sentence']}\n\nQuestion: {question}\n")
        for p in c["passages"]:
            text = " ".join(p["text"].split())
            print(f"> [{p['marker']}] **{p['title']}** {p['place']}: {text}\n")


if __name__ == "__main__":
    main()
