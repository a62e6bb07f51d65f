"""Korean questions over English documents against the same questions in English (issue 21).

The collection is every paragraph of the HotpotQA distractor sample (one English index of
about 1,000 paragraphs, no per-question restriction); the questions are the 20 of
``tests/fixtures/hotpotqa_ko_20.jsonl``, asked once in English and once in Korean, gold =
their supporting paragraphs. Each method runs on both lists in one process; ``mpr-rerank``
analyses each question with the LLM, and for the Korean ones portfolio G translates the
keywords into English (printed per question with ``--show-g``).

    .venv/bin/python bench/crosslingual_bench.py --home /tmp/korean-xl-home --out /tmp/korean-xl-out \
        -m bm25 -m mpr-rerank --set llm.threads=1 [--limit 5]

``--out`` keeps per-question records (a re-run resumes); LLM replies are cached under ``--home``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from navicite.config import load_settings  # noqa: E402
from navicite.eval.datasets import EvalDataset, load_dataset  # noqa: E402
from navicite.eval.report import markdown_table  # noqa: E402
from navicite.eval.resources import EvalResources  # noqa: E402
from navicite.eval.runner import RetrievalRunner  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HOTPOT = ROOT.parent / "shared" / "data" / "hotpotqa" / "distractor-dev-100.json"
KOREAN = ROOT / "tests" / "fixtures" / "hotpotqa_ko_20.jsonl"


def datasets(limit: int | None) -> tuple[EvalDataset, EvalDataset]:
    """The English and the Korean questions over one shared corpus (HotpotQA's pooled paragraphs)."""
    hotpot = load_dataset(f"hotpotqa:{HOTPOT}")
    rows = [json.loads(line) for line in KOREAN.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = rows[:limit] if limit else rows
    by_id = {q.id: q for q in hotpot.questions}
    english = [replace(by_id[r["id"]], text=r["question_en"], candidates=()) for r in rows]
    korean = [replace(q, text=r["question_ko"]) for q, r in zip(english, rows)]
    return tuple(  # type: ignore[return-value]
        EvalDataset(f"hotpotqa-all-paragraphs:{lang}", hotpot.kind, qs, hotpot.corpus, hotpot.corpus_files, list(hotpot.notes))
        for lang, qs in (("en", english), ("ko", korean))
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", default="/tmp/korean-xl-home")
    parser.add_argument("--out", help="Folder for per-question records, one subfolder per language (a re-run resumes).")
    parser.add_argument("-m", "--method", action="append", default=[])
    parser.add_argument("--limit", type=int, help="Only the first N of the 20 questions.")
    parser.add_argument("--set", action="append", default=[], dest="overrides")
    parser.add_argument("--k", default="10,50")
    parser.add_argument("--show-g", action="store_true", help="Print each Korean question's translated keywords (G).")
    args = parser.parse_args()

    settings = load_settings(Path(args.home), args.overrides)
    methods = args.method or ["bm25", "mpr-rerank"]
    ks = [int(k) for k in args.k.split(",")]
    started = time.perf_counter()
    for data in datasets(args.limit):
        resources = EvalResources(data, settings)
        out = Path(args.out) / data.name.rsplit(":", 1)[1] if args.out else None
        report = RetrievalRunner(resources, methods, ks, out_dir=out).run(data.questions)
        print(f"{data.name}: {len(data.questions)} questions, {len(data.corpus)} paragraphs in one index")
        print(markdown_table(report))
        if args.show_g and data.name.endswith(":ko") and any(m.startswith("mpr") for m in methods):
            show_translations(resources, data, methods)
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs (shared), load {os.getloadavg()[0]:.1f}; "
          f"{time.perf_counter() - started:.0f} s; {time.strftime('%Y-%m-%d %H:%M')}")


def show_translations(resources: EvalResources, data: EvalDataset, methods: list[str]) -> None:
    """Each Korean question's G keywords (replayed from the LLM cache after the run)."""
    from navicite.eval.registry import create_method

    method = create_method(next(m for m in methods if m.startswith("mpr")), resources)
    try:
        for question in data.questions:
            result = method.retriever.run(question.text)  # type: ignore[attr-defined]
            tr = result.translation
            g = [q.text for q in result.portfolios.queries if q.portfolio == "G"]
            print(f"- {question.text} -> {', '.join(tr.primary) if tr else result.portfolios.skipped.get('G')} | G: {g[:1]}")
    finally:
        method.close()


if __name__ == "__main__":
    main()
