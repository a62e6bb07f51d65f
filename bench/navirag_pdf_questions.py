"""Navigation over a PDF's structure tree against the model's tree and flat BM25 passages (issue 22).

Every question of ``--questions`` (``../shared/data/pdf/questions.jsonl``: file, question,
all_of) is asked three ways, each with the same draft and the same context budget
(``generate.context_budget_tokens``):

- ``navi-structure``: mode navi over the question's PDF, its tree in ``--home`` (built from
  the PDF's outline and headings, ``navicite tree build``);
- ``navi-llm``: mode navi over the same PDF, its tree from ``--llm-trees`` (a tree store the
  model organised, e.g. ``navirag_structure_build.py --llm``'s ``trees-llm.sqlite``), read
  from a copy of ``--home`` so the two trees never mix;
- ``flat``: BM25 over the collection's passages, no reranking (``retrieve.method=flat``).

Each record says whether the evidence the draft read holds the answer (every ``all_of`` group
in some source: answer-in-context recall), whether the answer does, whether a cited page does,
and the model's calls and seconds.

    .venv/bin/python bench/navirag_pdf_questions.py --home /work/runs/tree15/home \
        --llm-trees /work/runs/tree15/home/trees-llm.sqlite --out /tmp/pdfnav [--set llm.threads=1]

Records go to ``--out``/records.jsonl; a re-run skips what is there and prints the table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from navicite.api import Collection  # noqa: E402
from navicite.eval.docqa import DocQuestion, answer_text, holds_all_of, load_questions, pages_hold_answer  # noqa: E402
from navicite.navigate.store import STORE_FILE_NAME  # noqa: E402

METHODS = ("navi-structure", "navi-llm", "flat")


def llm_home(home: Path, llm_trees: Path, scratch: Path) -> Path:
    """A copy of ``home`` whose tree store is ``llm_trees``."""
    copy = scratch / "llm-home"
    if not copy.exists():
        shutil.copytree(home, copy, ignore=shutil.ignore_patterns(STORE_FILE_NAME, "*.sqlite-wal", "*.sqlite-shm"))
        shutil.copy(llm_trees, copy / STORE_FILE_NAME)
    return copy


def ask(collection: Collection, method: str, question: DocQuestion, doc_id: str) -> dict[str, Any]:
    """One question asked one way, scored."""
    read: list[str] = []
    selector = collection.engine.citeg.selector
    plain = selector.run

    def recording(*args, **kwargs):  # the evidence the draft reads, as cut to the budget (sources, question)
        entries = plain(*args, **kwargs)
        read.extend(e.text for e in entries)
        return entries

    selector.run = recording
    started = time.perf_counter()
    try:
        if method == "flat":
            answer = collection.ask(question.question)
        else:
            answer = collection.ask(question.question, mode="navi", doc_ids=[doc_id])
        error = ""
    except Exception as exc:  # noqa: BLE001 - a failed question is a miss, and the run goes on
        answer, error = None, f"{type(exc).__name__}: {exc}"
    finally:
        selector.run = plain
    seconds = time.perf_counter() - started
    record: dict[str, Any] = {"method": method, "line": question.line, "file": question.file,
                              "question": question.question, "reference": question.answer,
                              "evidence_holds": holds_all_of(read, question.all_of), "evidence_words": sum(len(t.split()) for t in read),
                              "seconds": round(seconds, 1), "error": error}
    if answer is None:
        return {**record, "answer": "", "correct": False, "page_correct": False, "calls": 0}
    return {**record, "answer": answer.answer, "correct": holds_all_of(answer_text(answer), question.all_of),
            "page_correct": pages_hold_answer(answer.citations, question.all_of, collection.get),
            "calls": int(answer.llm.get("calls", 0)), "prompt_tokens": int(answer.llm.get("prompt_tokens", 0))}


def table(records: list[dict[str, Any]]) -> str:
    """One row per method: counts over its questions."""
    lines = ["| method | questions | evidence holds the answer | answer correct | cited page holds it | LLM calls/q | s/q |",
             "|---|---|---|---|---|---|---|"]
    for method in METHODS:
        mine = [r for r in records if r["method"] == method]
        if not mine:
            continue
        n = len(mine)
        lines.append(f"| {method} | {n} | {sum(r['evidence_holds'] for r in mine)}/{n} | {sum(r['correct'] for r in mine)}/{n} | "
                     f"{sum(bool(r['page_correct']) for r in mine)}/{n} | {sum(r['calls'] for r in mine) / n:.1f} | "
                     f"{sum(r['seconds'] for r in mine) / n:.0f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="collection with the PDFs and their structure trees")
    parser.add_argument("--llm-trees", type=Path, required=True, help="tree store of the model's trees of the same PDFs")
    parser.add_argument("--questions", type=Path, default=Path("../shared/data/pdf/questions.jsonl"))
    parser.add_argument("--out", type=Path, default=Path("/tmp/pdfnav"))
    parser.add_argument("--method", action="append", choices=METHODS, help="default: all three")
    parser.add_argument("--set", action="append", default=[], dest="overrides")
    args = parser.parse_args()

    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / "records.jsonl"
    records = [json.loads(line) for line in out.read_text().splitlines() if line.strip()] if out.exists() else []
    done = {(r["method"], r["line"]) for r in records}
    questions = load_questions(args.questions)
    print(f"{len(questions)} questions; {platform.machine()}, {os.cpu_count()} CPUs", flush=True)
    homes = {"navi-structure": args.home, "navi-llm": llm_home(args.home, args.llm_trees, args.out), "flat": args.home}
    extra = {"flat": ["retrieve.method=flat", "rerank.backend=none"]}
    for method in args.method or METHODS:
        with Collection(homes[method], [*args.overrides, *extra.get(method, [])]) as collection:
            by_file = {Path(d.metadata.get("source", "")).name: d.id for d in collection.documents()}
            for question in questions:
                if (method, question.line) in done:
                    continue
                record = ask(collection, method, question, by_file.get(question.file or "", ""))
                records.append(record)
                with out.open("a") as f:
                    f.write(json.dumps(record) + "\n")
                print(f"[{method} line {question.line}] evidence {record['evidence_holds']} correct {record['correct']} "
                      f"page {record['page_correct']} {record['calls']} calls {record['seconds']:.0f} s {record['error']}", flush=True)
    print(table(records))


if __name__ == "__main__":
    main()
