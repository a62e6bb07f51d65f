"""Does a quoted source sentence answer the question? The check behind "the closest the sources come" (issue 49).

When CiteG refuses the sentence that answers, it says "The sources do not answer this question."
and quotes the source sentence closest to the refused one. Sometimes that quote does answer (the
held-out pile's p2-11); then the answer contradicts itself. This bench measures the check that
tells such quotes apart (:func:`navicite.support.llm.answer_probability`, the embedded model's
p(yes)) against the word rule :func:`navicite.generate.restate.addresses`, on pairs made from
real documents and graded by the questions' gold answer strings, never by a model:

- for every answerable question with one place, the sentence (or two in a row) of its gold file
  that holds every gold answer string and most of the question's words: **answers**;
- the two sentences of the collection that share the most words with the question and hold none
  of the gold strings: **does not answer** (they share the subject, not the answer);
- for every question whose answer is in no document, its three closest sentences: **does not answer**.

Questions come from ``../shared/data/pile``, ``bench/heldout-pile`` and ``../shared/data/pdf``
(each pile ingested into its own home first). Parts: a question's id hash picks tuning or held-out.
Arms (``run --arm``): ``shipped`` (the question first, ``{"answers": ...}``), ``text-first`` (the
text first, the support judge's ``{"supported": ...}``: the first version), ``extract`` (the model
copies the words that answer; a verbatim span that is no restatement of the question is a yes).

    .venv/bin/python bench/quote_answers.py pairs --out /tmp/quote/pairs.jsonl \
        --pile ../shared/data/pile /tmp/pile-home --pile bench/heldout-pile /tmp/heldout-home --pile ../shared/data/pdf /tmp/pdf-home
    .venv/bin/python bench/quote_answers.py run --pairs /tmp/quote/pairs.jsonl --home /tmp/quote/home --out /tmp/quote/scores.json [--arm text-first]
    .venv/bin/python bench/quote_answers.py report --pairs /tmp/quote/pairs.jsonl --out /tmp/quote/scores.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from pile_questions import folded, holds  # noqa: E402
from support_ce_bench import auc  # noqa: E402

from navicite.generate.restate import addresses, restates  # noqa: E402
from navicite.support.words import features  # noqa: E402
from navicite.text.sentences import split_sentences  # noqa: E402

#: Where the gold strings mislead, read by an assistant session against the question (qid, sentence
#: start) -> answers: pile-12's gold names the version (3.6.0), but "newer versions of SQLite still
#: avoid using the last six entries ... in order that database files created by newer versions can
#: be read by older versions" gives the reason asked for.
READINGS = {("pile-12", "However, newer versions of SQLite still avoid"): True,
            ("pile-12", "Newer versions of SQLite do not have this problem."): True}

#: Sentences of a collection, closest to the question first, kept as "does not answer" pairs.
NEGATIVES = 2
NEGATIVES_ABSENT = 3


def part(qid: str) -> str:
    """``tuning`` or ``held-out``, by the question id's hash (about half each)."""
    return "held-out" if hashlib.sha256(qid.encode()).digest()[0] % 2 else "tuning"


def overlap(span: str, question: str) -> float:
    """Share of the question's word weight found in ``span`` (as :func:`navicite.generate.verify.closest_in` weighs it)."""
    words = {u: w for u, w in features(question).items() if not u[0].isdigit()}
    total = sum(words.values())
    found = features(span)
    return sum(w for u, w in words.items() if u in found) / total if total else 0.0


def spans_of(home: Path) -> list[tuple[str, str, str]]:
    """Every sentence, and every two sentences in a row, of every passage in ``home``: (file, title, text)."""
    from navicite.api import Collection

    collection = Collection(home)
    out = []
    for document in collection.documents():
        file = Path(document.metadata.get("source", "")).name
        for passage in collection.passages(document.id):
            sentences = [" ".join(s.split()) for s in split_sentences(passage.text)]
            out += [(file, document.title, s) for s in sentences]
            out += [(file, document.title, f"{a} {b}") for a, b in zip(sentences, sentences[1:])]
    return out


