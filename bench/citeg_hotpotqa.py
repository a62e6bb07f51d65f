"""CiteG on HotpotQA distractor questions: batched vs per-sentence alignment, and flat RAG.

Each question's ten paragraphs are its sources (unscored, in the file's order). For each
alignment mode the same draft is used (the LLM cache replays it), so the two modes differ
only in how citations are found. Citations are scored with the evaluation harness's ALCE
scorer and its LLM entailment judge; answer EM/F1 use the short-answer mode's phrase. The
flat RAG baseline asks the same model for a short answer from the same ten paragraphs
with a plain prompt (prompts/flat_answer.md).

    .venv/bin/python bench/citeg_hotpotqa.py --limit 5 --home /tmp/citeg-bench \
        --out /tmp/citeg-bench/records.jsonl [--set llm.threads=1]

With ``--questions-file tests/fixtures/hotpotqa_ko_20.jsonl`` the questions are the fixture's
Korean translations (same ids, the English paragraphs as sources), methods get a ``-ko``
suffix, and each record also holds the answer's language and the language match (goal: 1.0).

``--no-short-answer`` drafts in the form users get (``generate.format``: ``answer`` by default,
``report`` with ``--set generate.format=report``) instead of the short-answer mode; EM/F1 then
score the answer's first sentence, and every record says whether a gold answer is in the first
sentence (``first_hit``) or anywhere in the answer (``answer_hit``), with the draft's completion
tokens. Method names carry the form (``citeg-batched-answer``), so forms can share one ``--out``.

Records are appended per question and mode to ``--out``; a re-run skips what is there.
State the machine with the figures (2 shared CPU cores here, no GPU).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from navicite import prompts
from navicite.config import load_settings
from navicite.eval.citations import CitationCounts, CitationScorer
from navicite.eval.datasets import load_dataset
from navicite.eval.judge import create_judge
from navicite.eval.metrics import best_em_f1, normalize_answer
from navicite.eval.translation import language_figures, read_translated
from navicite.generate import Answer, CiteG, Source
from navicite.generate.cite import broken_markers, with_marker
from navicite.generate.language import check_language
from navicite.llm import create
from navicite.llm.base import CallOptions, UsageLog

DEFAULT_DATA = "hotpotqa:../shared/data/hotpotqa/distractor-dev-100.json"


def alce_counts(answer: Answer, scorer: CitationScorer) -> CitationCounts:
    """ALCE counts over the answer's own sentence units (headings left out).

    Each unit is scored on its own so the scorer sees the same sentences CiteG cited: a
    line without a full stop ("Answer: X") is not merged with the next one.
    """
    cited_sources = [{"title": c.title, "text": c.passage} for c in answer.citations]
    total = CitationCounts()
    for s in answer.sentences:
        if s.kind != "heading":
            total.add(scorer.score_answer(with_marker(s.text, s.markers), cited_sources))
    return total


def contains_gold(text: str, golds: Any) -> float:
    """1.0 when a gold answer, normalised as for EM, is inside ``text`` normalised the same way."""
    said = f" {normalize_answer(text)} "
    return float(any(f" {normalize_answer(g)} " in said for g in golds if normalize_answer(g)))


def citeg_record(answer: Answer, question: Any, scorer: CitationScorer, seconds: float) -> dict[str, Any]:
    counts = alce_counts(answer, scorer)
    stages = answer.llm.get("stages", {})
    sentences = [s for s in answer.sentences if s.kind != "heading"]
    first = sentences[0].text if sentences else ""
    scored = answer.short_answer if answer.short_answer is not None else first
    em, f1 = best_em_f1(scored or "", question.answers)
    draft = next((t.outputs for t in answer.trace if t.name == "draft"), {})
    return {
        "first_sentence": first,
        "first_hit": contains_gold(first, question.answers),
        "answer_hit": contains_gold(" ".join(s.text for s in sentences), question.answers),
        "draft_tokens": int(stages.get("draft", {}).get("completion_tokens", 0)),
        "form": draft.get("form"),
        "em": em,
        "f1": f1,
        "counts": counts.__dict__,
        "broken": len(broken_markers(answer.answer, answer.citations)),
        "unsupported": sum(s.kind == "unsupported" for s in sentences),
        "sentences": len(sentences),
        "calls": answer.llm.get("calls", 0),
        "align_calls": int(stages.get("align", {}).get("calls", 0)),
        "verify_calls": int(stages.get("verify", {}).get("calls", 0)),
        "seconds": round(seconds, 1),
        "short_answer": answer.short_answer,
        "answer": answer.answer,
        "question": question.text,
        "cited": answer.cited_with_passages(),  # for bench/citation_read.py
    }


def language_record(answer: Answer) -> dict[str, Any]:
    """CiteG's own per-sentence language judgement (names in Latin script ignored) and repair calls."""
    check = check_language(answer.answer, answer.language)
    repair_calls = int(answer.llm.get("stages", {}).get("language-repair", {}).get("calls", 0))
    return {"off_language_share": check.off_share, "repair_calls": repair_calls}


