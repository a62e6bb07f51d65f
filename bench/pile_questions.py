"""A mixed pile of documents through the default ``ask`` (issue 40): right, cited where it stands, or honestly "not stated".

The pile (``../shared/data/pile``: PDFs, HTML manuals, a plain-text specification, and
``questions.jsonl``) is ingested as one collection into ``--home`` (once; a later run reuses it),
then every question is asked of the whole collection the way ``navicite ask --json`` asks it
(mode mpr, or ``--mode auto``; no document named), in this process so the model loads once. Each answer's JSON
(``Answer.to_dict()``, plus the sources the draft read and the seconds) goes to
``--out/answers/<id>.json``, one scored record a line to ``--out/records.jsonl``; a re-run skips
what is there and prints the tables. Scoring follows the pile's README:

- **right**: the answer (markers and quoted source sentences taken out, lower-cased) holds a string
  of every ``all_of`` group;
- **cited place right**: a citation names the question's file and, for a PDF, its ``page``; for
  HTML and text, a section whose heading is the last part of ``section`` (numbers and case aside);
  a ``cross`` question needs its main place and every place in ``also``;
- **absent** (``all_of`` empty): honest when the answer says the documents do not state it (or no
  answer is given) and holds none of the ``traps`` outside a source sentence it quotes in “...”
  (``trap_in_quote`` lists those, so the strict count can be taken too);
- **declined** (a question the documents answer): the answer says they do not state it;
- **wrong shown as cited**: a wrong (or, absent, dishonest) answer with at least one cited sentence
  that does not decline;
- **evidence recall**: the draft's sources hold the gold place (same test as a citation), and
  the answer text (every ``all_of`` group in one source; for ``cross``, in the sources together).
  ``--evidence-only`` measures it for every question without asking the model.

    PYTHONPATH=src .venv/bin/python bench/pile_questions.py --home /tmp/pile/home --out /tmp/pile/after \
        --set llm.threads=1
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from navicite.api import Collection  # noqa: E402

PILE = Path(__file__).resolve().parents[2] / "shared" / "data" / "pile"
KINDS = ("number", "fact", "name", "list", "howto", "cross", "absent")
# Asking order: one question of each kind in turn (the rarer kinds first), so a run cut short
# by time still covers every kind and document.
ASK_ORDER = ("absent", "cross", "number", "list", "howto", "fact", "name")
# How an answer says the documents do not give what was asked (the pile's absent questions).
NOT_STATED = re.compile(
    r"\b(?:not (?:stated|state|say|says|mention|mentioned|mentions|specified|specify|specifies|given|give|gives|provided|"
    r"provide|provides|found|listed|documented|described|contain|contains|include|includes|indicated|answer)|"
    r"no (?:information|mention|source|document|passage)|does not (?:appear|say|give|state)|"
    r"do not (?:say|give|state)|cannot be (?:found|determined|answered)|unable to|(?:sources?|documents?|passages?) lacks?)\b",
    re.IGNORECASE,
)
# A source's words quoted in the answer ("The closest the sources come is: “...”"): what a document
# says, not a value the answer gives, so a trap inside it is not counted against the answer.
_QUOTED = re.compile(r"“[^”]*”")
_MARKER = re.compile(r"\[\d+(?:\s*[,;]\s*\d+)*\]")
_NUMBERING = re.compile(r"^[\s\d.]*(?:[A-Z]\.\s)?")


def folded(text: str) -> str:
    """Lower case, one space between words (PDF text breaks lines inside phrases)."""
    return " ".join(text.casefold().split())


def holds(text: str, all_of: list[list[str]]) -> bool:
    """Every group has a string in ``text``."""
    t = folded(text)
    return bool(all_of) and all(any(folded(s) in t for s in group) for group in all_of)


def heading(text: str) -> str:
    """A heading without its number and case: ``1.3.4. Reserved bytes per page`` -> ``reserved bytes per page``."""
    return folded(_NUMBERING.sub("", text.strip())).strip(" .:")


def at_place(item: dict[str, Any], place: dict[str, Any], files: dict[str, str]) -> bool:
    """Whether a citation or source (doc_id, pages, section) points at the gold ``place``."""
    if files.get(item.get("doc_id", ""), "") != place["file"]:
        return False
    if place.get("page"):
        return int(place["page"]) in [int(p) for p in item.get("pages") or []]
    want = heading(place["section"].split(" / ")[-1])
    section = item.get("section") or ""
    got = [heading(s) for s in (section if isinstance(section, list) else [section])]
    return any(want and (want == g or (len(g) > 3 and (want in g or g in want))) for g in got)


def places(question: dict[str, Any]) -> list[dict[str, Any]]:
    """The gold place and, for a cross question, the others it needs."""
    return [{"file": question["file"], "page": question.get("page"), "section": question.get("section") or ""},
            *(question.get("also") or [])]


def ingest(home: Path, docs: list[Path], overrides: list[str]) -> None:
    """The pile as one collection in ``home``, through ``navicite ingest`` (skipped when it is there)."""
    if (home / "done-ingest").exists():
        return
    sets = [a for o in overrides for a in ("--set", o)]
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "navicite", *sets, "ingest", *map(str, docs)], check=True,
                   env={**os.environ, "NAVICITE_HOME": str(home)})
    (home / "done-ingest").write_text(f"{time.perf_counter() - started:.1f} s\n")


def ask(collection: Collection, question: dict[str, Any], files: dict[str, str], mode: str = "mpr") -> tuple[dict[str, Any], dict[str, Any]]:
    """One question the way ``ask --json`` asks it: the answer JSON (with the draft's sources) and its scores."""
    read: list[dict[str, Any]] = []
    selector = collection.engine.citeg.selector
    plain = selector.run

    def recording(*args, **kwargs):  # the evidence the draft reads, as cut to the budget
        entries = plain(*args, **kwargs)
        read.extend({**e.source.listing(e.number), "section": list(e.source.section), "text": e.text} for e in entries)
        return entries

    selector.run = recording
    started = time.perf_counter()
    answer, error = None, ""
    try:
        for event in collection.ask_stream(question["question"], mode):  # type: ignore[arg-type]
            if event.kind == "answer":
                answer = event.data["answer"]
    except Exception as exc:  # noqa: BLE001 - a failed question is a miss, and the run goes on
        error = f"{type(exc).__name__}: {exc}"
    finally:
        selector.run = plain
    seconds = time.perf_counter() - started
    data = answer.to_dict() if answer is not None else {"answer": "", "citations": [], "sentences": [], "withheld": [], "trace": {"llm": {}}}
    data.update(seconds=round(seconds, 1), error=error, draft_sources=read)
    for c in data["citations"]:
        c["file"] = files.get(c["doc_id"], "")
    return data, score(question, data, files)


def answer_in_sources(question: dict[str, Any], sources: list[dict[str, Any]]) -> bool:
    """Whether the sources hold the reference: every ``all_of`` group in one source, or for a
    ``cross`` question (its parts stand in different places) in the sources together."""
    if not question["all_of"]:
        return False
    if question["kind"] == "cross":
        return holds("\n".join(s["text"] for s in sources), question["all_of"])
    return any(holds(s["text"], question["all_of"]) for s in sources)


def score(question: dict[str, Any], data: dict[str, Any], files: dict[str, str]) -> dict[str, Any]:
    """The pile README's scores for one answer JSON."""
    text = _MARKER.sub("", data["answer"])
    cited = any(s["kind"] == "cited" for s in data["sentences"])
    gold = places(question)
    absent = not question["all_of"]
    if absent:
        trapped = [t for t in question.get("traps") or [] if folded(t) in folded(_QUOTED.sub("", text))]
        quoted_trap = [t for t in question.get("traps") or [] if folded(t) in folded(text) and t not in trapped]
        right = not trapped and (not text.strip() or bool(NOT_STATED.search(text)))
    else:
        # A value seen only in a quoted source sentence after "not stated" is not the answer given.
        trapped, quoted_trap, right = [], [], holds(_QUOTED.sub("", text), question["all_of"])
    place_right = all(any(at_place(c, p, files) for c in data["citations"]) for p in gold)
    sources = data.get("draft_sources", [])
    llm = data.get("trace", {}).get("llm", {})
    return {
        "id": question["id"], "kind": question["kind"], "file": question["file"],
        "right": right, "cited": cited, "right_and_cited": right and cited and not absent,
        "place_right": place_right and not absent, "absent_honest": absent and right, "trapped": trapped,
        "trap_in_quote": quoted_trap,
        "declined": (not absent) and (not right) and bool(NOT_STATED.search(text)),
        "wrong_shown_cited": (not right) and cited and not NOT_STATED.search(text),
        "evidence_place": [any(at_place(s, p, files) for s in sources) for p in gold],
        "evidence_answer": answer_in_sources(question, sources),
        "seconds": data["seconds"], "prompt_tokens": int(llm.get("prompt_tokens", 0)), "calls": int(llm.get("calls", 0)),
        "withheld": len(data.get("withheld", [])), "answer": text[:300], "error": data.get("error", ""),
    }


def row(name: str, rs: list[dict[str, Any]]) -> str:
    """One table line over records ``rs``."""
    n = len(rs)
    present = [r for r in rs if r["kind"] != "absent"]
    absent = [r for r in rs if r["kind"] == "absent"]
    med = lambda key: statistics.median(r[key] for r in rs) if rs else 0  # noqa: E731
    evidence = sum(all(r["evidence_place"]) for r in rs)
    return (f"| {name} | {n} | {sum(r['right'] for r in present)}/{len(present)} | {sum(r['right_and_cited'] for r in present)}/{len(present)} | "
            f"{sum(r['place_right'] for r in present)}/{len(present)} | {sum(r.get('declined', False) for r in present)}/{len(present)} | "
            f"{sum(r['absent_honest'] for r in absent)}/{len(absent)} | "
            f"{sum(r['wrong_shown_cited'] for r in rs)}/{n} | {evidence}/{n} | {sum(r['evidence_answer'] for r in present)}/{len(present)} | "
            f"{med('seconds'):.0f} | {med('prompt_tokens'):.0f} |")


def tables(records: list[dict[str, Any]]) -> str:
    """Per kind and in all; then one line per question."""
    lines = ["| kind | n | right | right and cited | cited place right | declined | absent honest | wrong shown cited | "
             "evidence: gold place in sources | evidence: answer in sources | median s | median prompt tokens |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for kind in KINDS:
        mine = [r for r in records if r["kind"] == kind]
        if mine:
            lines.append(row(kind, mine))
    lines.append(row("**all**", records))
    lines += ["", "| id | kind | right | cited | place | gold place in sources | answer in sources | s | prompt tok | answer |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(records, key=lambda r: r["id"]):
        ans = r["answer"][:90].replace("|", "/").replace("\n", " ")
        lines.append(f"| {r['id']} | {r['kind']} | {int(r['right'])} | {int(r['cited'])} | {int(r['place_right'])} | "
                     f"{''.join(str(int(e)) for e in r['evidence_place'])} | {int(r['evidence_answer'])} | {r['seconds']:.0f} | "
                     f"{r['prompt_tokens']} | {ans} |")
    return "\n".join(lines)


def chosen_sources(collection: Collection, question: str, mode: str = "mpr") -> list[dict[str, Any]]:
    """The sources the draft of ``question`` would read (retrieval, widened in mode auto, then the selector), no model call."""
    engine = collection.engine
    sources = engine.sources(engine.retrieve(question))
    if mode == "auto":
        from navicite.stages import StageRecorder

        sources = engine.widen_sources(sources, StageRecorder())
    try:
        entries = engine.citeg.selector.run(sources, question)
    except TypeError:  # a selector that does not read the question (before issue 40)
        entries = engine.citeg.selector.run(sources)
    return [{**e.source.listing(e.number), "section": list(e.source.section), "text": e.text} for e in entries]


def evidence_table(collection: Collection, questions: list[dict[str, Any]], files: dict[str, str], out: Path, mode: str = "mpr") -> None:
    """Evidence recall for every question: gold place(s) and answer text in the draft's sources."""
    done = {json.loads(line)["id"]: json.loads(line) for line in out.read_text().splitlines()} if out.exists() else {}
    lines = ["| id | kind | gold place in sources | answer in sources | sources | documents |", "|---|---|---|---|---|---|"]
    for q in questions:
        if q["id"] not in done:
            started = time.perf_counter()
            read = chosen_sources(collection, q["question"], mode)
            done[q["id"]] = {"id": q["id"], "kind": q["kind"], "seconds": round(time.perf_counter() - started, 1),
                             "place": [any(at_place(s, p, files) for s in read) for p in places(q)],
                             "answer": answer_in_sources(q, read),
                             "sources": len(read), "documents": sorted({files.get(s["doc_id"], "") for s in read})}
            with out.open("a") as f:
                f.write(json.dumps(done[q["id"]]) + "\n")
        r = done[q["id"]]
        lines.append(f"| {r['id']} | {r['kind']} | {''.join(str(int(e)) for e in r['place'])} | {int(r['answer'])} | "
                     f"{r['sources']} | {len(r['documents'])} |")
    rs = list(done.values())
    lines.append(f"| all | | {sum(all(r['place']) for r in rs)}/{len(rs)} | {sum(r['answer'] for r in rs)}/"
                 f"{sum(1 for q in questions if q['all_of'])} | | |")
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="data directory of the pile's collection (ingested once)")
    parser.add_argument("--pile", type=Path, default=PILE, help="the pile folder (documents and questions.jsonl)")
    parser.add_argument("--out", type=Path, required=True, help="folder for answers/<id>.json and records.jsonl")
    parser.add_argument("--only", action="append", default=[], help="question id to ask (repeatable; default all)")
    parser.add_argument("--rescore", action="store_true", help="score the saved answers again, asking nothing")
    parser.add_argument("--evidence-only", action="store_true",
                        help="no answers: the sources the draft would read, for every question (retrieval and selection, no model call)")
    parser.add_argument("--set", action="append", default=[], dest="overrides", help="settings override section.key=value")
    parser.add_argument("--mode", choices=("mpr", "auto"), default="mpr", help="how evidence is found (ask --mode); default mpr")
    args = parser.parse_args()

    questions = [json.loads(line) for line in (args.pile / "questions.jsonl").read_text().splitlines() if line.strip()]
    docs = sorted(p for p in args.pile.iterdir() if p.is_file() and p.suffix in (".pdf", ".html", ".txt"))
    (args.out / "answers").mkdir(parents=True, exist_ok=True)
    args.home.mkdir(parents=True, exist_ok=True)
    ingest(args.home, docs, args.overrides)
    os.environ["NAVICITE_HOME"] = str(args.home)
    out = args.out / "records.jsonl"
    with Collection(args.home, args.overrides) as collection:
        files = {d.id: Path(d.metadata.get("source", "")).name for d in collection.documents()}
        if args.evidence_only:
            evidence_table(collection, questions, files, args.out / "evidence.jsonl", args.mode)
            return
        records: list[dict[str, Any]] = []
        nth = {id(q): sum(p["kind"] == q["kind"] for p in questions[:n]) for n, q in enumerate(questions)}
        for q in sorted(questions, key=lambda q: (nth[id(q)], ASK_ORDER.index(q["kind"]))):
            saved = args.out / "answers" / f"{q['id']}.json"
            if saved.exists():
                records.append(score(q, json.loads(saved.read_text()), files))
                continue
            if args.rescore or (args.only and q["id"] not in args.only):
                continue
            data, record = ask(collection, q, files, args.mode)
            saved.write_text(json.dumps(data, ensure_ascii=False, indent=1))
            records.append(record)
            print(f"[{q['id']} {q['kind']}] right {record['right']} cited {record['cited']} place {record['place_right']} "
                  f"evidence {record['evidence_place']} {record['seconds']:.0f} s {record['prompt_tokens']} tok "
                  f"{record['error']} :: {record['answer'][:120]!r}", flush=True)
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    print(tables(records))


if __name__ == "__main__":
    main()
