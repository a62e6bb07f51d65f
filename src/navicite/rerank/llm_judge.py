"""The ``llm`` backend: the chat model grades the head of the hybrid order, a few passages per call.

Each call shows the question and ``batch`` numbered passages and gets back a
schema-constrained grade 0-3 per passage number. Only the first ``depth``
candidates of the prior (hybrid) order are graded; the rest keep that order
below them. Within the head, graded candidates are sorted by grade (prior order
breaks ties) into the places graded candidates held, while a candidate whose
grade is missing or invalid (bad index, out-of-range grade, a failed call) stays
exactly where the prior put it. Answers go through the LLM's cache, and every
call is accounted under the stage ``rerank``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from pydantic import BaseModel

from navicite import prompts
from navicite.llm.base import LLM, CallOptions, LLMError
from navicite.rerank.base import HeadReranker, Reranker, Scored

log = logging.getLogger(__name__)

MAX_GRADE = 3
#: Reply budget per graded passage (about 12 tokens per {"passage": n, "grade": g}) plus the wrapper.
TOKENS_PER_PASSAGE = 16


class PassageGrade(BaseModel):
    """One passage's grade as the model gives it (checked in code, so one bad entry spoils only itself)."""

    passage: int
    grade: int


class Grades(BaseModel):
    """The reply of one grading call."""

    grades: list[PassageGrade]


def valid_grades(reply: Grades, count: int) -> dict[int, int]:
    """Grades by 0-based passage position; entries with an unknown index, a grade out of range or a repeat are dropped."""
    out: dict[int, int] = {}
    seen: set[int] = set()
    for entry in reply.grades:
        if entry.passage in seen:
            out.pop(entry.passage - 1, None)  # two different answers for one passage: trust neither
            continue
        seen.add(entry.passage)
        if 1 <= entry.passage <= count and 0 <= entry.grade <= MAX_GRADE:
            out[entry.passage - 1] = entry.grade
    return out


def merge_order(prior: Sequence[str], grades: dict[str, int]) -> list[str]:
    """``prior`` with graded ids re-sorted (best grade first, prior order on ties) into the places graded ids held."""
    graded = sorted((i for i, doc in enumerate(prior) if doc in grades), key=lambda i: (-grades[prior[i]], i))
    slots = iter(graded)
    merged = list(prior)
    for i, doc in enumerate(prior):
        if doc in grades:
            merged[i] = prior[next(slots)]
    return merged


class LLMJudgeReranker(HeadReranker):
    """Pointwise LLM grades for the first ``depth`` candidates of ``prior``'s order.

    Args:
        prior: orders every candidate first (the hybrid scorer).
        llm: the chat model.
        depth: candidates graded.
        batch: passages per call.
        passage_chars: characters of each passage shown.
    """

    name = "llm"

    def __init__(self, prior: Reranker, llm: LLM, depth: int = 20, batch: int = 4, passage_chars: int = 700) -> None:
        super().__init__(prior, depth)
        self.llm = llm
        self.batch = max(1, batch)
        self.passage_chars = passage_chars

    def grade(self, question: str, texts: Sequence[str]) -> dict[int, int]:
        """Grades of ``texts`` by position (one call); empty when the call fails."""
        passages = "\n\n".join(f"[{i}] {' '.join(t.split())[: self.passage_chars]}" for i, t in enumerate(texts, 1))
        messages = prompts.render("rerank_relevance", question=question, passages=passages, count=len(texts))
        options = CallOptions(temperature=0.0, max_tokens=TOKENS_PER_PASSAGE * len(texts) + 16, stage="rerank")
        try:
            reply = self.llm.complete_json(messages, Grades, options)
        except LLMError as exc:  # a failed batch keeps its prior order
            log.warning("LLM rerank call failed, %d passages keep their prior order: %s", len(texts), exc)
            return {}
        return valid_grades(reply, len(texts))

    def rescore(self, question: str, ordered: list[Scored], head_texts: list[str], top_n: int) -> list[Scored]:
        head = [s.doc_id for s in ordered[: len(head_texts)]]
        grades: dict[str, int] = {}
        for start in range(0, len(head), self.batch):
            chunk = head[start : start + self.batch]
            for position, grade in self.grade(question, head_texts[start : start + self.batch]).items():
                grades[chunk[position]] = grade
        by_id = {s.doc_id: s for s in ordered}
        final = merge_order(head, grades) + [s.doc_id for s in ordered[len(head) :]]
        out = []
        for rank, doc_id in enumerate(final[: max(top_n, 0)]):
            signals = {**by_id[doc_id].signals, "hybrid": by_id[doc_id].score}
            if doc_id in grades:
                signals["llm_grade"] = float(grades[doc_id])
            # The order is the result; the score only has to follow it.
            out.append(Scored(doc_id, float(len(final) - rank), signals))
        return out
