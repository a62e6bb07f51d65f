"""Time to an answer, old defaults against new, in one process: where the seconds and tokens go.

Questions: the README's question over the bundled sample, HotpotQA distractor questions over
one collection of their paragraphs, and questions over the real PDFs of ../shared/data/pdf.
Each configuration asks every question through the Python API (``navicite.Collection``, the
path ``navicite ask`` takes) with its own LLM cache, so nothing is replayed between them:

- ``old``: ``--preset first-release`` (whole documents cut to the budget, the report draft,
  one thread: the first release's call pattern);
- ``new``: the defaults;
- ``lean``: the defaults with a smaller draft context (``--configs old,new,lean``).

Printed per configuration: median seconds per answer and its ratio to ``old``, time to the
first shown source and to the first draft token, per stage seconds, LLM calls, prompt /
prompt-cached / completion tokens, and quality: HotpotQA EM/F1 of the first sentence, PDF
accuracy (``all_of`` groups), share of factual sentences cited; with ``--citations``, ALCE
citation recall and precision of every configuration's answers, judged by the embedded model.

    .venv/bin/python bench/answer_bench.py --hotpot 10 --pdf 4 --out /tmp/answer-bench [--configs old,new]

The configurations alternate question by question. Records go to ``OUT/records.jsonl`` (or
``--records``), one per answer with its cited sentences and their passages (for
``bench/citation_read.py``); a re-run with the same records file resumes where it stopped.

State the machine with the figures (2 shared CPU cores here, no GPU).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path
from typing import Any

from navicite import Collection, Document
from navicite.config import load_settings
from navicite.eval.citations import CitationCounts, CitationScorer
from navicite.eval.datasets import load_dataset
from navicite.eval.docqa import holds_all_of, load_questions
from navicite.eval.judge import create_judge
from navicite.eval.metrics import best_em_f1
from navicite.ingest import sample_documents
from navicite.llm import create
from navicite.llm.embedded import unload_models

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
#: Configuration name -> (preset, overrides). ``lean`` tries a smaller draft context on the defaults.
CONFIGS: dict[str, tuple[str | None, list[str]]] = {
    "old": ("first-release", []),
    "new": (None, []),
    "lean": (None, ["generate.context_budget_tokens=1500"]),
    # Variants of the verified answer that make no new model call: run them on a copy of ``new``'s
    # folder (``cp -r OUT/new OUT/flag``) and its LLM cache replays every call.
    "flag": (None, ["generate.unsupported_answer=flag"]),
    "nojoint": (None, ["generate.joint_support=false"]),
    # The trained support judge (issue 49): on a copy of ``new``'s folder only its verification calls are new.
    "trained": (None, ["generate.verifier=trained"]),
}
README_QUESTION = "Does folic acid supplementation lower blood homocysteine levels?"


def questions(hotpot: int, pdf: int) -> dict[str, list[dict[str, Any]]]:
    """Per collection: the questions asked over it, with what a correct answer holds."""
    out: dict[str, list[dict[str, Any]]] = {"sample": [{"question": README_QUESTION}], "hotpot": [], "pdf": []}
    if hotpot:
        data = load_dataset(f"hotpotqa:{SHARED / 'hotpotqa' / 'distractor-dev-100.json'}")
        for q in data.questions[:hotpot]:
            out["hotpot"].append({"question": q.text, "answers": list(q.answers), "candidates": list(q.candidates)})
    if pdf:
        for q in load_questions(SHARED / "pdf" / "questions.jsonl")[:pdf]:
            out["pdf"].append({"question": q.question, "all_of": [list(g) for g in q.all_of]})
    return out


def fill(home: Path, name: str, asked: list[dict[str, Any]]) -> Path:
    """The collection a question set is asked over (built once, shared by the configurations)."""
    target = home / f"collection-{name}"
    papers = Collection(target)
    if len(papers) == 0:
        if name == "sample":
            papers.add(sample_documents())
        elif name == "pdf":
            papers.add(sorted((SHARED / "pdf").glob("*.pdf")))
        else:
            data = load_dataset(f"hotpotqa:{SHARED / 'hotpotqa' / 'distractor-dev-100.json'}")
            wanted = {c for q in asked for c in q["candidates"]}
            papers.add([Document(id=d.id, title=d.title, text=d.text or d.abstract) for d in data.corpus if d.id in wanted])
    papers.close()
    return target


def ask_one(papers: Collection, question: str) -> dict[str, Any]:
    """One answer with its timings from the stream: first source, first draft token, total."""
    start = time.perf_counter()
    first_source = first_token = None
    answer = None
    for event in papers.ask_stream(question):
        now = time.perf_counter() - start
        if event.kind == "sources" and first_source is None:
            first_source = now
        elif event.kind == "token" and first_token is None:
            first_token = now
        elif event.kind == "answer":
            answer = event.data["answer"]
    assert answer is not None
    factual = [s for s in answer.sentences if s.kind in ("cited", "unsupported")]
    return {
        "seconds": time.perf_counter() - start, "first_source": first_source, "first_token": first_token,
        "answer": answer.answer, "first_sentence": next((s.text for s in answer.sentences if s.kind != "heading"), ""),
        "stages": {t.name: t.seconds for t in answer.trace},
        "calls": answer.llm.get("calls", 0), "prompt_tokens": answer.llm.get("prompt_tokens", 0),
        "cached_tokens": answer.llm.get("cached_tokens", 0), "completion_tokens": answer.llm.get("completion_tokens", 0),
        "cited_share": (sum(s.kind == "cited" for s in factual) / len(factual)) if factual else None,
        "cited": answer.cited_with_passages(),
    }


def citation_rates(records: list[dict[str, Any]], scorer: CitationScorer) -> dict[str, float]:
    """ALCE citation recall and precision of recorded answers, judged by ``scorer``'s model.

    Each answer's markers are numbered as its cited sentences' passages were; headings are left
    out; a factual sentence without a marker counts against recall, as in ALCE.
    """
    total = CitationCounts()
    for record in records:
        passages: dict[int, dict[str, str]] = {}
        for sentence in record["cited"]:
            for p in sentence["passages"]:
                passages[p["marker"]] = {"title": p["title"], "text": p["text"]}
        sources = [passages.get(n, {"title": "", "text": ""}) for n in range(1, max(passages, default=0) + 1)]
        body = "\n".join(line for line in record["answer"].splitlines() if not line.lstrip().startswith("#"))
        total.add(scorer.score_answer(body, sources))
    rates = total.rates()
    return {k: round(v, 3) if isinstance(v, float) else v for k, v in rates.items()}


def score(record: dict[str, Any], q: dict[str, Any]) -> None:
    if "answers" in q:
        record["em"], record["f1"] = best_em_f1(record["first_sentence"], q["answers"])
    if "all_of" in q:
        record["correct"] = holds_all_of(record["answer"], q["all_of"])


def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    def mean(key: str) -> float | None:
        values = [r[key] for r in records if r.get(key) is not None]
        return round(statistics.fmean(values), 3) if values else None

    stages: dict[str, float] = {}
    for r in records:
        for name, seconds in r["stages"].items():
            stages[name] = stages.get(name, 0.0) + seconds / len(records)
    return {
        "answers": len(records), "median_seconds": round(statistics.median(r["seconds"] for r in records), 1),
        "first_source_s": mean("first_source"), "first_token_s": mean("first_token"),
        "calls": mean("calls"), "prompt_tokens": mean("prompt_tokens"), "cached_tokens": mean("cached_tokens"),
        "completion_tokens": mean("completion_tokens"), "em": mean("em"), "f1": mean("f1"),
        "pdf_accuracy": mean("correct"), "cited_share": mean("cited_share"),
        "stage_seconds": {k: round(v, 1) for k, v in stages.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hotpot", type=int, default=10)
    parser.add_argument("--pdf", type=int, default=4)
    parser.add_argument("--out", type=Path, default=Path("/tmp/answer-bench"))
    parser.add_argument("--configs", default="old,new")
    parser.add_argument("--records", type=Path, help="where records are appended (default: OUT/records.jsonl)")
    parser.add_argument("--citations", action="store_true",
                        help="after the answers, judge their citations with the embedded model (ALCE recall/precision)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    records_path = args.records or args.out / "records.jsonl"
    asked = questions(args.hotpot, args.pdf)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; "
          f"questions: {', '.join(f'{n} {len(q)}' for n, q in asked.items())}")
    configs = args.configs.split(",")
    records: dict[str, list[dict[str, Any]]] = {config: [] for config in configs}
    # A re-run with the same records file resumes: answers already recorded are read, not asked.
    done: dict[tuple[str, str], dict[str, Any]] = {}
    if records_path.exists():
        for line in records_path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            done[(record["config"], record["question"])] = record
    for name, qs in asked.items():
        # Each configuration has its own copy of each collection, hence its own LLM cache:
        # the old and the new calls are both paid for, none replayed from the other.
        homes = {config: fill(args.out / config, name, qs) for config in configs} if qs else {}
        for q in qs:
            # Configurations alternate question by question, so a busy spell on a shared
            # machine falls on both rather than on whichever happened to run then.
            for config in configs:
                if (config, q["question"]) in done:
                    records[config].append(done[(config, q["question"])])
                    continue
                unload_models()  # each answer starts with an empty prompt cache, as `navicite ask` does
                preset, overrides = CONFIGS[config]
                with Collection(settings=load_settings(homes[config], overrides, preset=preset)) as papers:
                    record = ask_one(papers, q["question"])
                score(record, q)
                record.update(config=config, set=name, question=q["question"], load=os.getloadavg()[0])
                records[config].append(record)
                with records_path.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(record, ensure_ascii=False) + "\n")
                print(f"{config} {name}: {record['seconds']:.0f} s, first source {record['first_source']:.2f} s", flush=True)
    results = {config: summary(rs) for config, rs in records.items()}
    base = results.get("old", {}).get("median_seconds")
    for config, figures in results.items():
        ratio = f" ({figures['median_seconds'] / base:.2f}x old)" if base else ""
        print(f"\n{config}{ratio}: {json.dumps(figures)}")
    if args.citations:
        unload_models()
        # One judge for every configuration: the defaults' model, its own cache under OUT.
        scorer = CitationScorer(create_judge("llm", lambda: create(load_settings(args.out / "judge")), lambda: None))
        for config, rs in records.items():
            for name in ("all", *asked):
                chosen = [r for r in rs if name in ("all", r["set"])]
                if chosen:
                    print(f"citations {config} {name} ({len(chosen)} answers): {json.dumps(citation_rates(chosen, scorer))}", flush=True)


if __name__ == "__main__":
    main()