def flat_record(llm: Any, question: Any, docs: list[Any]) -> dict[str, Any]:
    passages = "\n\n".join(f"Title: {d.title}\n{d.text}" for d in docs)
    started = time.perf_counter()
    reply = llm.complete(prompts.render("flat_answer", passages=passages, question=question.text), CallOptions(max_tokens=32, temperature=0.0, stage="flat"))
    phrase = reply.strip().splitlines()[0] if reply.strip() else ""
    em, f1 = best_em_f1(phrase, question.answers)
    hit = contains_gold(phrase, question.answers)
    return {"em": em, "f1": f1, "first_hit": hit, "answer_hit": hit, "calls": 1, "seconds": round(time.perf_counter() - started, 1), "short_answer": phrase}


def summary(records: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for method in dict.fromkeys(r["method"] for r in records):
        rows = [r for r in records if r["method"] == method]
        line: dict[str, float] = {
            "answers": len(rows),
            "EM": statistics.mean(r["em"] for r in rows),
            "F1": statistics.mean(r["f1"] for r in rows),
            "LLM calls/answer": statistics.mean(r["calls"] for r in rows),
            "s/answer": statistics.mean(r["seconds"] for r in rows),
        }
        if "first_hit" in rows[0]:
            line["gold in 1st sentence"] = statistics.mean(r.get("first_hit", 0.0) for r in rows)
            line["gold in answer"] = statistics.mean(r.get("answer_hit", 0.0) for r in rows)
        if "draft_tokens" in rows[0]:
            line["draft tokens"] = statistics.mean(r.get("draft_tokens", 0) for r in rows)
            line["sentences/answer"] = statistics.mean(r["sentences"] for r in rows)
        if "language_match" in rows[0]:
            line["language match"] = statistics.mean(r["language_match"] for r in rows)
            line["language match (langdetect)"] = statistics.mean(r["language_match_langdetect"] for r in rows)
            line["Korean sentences share"] = statistics.mean(r["sentence_language_match"] for r in rows)
            if "off_language_share" in rows[0]:
                line["Korean sentences (names ignored)"] = 1 - statistics.mean(r["off_language_share"] for r in rows)
                line["answers >=75% Korean"] = statistics.mean(r["off_language_share"] <= 0.25 for r in rows)
                line["repair calls/answer"] = statistics.mean(r["repair_calls"] for r in rows)
        if "counts" in rows[0]:
            total = CitationCounts()
            for r in rows:
                total.add(CitationCounts(**r["counts"]))
            rates = total.rates()
            line.update(
                {
                    "cit. recall": rates["citation_recall"],
                    "cit. precision": rates["citation_precision"],
                    "uncited-fact rate": rates["uncited_fact_rate"],
                    "broken-marker rate": rates["broken_marker_rate"],
                    "flagged unsupported/sentence": sum(r["unsupported"] for r in rows) / max(1, sum(r["sentences"] for r in rows)),
                    "align calls/answer": statistics.mean(r["align_calls"] for r in rows),
                    "verify calls/answer": statistics.mean(r["verify_calls"] for r in rows),
                }
            )
        out[method] = line
    return out


def print_table(table: dict[str, dict[str, float]]) -> None:
    columns = list(dict.fromkeys(c for row in table.values() for c in row))
    print("| method | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    for method, row in table.items():
        cells = [f"{row[c]:.3f}" if isinstance(row.get(c), float) else str(row.get(c, "")) for c in columns]
        print(f"| {method} | " + " | ".join(cells) + " |")


def translated_questions(questions: list[Any], path: Path) -> list[Any]:
    """The fixture's questions in its order, each asked in its Korean wording with its own paragraphs."""
    by_id = {q.id: q for q in questions}
    rows = read_translated(path)
    unknown = [r.id for r in rows if r.id not in by_id]
    if unknown:
        raise SystemExit(f"{path}: ids not in the data set: {unknown[:5]}; build the fixture from the same --data file")
    return [replace(by_id[r.id], text=r.question_ko) for r in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=5, help="first N questions")
    parser.add_argument("--home", default="/tmp/citeg-bench")
    parser.add_argument("--out", default="/tmp/citeg-bench/records.jsonl")
    parser.add_argument("--modes", default="batched,per-sentence")
    parser.add_argument("--no-flat", action="store_true", help="skip the flat RAG baseline")
    parser.add_argument("--questions-file", type=Path, help="translated questions (JSONL: id, question_ko, ...) to ask instead")
    parser.add_argument("--no-short-answer", action="store_true",
                        help="draft in generate.format's form, not the short-answer mode; EM/F1 score the first sentence")
    parser.add_argument("--set", action="append", default=[], dest="overrides")
    args = parser.parse_args()

    short = [] if args.no_short_answer else ["generate.short_answer=true"]
    settings = load_settings(Path(args.home), [*short, *args.overrides])
    form = "short" if settings.generate.short_answer else settings.generate.format
    llm = create(settings)
    scorer = CitationScorer(create_judge("llm", lambda: llm, lambda: None))
    dataset = load_dataset(args.data)
    docs = {d.id: d for d in dataset.corpus}
    questions, suffix = dataset.questions, ""
    if args.questions_file:
        questions, suffix = translated_questions(questions, args.questions_file), "-ko"
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {(r["qid"], r["method"]) for r in map(json.loads, out.read_text().splitlines())} if out.exists() else set()
    print(f"machine: {platform.processor() or platform.machine()}, llm {llm.name}, threads {settings.llm.threads}, form {form}; "
          f"{args.limit} questions of {args.questions_file or args.data}", flush=True)
    for question in questions[: args.limit]:
        context = [docs[c] for c in question.candidates]
        sources = [Source(d.id, d.title, d.text) for d in context]
        jobs: list[str] = [f"citeg-{m}-{form}{suffix}" for m in args.modes.split(",")] + ([] if args.no_flat else [f"flat-rag{suffix}"])
        for method in jobs:
            if (question.id, method) in done:
                continue
            started = time.perf_counter()
            if method.startswith("flat-rag"):
                first = len(llm.usage.calls)
                record = flat_record(llm, question, context)
                record["calls"] = len(UsageLog(calls=llm.usage.calls[first:]).calls)
            else:
                align = method.removeprefix("citeg-").removesuffix(suffix).removesuffix(f"-{form}")
                answer = CiteG(llm, settings, align=align).run(question.text, sources)
                record = citeg_record(answer, question, scorer, time.perf_counter() - started)
                if suffix:
                    draft = next((t.outputs for t in answer.trace if t.name == "draft"), {})
                    said = [s.text for s in answer.sentences if s.kind != "heading"]
                    record.update(language_figures(answer.answer, question.text, said), question=question.text,
                                  draft_attempts=draft.get("attempts"), first_draft_language=draft.get("draft_language"),
                                  repair=draft.get("repair"), **language_record(answer))
            record.update(qid=question.id, method=method, gold=list(question.answers))
            with out.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            print(f"{question.id} {method}: em={record['em']:.0f} f1={record['f1']:.2f} calls={record['calls']} "
                  f"{record['seconds']}s {record.get('answer_language', '')}", flush=True)
    records = [r for r in map(json.loads, out.read_text().splitlines())]
    wanted = {q.id for q in questions[: args.limit]}
    print_table(summary([r for r in records if r["qid"] in wanted]))


if __name__ == "__main__":
    main()