def pairs_for(questions: list[dict[str, Any]], spans: list[tuple[str, str, str]], pile: str) -> list[dict[str, Any]]:
    """The labelled (question, sentence) pairs of one pile (see the module docs)."""
    out = []
    for k, q in enumerate(questions):
        qid = q.get("id") or f"{pile}-{k + 1:02d}"
        groups = q.get("all_of") or []
        absent = q.get("kind") == "absent" or not groups
        if q.get("kind") == "cross":
            continue  # two places: no one sentence answers
        scored = sorted(((overlap(t, q["question"]), f, title, t) for f, title, t in spans), key=lambda x: -x[0])
        def row(f: str, title: str, text: str, answers: bool) -> dict[str, Any]:
            answers = next((v for (i, start), v in READINGS.items() if i == qid and text.startswith(start)), answers)
            return {"qid": qid, "pile": pile, "part": part(qid), "question": q["question"], "file": f, "title": title,
                    "sentence": text, "answers": answers, "kind": q.get("kind", "")}
        if absent:
            out += [row(f, t, s, False) for _, f, t, s in scored[:NEGATIVES_ABSENT]]
            continue
        positive = next(((f, t, s) for _, f, t, s in scored if f == q["file"] and holds(s, groups)), None)
        if positive is None:
            print(f"{qid}: no sentence of {q['file']} holds {groups}", file=sys.stderr)
        else:
            out.append(row(*positive, True))
        strings = [folded(x) for group in groups for x in group]
        misses = [(f, t, s) for _, f, t, s in scored if not any(x in folded(s) for x in strings)]
        out += [row(f, t, s, False) for f, t, s in misses[:NEGATIVES]]
    return out


