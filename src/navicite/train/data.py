"""Training groups for the reranker: one query, one positive, several hard negatives.

Five sources, all public development data and none of the evaluation questions
(:mod:`navicite.train.split` removes those):

- SciFact train claims past the scored ones, each against the abstracts its
  judgements name, negatives from BM25 and embedding hits;
- inverse cloze over the SciFact corpus: a sentence of an abstract (most often
  one of its closing, conclusion-like sentences, which is what SciFact claims
  resemble) is the query, the rest of the abstract the positive;
- MuSiQue: each supporting paragraph against the question's other paragraphs;
- HotpotQA distractor dev: each gold paragraph against the eight distractors;
- synthetic queries the LLM wrote for sampled passages.

Negatives of the first and last source are BM25 hits for the query.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from navicite.eval.datasets import EvalQuestion
from navicite.ingest import records
from navicite.train.corpora import Passage
from navicite.train.negatives import Miner
from navicite.train.split import EvalGuard
from navicite.train.synthetic import SyntheticQuery

# SciFact abstracts often glue sentences together ("...brain.A line scan"), so no space is required.
_SENTENCE_END = re.compile(r"(?<=[a-z0-9%)\]][.!?])\s*(?=[A-Z(\[])")


@dataclass(frozen=True)
class Group:
    """One listwise training example: the positive first in :meth:`texts`."""

    query: str
    positive: str
    negatives: tuple[str, ...]
    source: str

    def texts(self) -> list[str]:
        """Positive, then negatives."""
        return [self.positive, *self.negatives]


def sentences(text: str) -> list[str]:
    """``text`` cut at sentence ends (tolerates a missing space after the full stop)."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def inverse_cloze_groups(
    passages: Sequence[Passage],
    miner: Miner,
    count: int,
    n_negatives: int,
    rng: random.Random,
    keep_sentence: float = 0.1,
    closing_share: float = 0.7,
) -> list[Group]:
    """Up to ``count`` groups whose query is a sentence of an abstract.

    Args:
        keep_sentence: share of groups whose positive still contains the query
            sentence (so the model also learns that an exact match is relevant).
        closing_share: share of queries taken from the last two sentences.
    """
    order = list(passages)
    rng.shuffle(order)
    groups = []
    for passage in order:
        if len(groups) >= count:
            break
        parts = sentences(passage.text)
        if len(parts) < 3:
            continue
        candidates = parts[-2:] if rng.random() < closing_share else parts[:-2]
        query = rng.choice(candidates)
        if not 6 <= len(query.split()) <= 45:
            continue
        rest = parts if rng.random() < keep_sentence else [s for s in parts if s is not query]
        positive = Passage(passage.pid, passage.title, " ".join(rest)).as_text()
        negatives = miner.negatives(query, {passage.pid}, n_negatives, rng)
        if len(negatives) == n_negatives:
            groups.append(Group(query, positive, tuple(n.as_text() for n in negatives), "inverse-cloze"))
    return groups


def claim_groups(
    claims: Iterable[EvalQuestion],
    passages: dict[str, Passage],
    miner: Miner,
    n_negatives: int,
    rng: random.Random,
    repeats: int = 1,
) -> list[Group]:
    """One group per (claim, judged abstract), ``repeats`` times with freshly sampled negatives.

    ``passages`` maps a corpus id (``scifact:<id>``) to its abstract; no judged
    abstract of the claim is ever a negative. Repeating gives the scarce real
    claims more weight than one pass would, without copying the same group.
    """
    groups = []
    for claim in claims:
        gold = [f"scifact:{doc}" for doc, grade in claim.gold.items() if grade > 0]
        positives = [passages[pid] for pid in gold if pid in passages]
        for _ in range(repeats):
            for positive in positives:
                negatives = miner.negatives(claim.text, set(gold), n_negatives, rng)
                if len(negatives) == n_negatives:
                    groups.append(Group(claim.text, positive.as_text(), tuple(n.as_text() for n in negatives), "scifact-claims"))
    return groups


def labelled_groups(
    question: str, positives: Sequence[Passage], others: Sequence[Passage], n_negatives: int, rng: random.Random, source: str
) -> list[Group]:
    """One group per positive, negatives sampled from the question's labelled non-positives."""
    if len(others) < n_negatives:
        return []
    return [
        Group(question, p.as_text(), tuple(o.as_text() for o in rng.sample(list(others), n_negatives)), source)
        for p in positives
    ]


def musique_groups(items: Iterable[dict], n_negatives: int, rng: random.Random) -> list[Group]:
    """Groups from MuSiQue questions (``paragraphs`` with ``is_supporting``)."""
    groups = []
    for item in items:
        paragraphs = [(Passage(f"musique-q:{p['idx']}", p["title"], p["paragraph_text"]), p["is_supporting"]) for p in item["paragraphs"]]
        gold = [p for p, supporting in paragraphs if supporting]
        other = [p for p, supporting in paragraphs if not supporting]
        groups.extend(labelled_groups(item["question"], gold, other, n_negatives, rng, "musique"))
    return groups


def hotpot_distractor_groups(items: Iterable[dict], n_negatives: int, rng: random.Random) -> list[Group]:
    """Groups from HotpotQA distractor-setting questions (two gold paragraphs, eight distractors)."""
    groups = []
    for item in items:
        context = item["context"]
        titles, paragraphs = context["title"], context["sentences"]
        gold_titles = set(item["supporting_facts"]["title"])
        # Each paragraph is built as a title -> sentences corpus entry is (so its text is the one retrieval sees).
        documents = [(records.title_document(t, s), t in gold_titles) for t, s in zip(titles, paragraphs)]
        passages = [(Passage.of(d, "hotpot-q"), is_gold) for d, is_gold in documents if d is not None]
        gold = [p for p, is_gold in passages if is_gold]
        other = [p for p, is_gold in passages if not is_gold]
        groups.extend(labelled_groups(item["question"], gold, other, n_negatives, rng, "hotpotqa-distractor"))
    return groups


def synthetic_groups(
    queries: Iterable[SyntheticQuery], miners: dict[str, Miner], n_negatives: int, rng: random.Random
) -> list[Group]:
    """Groups from LLM-written queries; negatives are BM25 hits in the passage's own corpus.

    ``miners`` maps a passage-id prefix (``scifact``, ``hotpot``, ``musique``) to its corpus's miner.
    """
    groups = []
    for written in queries:
        miner = miners.get(written.passage.pid.split(":", 1)[0])
        if miner is None:
            continue
        negatives = miner.negatives(written.query, {written.passage.pid}, n_negatives, rng)
        if len(negatives) == n_negatives:
            groups.append(Group(written.query, written.passage.as_text(), tuple(n.as_text() for n in negatives), "synthetic"))
    return groups


def guarded(groups: Sequence[Group], guard: EvalGuard) -> tuple[list[Group], int]:
    """The groups whose query the guard allows, and how many were dropped."""
    kept = [g for g in groups if guard.allows(g.query)]
    return kept, len(groups) - len(kept)


def split_heldout(groups: Sequence[Group], share: float, rng: random.Random) -> tuple[list[Group], list[Group]]:
    """Shuffle and cut off ``share`` of the groups (by distinct query, so no query is in both parts)."""
    queries = sorted({g.query for g in groups})
    rng.shuffle(queries)
    held = set(queries[: round(len(queries) * share)])
    train = [g for g in groups if g.query not in held]
    heldout = [g for g in groups if g.query in held]
    rng.shuffle(train)
    return train, heldout
