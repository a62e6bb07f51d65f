"""Synthetic training queries written by the LLM (InPars / Promptagator style).

For each sampled passage the model writes one claim (scientific abstracts) or
one question (Wikipedia paragraphs) that the passage answers; the pair
(query, passage) becomes a positive. Calls go through the configured LLM, so
its answer cache makes a re-run with the same passages free.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from navicite import prompts
from navicite.llm import LLM, CallOptions, LLMError
from navicite.train.corpora import Passage
from navicite.train.split import jaccard, normalise, word_set

QueryKind = Literal["claim", "question"]
Progress = Callable[[int, int], None]

#: Words of a passage shown to the model: enough to carry its point, short enough to read fast.
PASSAGE_WORDS = 120


class SyntheticQueryReply(BaseModel):
    """The model's reply."""

    query: str = Field(min_length=8, max_length=400)


@dataclass(frozen=True)
class SyntheticQuery:
    """A query the model wrote for a passage."""

    passage: Passage
    kind: QueryKind
    query: str


def shorten(text: str, words: int = PASSAGE_WORDS) -> str:
    """The first ``words`` words of ``text`` (with an ellipsis when cut)."""
    parts = text.split()
    return text.strip() if len(parts) <= words else " ".join(parts[:words]) + " ..."


def usable(query: str, passage: Passage) -> bool:
    """Reject replies that cannot teach anything.

    Too short or too long; a copy of the title or of the text; a question about
    the title itself; or a query naming nothing of the passage's subject (the
    small model sometimes asks "What is the title of the song?", which no
    reranker could match to one passage).
    """
    words = query.split()
    if not 3 <= len(words) <= 40:
        return False
    norm = normalise(query)
    title = word_set(passage.title)
    if not norm or norm in normalise(passage.text) or "the title of" in norm:
        return False
    if jaccard(word_set(query), title) >= 0.8:
        return False
    subject = {w for w in title if len(w) > 2 and w not in _GENERIC}
    return not subject or bool(subject & word_set(query))


_GENERIC = frozenset(["the", "and", "for", "with", "from", "that", "this", "what", "which", "who", "when", "where", "how", "are", "was", "were", "its"])


class SyntheticQueryWriter:
    """Stage: passages -> one LLM-written query each.

    Args:
        llm: the chat model (the embedded one by default).
        max_tokens: reply budget; a 30-word query fits in 64 tokens.
    """

    def __init__(self, llm: LLM, max_tokens: int = 64) -> None:
        self.llm = llm
        self.max_tokens = max_tokens

    def write(self, passage: Passage, kind: QueryKind) -> SyntheticQuery | None:
        """One query for ``passage``, or None when the model's answer is unusable (never raises on a bad answer)."""
        messages = prompts.render("synthetic_query", kind=kind, title=passage.title, text=shorten(passage.text))
        options = CallOptions(stage="synthetic-query", max_tokens=self.max_tokens, temperature=0.0)
        try:
            reply = self.llm.complete_json(messages, SyntheticQueryReply, options)
        except LLMError:
            return None
        query = " ".join(reply.query.split())
        return SyntheticQuery(passage, kind, query) if usable(query, passage) else None

    def run(self, jobs: Sequence[tuple[Passage, QueryKind]], progress: Progress | None = None) -> list[SyntheticQuery]:
        """A query for each ``(passage, kind)`` the model answered usably, in order."""
        out = []
        for done, (passage, kind) in enumerate(jobs, 1):
            written = self.write(passage, kind)
            if written is not None:
                out.append(written)
            if progress is not None:
                progress(done, len(jobs))
        return out


def sample_jobs(
    corpora: Sequence[tuple[Sequence[Passage], QueryKind]], count: int, seed: int, min_words: int = 40
) -> list[tuple[Passage, QueryKind]]:
    """``count`` passages taken in turn from each corpus, each corpus shuffled by ``seed``.

    The order does not depend on ``count``: a larger budget extends a smaller
    one, so passages already sent to the model are answered from its cache.
    Passages shorter than ``min_words`` carry too little to ask about.
    """
    queues = []
    for i, (passages, kind) in enumerate(corpora):
        pool = [p for p in passages if len(p.text.split()) >= min_words]
        random.Random(seed * 1000 + i).shuffle(pool)
        queues.append([(p, kind) for p in pool])
    jobs: list[tuple[Passage, QueryKind]] = []
    position = 0
    while len(jobs) < count and any(position < len(q) for q in queues):
        for queue in queues:
            if position < len(queue) and len(jobs) < count:
                jobs.append(queue[position])
        position += 1
    return jobs
