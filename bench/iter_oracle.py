"""Retrieval rounds with perfect sub-questions: what the rounds' searches and reranking give on MuSiQue.

``mpr-iter-rerank`` depends on the model finding the bridge; this script replaces the
missing-information call by MuSiQue's own decomposition with its gold hop answers
(round k searches hop k with ``#1``... replaced by the answers before it), so the figures
are the ceiling of the machinery (portfolios of the sub-question, pooling, reranking
against question + sub-questions) for a model that reasons perfectly. The keyword analysis
of round 1 is the real model's, shared with ``mpr-rerank`` through the LLM cache in ``--home``.

    .venv/bin/python bench/iter_oracle.py --dataset musique:../shared/data/musique/hipporag-train-100.json \
        --limit 20 --home /tmp/iter-home --out /tmp/iter-oracle [--rounds 4] [--set llm.threads=1]
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from navicite.config import load_settings  # noqa: E402
from navicite.eval.datasets import load_dataset  # noqa: E402
from navicite.eval.registry import register_method  # noqa: E402
from navicite.eval.report import markdown_table  # noqa: E402
from navicite.eval.resources import EvalResources  # noqa: E402
from navicite.eval.runner import RetrievalRunner  # noqa: E402
from navicite.eval.mpr_methods import MPRMethod  # noqa: E402
from navicite.retrieve.gap import Gap, Glimpse  # noqa: E402

_HOLE = re.compile(r"#(\d)")


def sub_questions(decomposition: list[dict]) -> list[tuple[str, str]]:
    """(sub-question, the bridge written into it) for hops 2..n, each hole filled with its hop's gold answer."""
    answers = [str(step["answer"]) for step in decomposition]
    out = []
    for step in decomposition[1:]:
        filled = _HOLE.sub(lambda m: answers[int(m.group(1)) - 1], step["question"])
        used = [answers[int(n) - 1] for n in _HOLE.findall(step["question"])]
        out.append((filled, used[0] if used else ""))
    return out


class OracleGaps:
    """Stands in for :class:`~navicite.retrieve.gap.GapFinder`: the next gold hop, or enough after the last."""

    def __init__(self, by_question: dict[str, list[tuple[str, str]]]) -> None:
        self.by_question = by_question

    def run(self, question: str, passages: Sequence[Glimpse], searched: Sequence[str]) -> tuple[Gap | None, str]:
        hops = self.by_question.get(question, [])
        step = len(searched) - 1  # searched: the question, then one sub-question per round so far
        if step >= len(hops):
            return Gap(True), ""
        text, bridge = hops[step]
        return Gap(False, bridge, "", text, (bridge,) if bridge else ()), ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", required=True, help="musique:FILE (the decompositions are read from FILE)")
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=4, help="most rounds (MuSiQue has up to 4 hops)")
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--set", action="append", default=[], dest="overrides")
    args = parser.parse_args()

    settings = load_settings(args.home, args.overrides)
    data = load_dataset(args.dataset)
    raw = json.loads(Path(args.dataset.split(":", 1)[1]).read_text(encoding="utf-8"))
    hops = {rec["question"]: sub_questions(rec["question_decomposition"]) for rec in raw}

    def oracle(resources: EvalResources) -> MPRMethod:
        method = MPRMethod(resources, "mpr-iter-oracle", resources.settings.rerank.backend, use_llm=True)
        method.retriever.rounds = args.rounds
        method.retriever.gaps = OracleGaps(hops)  # type: ignore[assignment]
        return method

    register_method("mpr-iter-oracle", oracle)
    questions = data.questions[: args.limit]
    resources = EvalResources(data, settings)
    report = RetrievalRunner(resources, ["bm25", "mpr-rerank", "mpr-iter-oracle"], [5, 10, 50], args.out).run(questions)
    print(markdown_table(report))
    print(f"{len(questions)} questions; hops: " + ", ".join(
        f"{n}-hop {sum(1 for q in questions if len(hops.get(q.text, [])) + 1 == n)}" for n in (2, 3, 4)))


if __name__ == "__main__":
    main()
