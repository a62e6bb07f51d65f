"""Retrieval methods under evaluation: their result types and the flat baselines.

A method is built once per run from :class:`EvalResources` and then answers each
question with a ranking of document ids plus a :class:`Trace` of its cost, taken from the
:class:`~navicite.stages.StageRecorder` its stages ran in. This module
holds what every method shares and the flat baselines; :mod:`navicite.eval.registry`
serves all of them by name.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from navicite.eval.datasets import EvalQuestion
from navicite.eval.resources import EvalResources
from navicite.stages import StageRecorder


@dataclass
class Trace:
    """Cost of answering one question: LLM use and seconds per stage (as stored in a run's records)."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    stage_seconds: dict[str, float] = field(default_factory=dict)

    @classmethod
    def of(cls, recorder: StageRecorder) -> Trace:
        """The cost of the stages ``recorder`` holds."""
        usage = recorder.usage()
        return cls(usage["calls"], usage["prompt_tokens"], usage["completion_tokens"], recorder.seconds())

    def to_dict(self) -> dict[str, Any]:
        return {
            "llm_calls": self.llm_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "stage_seconds": dict(self.stage_seconds),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trace:
        return cls(
            int(data.get("llm_calls", 0)),
            int(data.get("prompt_tokens", 0)),
            int(data.get("completion_tokens", 0)),
            {str(k): float(v) for k, v in (data.get("stage_seconds") or {}).items()},
        )


@dataclass
class MethodResult:
    """A method's answer to one question: ranked ``(doc_id, score)`` pairs, best first."""

    ranking: list[tuple[str, float]]
    trace: Trace = field(default_factory=Trace)


class RetrievalMethod(Protocol):
    """Ranks the data set's documents for a question.

    A method may also define ``prepare(questions)``, called once with the questions it is
    about to get, to batch work across them, and ``close()``, called when it has run them
    (to release files it holds open); the runner calls each when present.
    """

    name: str

    def run(self, question: EvalQuestion, k: int) -> MethodResult:
        """The top ``k`` documents (within ``question.candidates`` when it is set)."""
        ...


MethodFactory = Callable[[EvalResources], RetrievalMethod]


def restrict(ranking: list[tuple[str, float]], candidates: tuple[str, ...], k: int) -> list[tuple[str, float]]:
    """Keep only candidate documents (when the question has them), then the top ``k``."""
    if candidates:
        allowed = set(candidates)
        ranking = [hit for hit in ranking if hit[0] in allowed]
    return ranking[:k]


class BM25Method:
    """The question as one free-text (bag-of-words) query on the lexical index."""

    name = "bm25"

    def __init__(self, resources: EvalResources) -> None:
        self.resources = resources

    def run(self, question: EvalQuestion, k: int) -> MethodResult:
        from navicite.index.parse import free_text

        recorder = StageRecorder()
        index = self.resources.lexical
        # Restricted questions rank the whole corpus, then keep their own paragraphs.
        depth = len(self.resources.dataset.corpus) if question.candidates else k
        query = free_text(question.text)
        with recorder.stage("search"):
            # A question with no searchable word retrieves nothing.
            hits = index.search(query, k=depth) if query is not None else []
        ranking = restrict([(h.doc_id, float(h.score)) for h in hits], question.candidates, k)
        return MethodResult(ranking, Trace.of(recorder))


class DenseMethod:
    """The question embedded; the nearest documents by cosine (exact search)."""

    name = "dense"

    def __init__(self, resources: EvalResources) -> None:
        self.resources = resources
        self._vectors: dict[str, Any] = {}
        self._embed_share = 0.0

    def prepare(self, questions: list[EvalQuestion]) -> None:
        """Embed all questions in one batch (much faster than one by one on a CPU)."""
        texts = list(dict.fromkeys(q.text for q in questions))
        if not texts:
            return
        started = time.perf_counter()
        vectors = self.resources.embedder.embed(texts, query=True)
        self._vectors = dict(zip(texts, vectors))
        # Each question is charged an equal share of the batch, so stage times stay per question.
        self._embed_share = (time.perf_counter() - started) / len(texts)

    def run(self, question: EvalQuestion, k: int) -> MethodResult:
        recorder = StageRecorder()
        index = self.resources.dense
        vector = self._vectors.get(question.text)
        if vector is not None:
            recorder.add("embed", self._embed_share)
        else:
            with recorder.stage("embed"):
                vector = self.resources.embedder.embed([question.text], query=True)[0]
        with recorder.stage("search"):
            ranking = index.search(vector, k, within=question.candidates or None)
        return MethodResult(ranking, Trace.of(recorder))


#: The flat baselines, by name (the registry in :mod:`navicite.eval.registry` serves them).
METHODS: dict[str, MethodFactory] = {"bm25": BM25Method, "dense": DenseMethod}
