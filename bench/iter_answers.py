"""Answers through ``ask`` with one retrieval round against more: EM/F1 on MuSiQue (issue 20).

The data set's whole corpus is ingested once into ``--home`` (a collection like any user's);
then the first ``--limit`` questions are asked as ``navicite ask`` asks them, once per
``--rounds`` value (``retrieve.rounds``), everything else the same. The answer phrase (the
answer form's short answer, else the first sentence) is scored with EM and token F1 against
the gold answer and its aliases; each record also says whether a gold answer is anywhere in
the answer, how many supporting paragraphs the answer's sources and its citations hold, and
what the model cost (calls, tokens, seconds). The LLM cache in ``--home`` is shared, so the
arms pay once for what they have in common (the keyword analysis).

    .venv/bin/python bench/iter_answers.py --limit 30 --home /tmp/iter-ask --out /tmp/iter-ask/records.jsonl \
        [--rounds 1,2] [--set llm.threads=1] [--set generate.verifier=lexical]

Records are appended per question and arm to ``--out``; a re-run skips what is there and
prints the table over all records. State the machine with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from navicite.api import Collection  # noqa: E402
from navicite.eval.datasets import EvalQuestion, load_dataset  # noqa: E402
from navicite.eval.metrics import best_em_f1, normalize_answer  # noqa: E402
from navicite.generate import Answer  # noqa: E402

DEFAULT_DATA = "musique:../shared/data/musique/hipporag-train-100.json"


def answer_phrase(answer: Answer) -> str:
    """What EM/F1 score: the short answer when there is one, else the first sentence."""
    if answer.short_answer:
        return answer.short_answer
    return answer.sentences[0].text if answer.sentences else answer.answer


def asked(collection: Collection, question: str) -> tuple[Answer, list[str]]:
    """The answer and the ids of the documents its draft read (the last ``sources`` event)."""
    answer, read = None, []
    for event in collection.ask_stream(question):
        if event.kind == "sources" and not event.data.get("preliminary"):
            read = [s["doc_id"] for s in event.data["sources"]]
        elif event.kind == "answer":
            answer = event.data["answer"]
    assert answer is not None, "ask_stream ended without an answer"
    return answer, read


def record_of(question: EvalQuestion, rounds: int, answer: Answer, read: list[str], seconds: float) -> dict[str, Any]:
    """One question's answer under one arm, scored."""
    golds = list(question.answers)
    phrase = answer_phrase(answer)
    em, f1 = best_em_f1(phrase, golds)
    whole = normalize_answer(answer.answer)
    supporting = {d for d, grade in question.gold.items() if grade > 0}
    cited = {c.doc_id for c in answer.citations}
    return {
        "id": question.id, "rounds": rounds, "question": question.text, "gold": golds,
        "phrase": phrase, "answer": answer.answer, "em": em, "f1": f1,
        "gold_in_answer": any(normalize_answer(g) and normalize_answer(g) in whole for g in golds),
        "supporting": len(supporting), "read_supporting": len(set(read) & supporting),
        "cited_supporting": len(cited & supporting), "read": read, "calls": answer.llm.get("calls", 0),
        "prompt_tokens": answer.llm.get("prompt_tokens", 0), "completion_tokens": answer.llm.get("completion_tokens", 0),
        "seconds": round(seconds, 1),
    }


def summary(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per arm over the questions every arm answered (so rows compare the same questions)."""
    arms = sorted({r["rounds"] for r in records})
    common = set.intersection(*({r["id"] for r in records if r["rounds"] == a} for a in arms)) if arms else set()
    rows = []
    for arm in arms:
        mine = [r for r in records if r["rounds"] == arm and r["id"] in common]
        n = len(mine) or 1

        def mean(key: str, rs: list[dict[str, Any]] = mine, count: int = n) -> float:
            return round(sum(float(r[key]) for r in rs) / count, 3)

        rows.append({
            "retrieve.rounds": arm, "questions": len(mine), "EM": mean("em"), "F1": mean("f1"),
            "gold in answer": mean("gold_in_answer"),
            "supporting read / cited / all": f"{sum(r['read_supporting'] for r in mine)} / "
                                             f"{sum(r['cited_supporting'] for r in mine)} / {sum(r['supporting'] for r in mine)}",
            "LLM calls": mean("calls"), "prompt tok": round(mean("prompt_tokens")), "s/answer": mean("seconds"),
        })
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=30, help="first N questions")
    parser.add_argument("--home", default="/tmp/iter-ask")
    parser.add_argument("--out", default="/tmp/iter-ask/records.jsonl")
    parser.add_argument("--rounds", default="1,2", help="retrieve.rounds values to compare, comma-separated")
    parser.add_argument("--set", action="append", default=[], dest="overrides")
    args = parser.parse_args()

    dataset = load_dataset(args.data)
    questions = dataset.questions[: args.limit]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if out.exists():
        done = {(r["id"], r["rounds"]) for r in map(json.loads, out.read_text().splitlines()) if r}
    print(f"{dataset.name}: {len(questions)} questions, corpus {len(dataset.corpus)} paragraphs; "
          f"{platform.machine()}, {os.cpu_count()} CPUs", flush=True)

    for rounds in (int(r) for r in args.rounds.split(",")):
        with Collection(args.home, [*args.overrides, f"retrieve.rounds={rounds}"]) as collection:
            if len(collection) < len(dataset.corpus):
                started = time.perf_counter()
                collection.add(dataset.corpus)
                print(f"ingested {len(collection)} documents in {time.perf_counter() - started:.0f} s", flush=True)
            for i, question in enumerate(questions, 1):
                if (question.id, rounds) in done:
                    continue
                started = time.perf_counter()
                answer, read = asked(collection, question.text)
                record = record_of(question, rounds, answer, read, time.perf_counter() - started)
                with out.open("a") as f:
                    f.write(json.dumps(record) + "\n")
                print(f"[rounds={rounds} {i}/{len(questions)}] EM {record['em']:.0f} F1 {record['f1']:.2f} "
                      f"{record['calls']} calls {record['seconds']:.0f} s  {record['phrase'][:60]!r} / {record['gold'][0]!r}",
                      flush=True)

    records = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    records = [r for r in records if r["id"] in {q.id for q in questions}]
    rows = summary(records)
    if rows:
        print("| " + " | ".join(rows[0]) + " |\n|" + "---|" * len(rows[0]))
        for row in rows:
            print("| " + " | ".join(str(v) for v in row.values()) + " |")


if __name__ == "__main__":
    main()
