"""Reworded training pairs for the support judge: claims put in other words by the embedded model (issue 49).

The judge trained on ``support_judge_data.py``'s pairs learned "stated in these words": every
supported claim there is a document's own sentence (whole, shortened or fused), while answers
and the labelled claims say the same thing in other words. This bench takes supported pairs of
a pairs file, asks the embedded 1.5B model to restate each claim in one sentence of its own
words, and keeps a restatement only when it passes checks made without a model:

- it is one sentence of 0.5 to 1.6 times the claim's length, and not the claim again (at most
  85% of its content words are the claim's, in any order);
- it holds exactly the claim's numbers, and every name (capitalised or code-like word after the
  first) it holds is in the claim or the window.

Each kept restatement gives two pairs: supported (``reworded``, with the claim's window) and
spoiled (``reworded-<kind>``): a spoiler of :class:`navicite.train.support_pairs.PairMaker`
applied to the restatement, or else the restatement against another window of the same
document that does not state it (``reworded-neighbour``). So the model rewords; it labels
nothing: a label is the label of the pair it came from, or of the spoiler.

    .venv/bin/python bench/support_judge_reword.py --pairs /tmp/judge/pairs.jsonl --out /tmp/judge/reworded.jsonl --minutes 60

Appends to ``--out`` and skips claims already there, so a run can be stopped and taken up again;
the model's replies are cached in ``--home``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from navicite import llm as llm_backends
from navicite.config import Settings
from navicite.llm.base import LLM, CallOptions, LLMError
from navicite.messages import Message
from navicite.text.sentences import split_sentences
from navicite.train.support_pairs import PairMaker, document_values

_INSTRUCTION = (
    "You restate one sentence of a document for someone who asked about it. Write the same "
    "statement again as one sentence in your own words, as an answer would put it: change the "
    "wording and the order, keep every fact, number and name, add nothing, drop nothing. "
    "Reply with the new sentence only."
)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"\w+")
_NAME = re.compile(r"(?<=\s)[A-Z][a-zA-Z0-9\-]+|`[^`]+`|\b\w+_\w+\b")
FORMS = ("sentence", "fused", "short")


def _content(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) > 3}


def acceptable(claim: str, window: str, restated: str) -> str | None:
    """Why ``restated`` is no fair restatement of ``claim`` (None: it is kept)."""
    if not restated or "\n" in restated.strip():
        return "empty or several lines"
    if len(split_sentences(restated)) != 1:
        return "not one sentence"
    ratio = len(restated.split()) / max(1, len(claim.split()))
    if not 0.5 <= ratio <= 1.6:
        return "length"
    mine, theirs = _content(restated), _content(claim)
    if mine and len(mine & theirs) / len(mine) > 0.85 and len(mine) >= len(theirs) * 0.8:
        return "not reworded"
    if sorted(_NUMBER.findall(restated)) != sorted(_NUMBER.findall(claim)):
        return "numbers"
    known = (claim + " " + window).lower()
    if any(name.strip("`").lower() not in known for name in _NAME.findall(restated)):
        return "new name"
    return None


def restate(llm: LLM, claim: str) -> str:
    """The model's restatement of ``claim`` (its reply trimmed of quotes and a leading label)."""
    reply = llm.complete([Message("system", _INSTRUCTION), Message("user", claim)],
                         CallOptions(temperature=0.0, max_tokens=120, stage="reword"))
    text = reply.strip().strip('"“”').strip()
    return re.sub(r"^(?:Restated|Sentence|Answer|New sentence)\s*:\s*", "", text, flags=re.I)


def _span(sentences: list[str], claim: str) -> tuple[int, int]:
    """The sentences of the window that state ``claim`` (the best-overlapping one, or two for a fused claim)."""
    want = _content(claim)
    scores = [len(want & _content(s)) for s in sentences]
    best = max(range(len(sentences)), key=scores.__getitem__)
    if best + 1 < len(sentences) and scores[best + 1] >= 0.5 * scores[best] and len(claim.split()) > len(sentences[best].split()) * 1.3:
        return best, best + 2
    return best, best + 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=Path, required=True, help="a support_judge_data.py pairs file")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--home", type=Path, default=Path("/tmp/judge/reword-home"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--per-doc", type=int, default=2, help="most claims restated from one document")
    parser.add_argument("--seed", type=int, default=49)
    args = parser.parse_args()

    rows = [json.loads(line) for line in args.pairs.open(encoding="utf-8")]
    windows: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        windows[r["doc"]].append(r["window"])
    rng = random.Random(args.seed)
    candidates = [r for r in rows if r["label"] == 1 and r["kind"] in FORMS and len(r["claim"].split()) <= 45]
    rng.shuffle(candidates)
    # Round-robin over the sources, so that every kind of document is reworded within any time cap.
    by_source: dict[str, list[dict]] = defaultdict(list)
    taken: Counter[str] = Counter()
    for r in candidates:
        if taken[r["doc"]] < args.per_doc:
            taken[r["doc"]] += 1
            by_source[r["source"]].append(r)
    order = [queue[i] for i in range(max(map(len, by_source.values()))) for queue in by_source.values() if i < len(queue)]

    done = set()
    if args.out.exists():
        done = {json.loads(line)["from"] for line in args.out.open(encoding="utf-8") if line.strip()}
    settings = Settings(home=args.home, llm={"backend": "embedded", "threads": args.threads})
    llm = llm_backends.create(settings)
    maker = PairMaker(rng)
    counts: Counter[str] = Counter()
    start = time.monotonic()
    asked = 0
    with args.out.open("a", encoding="utf-8") as out:
        for r in order:
            if time.monotonic() - start > args.minutes * 60:
                break
            if r["claim"] in done:
                continue
            try:
                restated = restate(llm, r["claim"])
            except LLMError as error:
                counts["model error"] += 1
                print(f"model error: {error}", file=sys.stderr)
                continue
            asked += 1
            if asked % 25 == 0:
                print(f"{asked} restated, {counts['kept']} kept, {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)
            why = acceptable(r["claim"], r["window"], restated)
            counts[why or "kept"] += 1
            if why:
                continue
            sentences = split_sentences(r["window"]) or [r["window"]]
            lo, hi = _span(sentences, r["claim"])
            numbers, names = document_values([s for w in windows[r["doc"]] for s in split_sentences(w)])
            made = [{"claim": restated, "title": r["title"], "window": r["window"], "label": 1, "kind": "reworded"}]
            spoiled = maker.spoiled(r["doc"], r["title"], restated, r["kind"], sentences, lo, hi, numbers, names)
            if spoiled is not None:
                made.append({"claim": spoiled.claim, "title": r["title"], "window": spoiled.window, "label": 0,
                             "kind": f"reworded-{spoiled.kind}"})
            else:
                others = [w for w in windows[r["doc"]] if len(_content(r["claim"]) & _content(w)) < 0.5 * len(_content(r["claim"]))]
                if others:
                    made.append({"claim": restated, "title": r["title"], "window": rng.choice(others), "label": 0,
                                 "kind": "reworded-neighbour"})
            for m in made:
                counts[m["kind"]] += 1
                out.write(json.dumps({**m, "doc": r["doc"], "source": r["source"], "from": r["claim"]}, ensure_ascii=False) + "\n")
            out.flush()
    print(json.dumps({"seconds": round(time.monotonic() - start), **counts}, indent=1))


if __name__ == "__main__":
    main()
