"""Structure-first knowledge trees of real PDFs with the configured (real) model (issue 22).

The PDFs go into a fresh collection in ``--home`` through the normal ingest; each document's
tree is then built as ``navicite tree build`` builds it (structure first: its outline or
headings shape the tree and the model only summarises inner nodes; the model organises
documents without usable structure), validated and stored. Printed per document: the path
taken, nodes, model calls and tokens, seconds, calls per 1,000 document tokens.

``--llm NAME`` (repeatable, a PDF's file name) also builds that document's tree the way the
model organises it (``navigate.structure=llm``) into a second store of the same home, in the
same run, for the ratio; ``--llm-minutes`` stops that build after so many minutes and reports
how far it got (model calls per segment placed), since on a shared 2-core machine it can take
hours. ``--leval FILE --doc ID`` builds an L-Eval file's documents as ``eval evidence`` reads
them (Qasper papers as plain text with their heading lines), instead of ingested PDFs; add
``--set navigate.min_document_words=0`` for papers under the default 2,000 words, as the
evaluation does. ``--incremental`` then changes the first word of the section in the middle of each
structured document, re-ingests it and rebuilds: the summaries whose prompt shows that
section's opening are asked again, no others.

    .venv/bin/python bench/navirag_structure_build.py ../shared/data/pdf/*.pdf --home /tmp/trees-bench \\
        --set llm.threads=1 [--llm concordance.pdf --llm-minutes 30] [--out /tmp/trees-bench/report.json]
    .venv/bin/python bench/navirag_structure_build.py --leval ../shared/data/leval/scientific_qa.jsonl \
        --doc scientific_qa-1 --doc scientific_qa-2 --home /tmp/trees-papers --set navigate.min_document_words=0

State the machine with the figures; wall time depends on the load from other jobs (the
1-minute load average is printed before and after each build), calls and tokens do not.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from navicite import llm as llm_layer
from navicite.api import Collection
from navicite.config import load_settings
from navicite.documents import Document
from navicite.eval.datasets import load_dataset
from navicite.text.passages import place_of
from navicite.navigate import BuildProgress, TreeBuilder, TreeStore
from navicite.navigate.validate import problems


class Stopped(Exception):
    """The time limit of a build ran out."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdfs", nargs="*", type=Path)
    parser.add_argument("--leval", type=Path, default=None, help="Build these L-Eval documents instead of ingested PDFs.")
    parser.add_argument("--doc", action="append", default=[], help="With --leval: a document id (repeatable; default all).")
    parser.add_argument("--home", type=Path, required=True, help="A fresh folder (an answer cache there would replay calls).")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="section.key=value")
    parser.add_argument("--llm", action="append", default=[], help="Also let the model organise this document (PDF file name, or L-Eval id).")
    parser.add_argument("--llm-minutes", type=float, default=None, help="Stop each --llm build after this many minutes.")
    parser.add_argument("--incremental", action="store_true",
                        help="After each structure build, change the first word of the middle section, re-ingest and rebuild.")
    parser.add_argument("--out", type=Path, default=None, help="Write the report as JSON here.")
    args = parser.parse_args()
    if bool(args.pdfs) == bool(args.leval):
        parser.error("give PDFs or --leval FILE, one of the two")
    if args.leval and args.incremental:
        parser.error("--incremental re-ingests a PDF; it does not apply to --leval documents")

    settings = load_settings(args.home, args.overrides)
    documents = leval_documents(args.leval, args.doc) if args.leval else ingested(args.home, args.overrides, args.pdfs)
    llm = llm_layer.create(settings)
    print(f"machine: {platform.machine()} {platform.system()}, {os.cpu_count()} CPUs, model {llm.name}, "
          f"threads {settings.llm.threads}, load {os.getloadavg()[0]:.1f}")

    report: dict[str, Any] = {"model": llm.name, "threads": settings.llm.threads, "documents": {}}
    for name, document in sorted(documents.items(), key=lambda kv: kv[1].word_count):
        pages = document.metadata.get("pages")
        print(f"\n{name}: {f'{pages} pages, ' if pages else ''}{document.word_count:,} words, {len(document.metadata.get('sections') or [])} sections")
        entry = {"pages": pages, "words": document.word_count,
                 "structure": build(TreeBuilder(settings, llm, progress=_printer(time.perf_counter())), document)}
        if entry["structure"].get("status") == "short":
            report["documents"][name] = entry
            continue
        if args.incremental and entry["structure"].get("source") != "llm":
            entry["incremental"] = rebuild_after_edit(args.home, args.overrides, settings, llm, document)
        if name in args.llm:
            llm_settings = load_settings(args.home, [*args.overrides, "navigate.structure=llm"])
            store = TreeStore(args.home / "trees-llm.sqlite")
            limit = args.llm_minutes * 60 if args.llm_minutes else None
            entry["llm"] = build(TreeBuilder(llm_settings, llm, store, progress=_printer(time.perf_counter(), limit)), document)
        report["documents"][name] = entry
    print("\n" + "\n".join(_table(report)))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")


