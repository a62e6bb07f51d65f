"""Build the knowledge tree of one L-Eval QuALITY story with the configured (real) model.

The story goes into a fresh collection in ``--home`` (so ``navicite --home H tree show
quality-<i>`` renders it afterwards); the tree is built, validated and stored, and the
build cost is printed: model calls and tokens, per segment and per 1,000 document tokens,
and wall time. Optionally one of the story's questions is then navigated.

    .venv/bin/python bench/navirag_tree_build.py --story 1 --home /tmp/navi-bench \
        [--set llm.threads=1] [--question 0]

State the machine with the figures (2 shared CPU cores here, no GPU); wall time depends on
the load from other jobs, calls and tokens do not.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

from navicite import index as index_layer
from navicite import llm as llm_layer
from navicite.config import load_settings
from navicite.documents import Document
from navicite.navigate import Navigator, TreeBuilder, TreeStore
from navicite.navigate.outline import outline_lines
from navicite.navigate.validate import problems

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "leval" / "quality.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--story", type=int, default=1, help="Line number (from 0) of the story.")
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="section.key=value")
    parser.add_argument("--question", type=int, default=None, help="Navigate this question of the story afterwards.")
    args = parser.parse_args()

    record = json.loads(args.data.read_text(encoding="utf-8").splitlines()[args.story])
    document = Document(id=f"quality-{args.story}", title=f"QuALITY story {args.story}", text=record["input"])
    settings = load_settings(args.home, ["navigate.min_document_words=500", *args.overrides])
    index = index_layer.create(settings)
    index.upsert([document])

    llm = llm_layer.create(settings)
    print(f"machine: {platform.machine()}, {platform.system()}, model {llm.name}, threads {settings.llm.threads}")
    print(f"story {args.story}: {document.word_count} words, segments of {settings.ingest.segment_words} words")
    started = time.perf_counter()

    def progress(event) -> None:  # type: ignore[no-untyped-def]
        print(f"  [{time.perf_counter() - started:7.1f} s] {event.phase} {event.done}/{event.total}: "
              f"{event.calls} calls, {event.tokens:,} tokens", flush=True)

    outcome = TreeBuilder(settings, llm, progress=progress).build(document, force=True)
    print(json.dumps(outcome.to_dict(), indent=2))
    tree = TreeStore.open(settings).get(document.id)
    if tree is None:
        return
    print("\n".join(outline_lines(tree)))
    print("validator:", problems(tree) or "valid")
    if args.question is not None:
        question = record["instructions"][args.question].split("\n")[0]
        nav_started = time.perf_counter()
        navigation = Navigator(llm, settings).run(question, tree)
        print(f"question: {question}")
        print(f"navigation: {navigation.steps} steps, {time.perf_counter() - nav_started:.1f} s, closed={navigation.closed}")
        for step in navigation.trace:
            print(f"  {step.kind} {' > '.join(step.path)}: {step.decision} gap={step.gap!r}")
        for ev in navigation.evidence:
            print(f"  evidence {ev.kind} [{ev.path_label}] segments {list(ev.segments)}: {ev.text[:120]}...")


if __name__ == "__main__":
    main()