def pairs_command(args: argparse.Namespace) -> None:
    rows = []
    for folder, home in args.pile:
        folder, home = Path(folder), Path(home)
        questions = [json.loads(line) for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
        rows += pairs_for(questions, spans_of(home), folder.name)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    by = Counter((r["part"], "answers" if r["answers"] else "not") for r in rows)
    print(f"{len(rows)} pairs; " + ", ".join(f"{p} {a} {n}" for (p, a), n in sorted(by.items())))


def load_pairs(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def key(row: dict[str, Any]) -> str:
    return hashlib.sha256(f"{row['question']}\n{row['sentence']}".encode()).hexdigest()[:16]


#: The ``text-first`` arm, the first version of the shipped prompt: the text before the question, and
#: the support judge's reply schema (``{"supported": ...}``).
ASK_TEXT_FIRST = """<source>
Title: {title}
{sentence}
</source>

Question: {question}

Does the text above give the answer to this question, so that a reader who sees only this text learns what was asked? Text on the same subject that leaves the asked value, name or reason out does not answer it.
Reply in JSON: {{"supported": true}} or {{"supported": false}}"""
#: The ``extract`` arm: the words of the text that answer, or nothing.
ASK_EXTRACT = """<source>
Title: {title}
{sentence}
</source>

Question: {question}

Copy the shortest words of the text above that answer the question. If the text does not give the answer, reply with an empty string.
Reply in JSON: {{"answer": "..."}}"""


def arm_score(model: Any, arm: str, row: dict[str, Any]) -> dict[str, Any]:
    """One arm's score of one pair: ``p`` (the model's p(yes), or 1/0 for ``extract``)."""
    from pydantic import BaseModel

    from navicite import prompts
    from navicite.llm.base import CallOptions
    from navicite.messages import Message
    from navicite.support.llm import ALTERNATIVES, Reply, answer_probability, yes_probability
    from navicite.text.quote import defuse

    if arm == "shipped":
        return {"p": round(answer_probability(model, row["title"], row["sentence"], row["question"]), 4)}
    values = {"title": defuse(row["title"]), "sentence": defuse(row["sentence"]), "question": defuse(row["question"])}
    system = prompts.render("cite_system")
    if arm == "text-first":
        options = CallOptions(temperature=0.0, max_tokens=16, stage="verify", alternatives=ALTERNATIVES)
        reply, tokens = model.complete_json_scored(system + [Message("user", ASK_TEXT_FIRST.format(**values))], Reply, options)
        p = yes_probability(tokens)
        return {"p": round((1.0 if reply.supported else 0.0) if p is None else p, 4)}
    class Extract(BaseModel):
        answer: str
    options = CallOptions(temperature=0.0, max_tokens=60, stage="verify")
    reply = model.complete_json(system + [Message("user", ASK_EXTRACT.format(**values))], Extract, options)
    span = " ".join(reply.answer.split())
    found = bool(span) and folded(span) in folded(row["sentence"]) and not restates(span, row["question"])
    return {"p": 1.0 if found else 0.0, "span": span}


def run_command(args: argparse.Namespace) -> None:
    from navicite import llm as llm_backends
    from navicite.config import Settings
    from navicite.llm.base import LLMError

    settings = Settings(home=args.home, llm={"backend": "embedded", "threads": args.threads})
    model = llm_backends.create(settings)
    out = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {}
    rows = load_pairs(args.pairs)
    started = time.time()
    suffix = "" if args.arm == "shipped" else f":{args.arm}"
    for k, row in enumerate(rows, start=1):
        if key(row) + suffix in out:
            continue
        t = time.time()
        try:
            scored = arm_score(model, args.arm, row)
        except LLMError as exc:
            print(f"  no verdict ({exc})", file=sys.stderr)
            continue
        p = scored["p"]
        out[key(row) + suffix] = {**scored, "s": round(time.time() - t, 2)}
        args.out.write_text(json.dumps(out, indent=1), encoding="utf-8")
        print(f"[{k}/{len(rows)} {time.time() - started:.0f}s] {row['qid']} {row['answers']} p={p:.3f}", file=sys.stderr, flush=True)
    print(f"{len(out)} pairs scored; model {settings.llm.model}")


def _points(scored: list[tuple[float, bool]], levels: list[float]) -> list[str]:
    lines = []
    positives = sum(1 for _, y in scored if y)
    for level in levels:
        taken = [y for p, y in scored if p >= level]
        right = sum(taken)
        precision = right / len(taken) if taken else float("nan")
        lines.append(f"    p >= {level:.2f}: accepts {len(taken)}, precision {precision:.3f}, recall {right / positives if positives else float('nan'):.3f}")
    return lines


def report_command(args: argparse.Namespace) -> None:
    rows = load_pairs(args.pairs)
    scores = json.loads(args.out.read_text(encoding="utf-8"))
    for name in ("tuning", "held-out", "all"):
        chosen = [r for r in rows if (name == "all" or r["part"] == name) and key(r) in scores]
        if not chosen:
            continue
        words = [(1.0 if addresses(r["sentence"], r["question"]) else 0.0, r["answers"]) for r in chosen]
        positives = sum(1 for r in chosen if r["answers"])
        print(f"{name}: {len(chosen)} pairs ({positives} answer), absent-question pairs {sum(1 for r in chosen if r['kind'] == 'absent')}")
        for arm, suffix in (("shipped", ""), ("text-first", ":text-first"), ("extract", ":extract")):
            model = [(scores[key(r) + suffix]["p"], r["answers"]) for r in chosen if key(r) + suffix in scores]
            if not model:
                continue
            print(f"  {arm} ({len(model)} pairs): AUC {auc(model):.3f}")
            print("\n".join(_points(model, [0.5] if arm == "extract" else [0.5, 0.6, 0.65, 0.7, 0.75, 0.8])))
        print("  word rule (addresses):")
        print("\n".join(_points(words, [1.0])))
        absent = [scores[key(r)]["p"] for r in chosen if r["kind"] == "absent"]
        if absent:
            print(f"  absent questions' closest sentences: highest p {max(absent):.3f}, at p >= 0.5 {sum(p >= 0.5 for p in absent)} of {len(absent)}")
    seconds = [v["s"] for k, v in scores.items() if ":" not in k]
    print(f"seconds a pair: median {sorted(seconds)[len(seconds) // 2]:.2f}")
    if args.list:
        for r in rows:
            if key(r) in scores:
                print(f"{r['part'][:4]} {r['qid']:8} {'ANS' if r['answers'] else 'not'} p={scores[key(r)]['p']:.3f} | {r['question'][:70]} | {r['sentence'][:150]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pairs", help="make the labelled pairs from ingested piles")
    p.add_argument("--pile", nargs=2, action="append", required=True, metavar=("FOLDER", "HOME"),
                   help="a pile folder (with questions.jsonl) and the navicite home it is ingested in")
    p.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("run", help="score the pairs with the embedded model (resumes)")
    r.add_argument("--pairs", type=Path, required=True)
    r.add_argument("--home", type=Path, required=True, help="navicite home holding the LLM cache")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--threads", type=int, default=2)
    r.add_argument("--arm", choices=("shipped", "text-first", "extract"), default="shipped",
                   help="shipped: navicite.support.llm.answer_probability (the question first); text-first: the text first, "
                   "the support schema; "
                   "extract: the model copies the words that answer (a verbatim span that is no restatement counts as yes)")
    s = sub.add_parser("report", help="AUC and operating points against the gold strings")
    s.add_argument("--pairs", type=Path, required=True)
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--list", action="store_true", help="every pair with its score")
    args = parser.parse_args()
    {"pairs": pairs_command, "run": run_command, "report": report_command}[args.command](args)


if __name__ == "__main__":
    main()