def ingested(home: Path, overrides: list[str], pdfs: list[Path]) -> dict[str, Document]:
    """The PDFs through the normal ingest, by file name."""
    started = time.perf_counter()
    with Collection(home, overrides) as collection:
        collection.add([str(p) for p in pdfs])
        documents = {Path(d.metadata.get("source", d.id)).name: d for d in collection.documents()}
    print(f"ingested {len(documents)} PDFs in {time.perf_counter() - started:.1f} s")
    return documents


def leval_documents(path: Path, ids: list[str]) -> dict[str, Document]:
    """An L-Eval file's documents as the evaluation reads them, by id (all when ``ids`` is empty)."""
    corpus = {d.id: d for d in load_dataset(f"leval:{path}").corpus}
    missing = [i for i in ids if i not in corpus]
    if missing:
        raise SystemExit(f"not in {path}: {', '.join(missing)} (ids look like {next(iter(corpus))})")
    return {i: corpus[i] for i in ids or corpus}


def build(builder: TreeBuilder, document: Document, force: bool = True) -> dict[str, Any]:
    """One document's build with its cost, the validator's verdict and the load around it."""
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    progress: dict[str, Any] = {}
    builder.progress = _recording(builder.progress, progress)
    try:
        outcome = builder.build(document, force=force)
    except Stopped:
        seconds = time.perf_counter() - started
        print(f"  stopped after {seconds / 60:.1f} min: {progress}")
        return {"status": "stopped", "seconds": round(seconds, 1), "progress": progress,
                "load": [round(load_before, 1), round(os.getloadavg()[0], 1)]}
    tree = builder.store.get(document.id)
    data = outcome.to_dict()
    data["problems"] = problems(tree) if tree is not None else ["no tree stored"]
    data["load"] = [round(load_before, 1), round(os.getloadavg()[0], 1)]
    cost = outcome.cost
    print(f"  {outcome.status} via {outcome.source}{' (' + outcome.fallback + ')' if outcome.fallback else ''}: "
          f"{outcome.nodes} nodes, {cost.calls if cost else 0} calls"
          f"{f' (+{cost.cache_hits} from the answer cache)' if cost and cost.cache_hits else ''}, {cost.seconds if cost else 0:.1f} s, "
          f"validator {'valid' if not data['problems'] else data['problems']}")
    return data


def rebuild_after_edit(home: Path, overrides: list[str], settings: Any, llm: Any, document: Document) -> dict[str, Any]:
    """Change the first word of the section in the middle of ``document`` (a word its opening
    sentences show), re-ingest it (the collection keeps its node summaries) and rebuild its tree:
    the calls this takes against the full build's."""
    words = list(re.finditer(r"\S+", document.text))
    middle = len(words) // 2
    heading = max((s for s in document.metadata.get("sections") or () if s["start"] <= middle), key=lambda s: s["start"], default=None)
    at = heading["start"] + len(heading["title"].split()) if heading else middle
    word = words[at]
    edited = replace(document, text=document.text[: word.start()] + "EDITED" + document.text[word.end():])
    with Collection(home, overrides) as collection:
        collection.add([edited])
    print(f"  edited word {at} ({word.group()!r} -> 'EDITED'), the first of section {place_of(edited, at, at + 1)[1]}")
    return build(TreeBuilder(settings, llm, progress=_printer(time.perf_counter())), edited, force=False)


def _printer(started: float, limit: float | None = None):  # type: ignore[no-untyped-def]
    def show(event: BuildProgress) -> None:
        elapsed = time.perf_counter() - started
        print(f"  [{elapsed:7.1f} s] {event.phase} {event.done}/{event.total}: {event.calls} calls, {event.tokens:,} tokens", flush=True)
        if limit is not None and elapsed > limit:
            raise Stopped
    return show


def _recording(show, into: dict[str, Any]):  # type: ignore[no-untyped-def]
    def record(event: BuildProgress) -> None:
        into.update(phase=event.phase, done=event.done, total=event.total, calls=event.calls, tokens=event.tokens)
        if show is not None:
            show(event)
    return record


def _table(report: dict[str, Any]) -> list[str]:
    lines = ["| document | pages | words | path | nodes | calls | calls / 1k tokens | calls / unit | seconds | valid |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, entry in report["documents"].items():
        for key in ("structure", "incremental", "llm"):
            data = entry.get(key)
            if data is None or data.get("status") == "short":
                continue
            if data.get("status") == "stopped":
                p = data["progress"]
                lines.append(f"| {name} | {entry['pages'] or ''} | {entry['words']:,} | llm (stopped) | | {p.get('calls')} | | "
                             f"{p.get('phase')} {p.get('done')}/{p.get('total')} | {data['seconds']:.0f} | |")
                continue
            c = data["cost"] or {}
            unit = "passage" if data["source"] != "llm" else "segment"
            path = f"{data['source']}, one word edited" if key == "incremental" else data["source"]
            cached = f" (+{c['cache_hits']} cached)" if c.get("cache_hits") else ""
            lines.append(f"| {name} | {entry['pages'] or ''} | {entry['words']:,} | {path} | {data['nodes']} | {c.get('calls')}{cached} | "
                         f"{c.get('calls_per_1k_tokens')} | {c.get('calls_per_segment')} per {unit} | {c.get('seconds')} | "
                         f"{'yes' if not data['problems'] else 'no'} |")
    return lines


if __name__ == "__main__":
    main()
