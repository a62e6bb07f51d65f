"""Retrieval rounds for multi-hop questions (``retrieve.rounds``): loop control, provenance, trace.

The scripted model answers the keyword analysis, the translation (the test collection holds
Korean documents, so portfolio G asks for one) and then each missing-information call.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from navicite.config import Settings
from navicite.index.base import LexicalIndex
from navicite.llm.scripted import ScriptedLLM
from navicite.rerank.base import RerankItem, Scored, top
from navicite.rerank.fusion import FusionReranker
from navicite.retrieve.gap import GapReply, gap_from_reply, opening, round_analysis
from navicite.retrieve.mpr import MPRResult, MultiPortfolioRetriever

from .test_mpr import ANALYSIS, TRANSLATION

#: The question as portfolio G translated it (the collection also holds Korean documents): reranked against too.
TRANSLATED = TRANSLATION["question"]

QUESTION = "Does vitamin D prevent fractures in the elderly?"
SUB_QUESTION = "What cancer risk do BRCA1 mutations carry?"
MISSING = {"enough": False, "bridge": "BRCA1", "missing": "the cancer risk", "sub_question": SUB_QUESTION,
           "keywords": ["BRCA1", "breast cancer", "summary"]}
ENOUGH = {"enough": True}


class WordOverlap:
    """A reranker that scores the share of the text's words a candidate contains (so scores differ by text)."""

    name = "overlap"

    def rerank(self, question: str, items: Sequence[RerankItem], top_n: int) -> list[Scored]:
        words = {w.strip("?.,").lower() for w in question.split()}
        scores = np.array([len(words & set(it.text.lower().replace(".", " ").split())) / len(words) for it in items])
        return top([it.doc_id for it in items], scores, [dict(it.signals) for it in items], top_n)


def run(index: LexicalIndex, tmp_path: Path, *gaps: Any, rounds: int = 3, reranker: Any = None,
        flat: bool = False) -> tuple[MPRResult, ScriptedLLM]:
    settings = Settings(home=tmp_path)
    settings.retrieve.rounds = rounds
    settings.retrieve.bridge = "llm"
    settings.retrieve.flat_portfolio = flat
    llm = ScriptedLLM([ANALYSIS, TRANSLATION, *gaps])
    retriever = MultiPortfolioRetriever(index, llm, reranker or FusionReranker(), settings)
    return retriever.run(QUESTION), llm


def test_one_round_by_default_makes_no_missing_information_call(small_index: LexicalIndex, tmp_path: Path) -> None:
    llm = ScriptedLLM([ANALYSIS, TRANSLATION])  # a third call would fail: no answer left
    result = MultiPortfolioRetriever(small_index, llm, FusionReranker(), Settings(home=tmp_path)).run(QUESTION)
    assert result.rounds == [] and result.stopped == "" and "gap" not in result.llm
    assert result.to_dict()["rounds"] == [] and result.ranked_against == [QUESTION, TRANSLATED]


def test_enough_after_round_one_keeps_the_one_shot_ranking(small_index: LexicalIndex, tmp_path: Path) -> None:
    one_shot, _ = run(small_index, tmp_path, rounds=1)
    result, llm = run(small_index, tmp_path, ENOUGH)
    assert [c.doc_id for c in result.ranked] == [c.doc_id for c in one_shot.ranked]
    [step] = result.rounds
    assert step.number == 2 and step.gap is not None and step.gap.enough and step.queries == []
    assert step.read == [c.doc_id for c in one_shot.ranked[:5]]  # retrieve.round_passages
    assert result.stopped == "enough after round 1"
    assert result.llm["gap"]["calls"] == 1 and "round2" not in result.timings and "gap" in result.timings
    prompt = llm.calls[2].prompt
    assert QUESTION in prompt and "[1] Vitamin D supplementation and hip fracture in elderly women: A randomised" in prompt


def test_a_sub_question_adds_passages_with_their_round_and_sub_question(small_index: LexicalIndex, tmp_path: Path) -> None:
    result, llm = run(small_index, tmp_path, MISSING, ENOUGH, reranker=WordOverlap())
    first, second = result.rounds
    assert first.gap is not None and first.gap.sub_question == SUB_QUESTION
    assert first.gap.keywords == ("BRCA1", "breast cancer")  # the generic word is dropped
    # The new names are the anchors, the sub-question's other words their expansions; no G after round 1.
    assert [q.portfolio for q in first.queries] == ["Q", "Q", "S", "S"]  # B and D: off in this collection
    assert first.queries[0].query == "BRCA1 AND (risk OR mutations OR carry)"
    assert all(q.round == 2 and q.sub_question == SUB_QUESTION for q in first.queries)
    assert [c.doc_id for c in first.new] == ["d4"]  # only the sub-question finds the BRCA1 paper
    d4 = next(c for c in result.pool if c.doc_id == "d4")
    assert {(p.round, p.sub_question) for p in d4.provenance} == {(2, SUB_QUESTION)}
    assert d4.portfolios[0] == "Q2"
    # Reranked against the question and the sub-question: the best of both scores counts.
    assert result.ranked_against == [QUESTION, TRANSLATED, SUB_QUESTION]
    assert [(c.doc_id, c.signals["against"]) for c in result.ranked[:2]] == [("d1", 0.0), ("d4", 2.0)]
    assert second.number == 3 and second.gap is not None and second.gap.enough
    assert "d4" in second.read and f"- {SUB_QUESTION}" in llm.calls[3].prompt
    assert result.stopped == "enough after round 2"
    assert result.llm["gap"]["calls"] == 2 and "round2" in result.timings


def test_the_trace_shows_each_round(small_index: LexicalIndex, tmp_path: Path) -> None:
    result, _ = run(small_index, tmp_path, MISSING, ENOUGH)
    data = result.to_dict()
    assert data["stopped"] == "enough after round 2" and data["ranked_against"] == [QUESTION, TRANSLATED, SUB_QUESTION]
    first, second = data["rounds"]
    assert first["round"] == 2 and first["sub_question"] == SUB_QUESTION and first["bridge"] == "BRCA1"
    assert first["keywords"] == ["BRCA1", "breast cancer"] and first["missing"] == "the cancer risk"
    assert first["new"] == [{"doc_id": "d4", "title": "BRCA1 mutations and breast cancer risk"}]
    assert {q["round"] for q in first["queries"]} == {2} and first["queries"][0]["portfolio"] == "Q"
    assert second["enough"] is True and second["queries"] == []
    assert {q["round"] for q in data["queries"]} == {1}  # round 1's queries stay where they were
    found = {p["round"] for c in data["ranked"] for p in c["provenance"]}
    assert found == {1, 2}


def test_the_round_limit_stops_the_loop(small_index: LexicalIndex, tmp_path: Path) -> None:
    result, llm = run(small_index, tmp_path, MISSING, rounds=2)  # a second call would find no answer left
    assert [r.number for r in result.rounds] == [2] and result.stopped == "round limit (2)"
    assert len(llm.calls) == 3


def test_a_round_without_new_passages_ends_the_loop_but_still_reranks(small_index: LexicalIndex, tmp_path: Path) -> None:
    # With portfolio B the first round pooled every passage holding a question word.
    again = {"enough": False, "bridge": "", "missing": "", "sub_question": "vitamin D fractures elderly",
             "keywords": ["vitamin D", "fractures"]}
    result, llm = run(small_index, tmp_path, again, flat=True)
    [step] = result.rounds
    assert step.queries and step.new == []
    assert result.stopped == "round 2 found no new passages" and len(llm.calls) == 3
    assert result.ranked_against == [QUESTION, TRANSLATED, "vitamin D fractures elderly"]


@pytest.mark.parametrize(
    "replies, problem",
    [
        (["no json", "still no json"], "missing-information reply unusable"),
        (["", ""], "missing-information reply unusable"),
        ([{"enough": False}], "names nothing to search for"),
        ([{"enough": False, "sub_question": QUESTION.upper()}], "a search already made"),
        ([{"enough": "perhaps", "bridge": 3}, {"keywords": "x"}], "missing-information reply unusable"),
    ],
)
def test_an_unusable_reply_stops_without_raising(small_index: LexicalIndex, tmp_path: Path, replies: list[Any], problem: str) -> None:
    one_shot, _ = run(small_index, tmp_path, rounds=1)
    result, _ = run(small_index, tmp_path, *replies)
    [step] = result.rounds
    assert step.gap is None and problem in step.problem and result.stopped == step.problem
    assert [c.doc_id for c in result.ranked] == [c.doc_id for c in one_shot.ranked]
    assert result.to_dict()["rounds"][0]["enough"] is None


def test_without_a_model_there_are_no_later_rounds_by_the_model(small_index: LexicalIndex, tmp_path: Path) -> None:
    settings = Settings(home=tmp_path)
    settings.retrieve.rounds = 3
    settings.retrieve.bridge = "llm"
    result = MultiPortfolioRetriever(small_index, None, FusionReranker(), settings).run(QUESTION)
    assert result.rounds == [] and result.analysis.path == "fallback"


def test_round_keywords_anchor_on_the_names_no_search_had() -> None:
    question = "Who was the first president of the association which published Journal of Psychotherapy Integration?"
    # The 1.5B model's real reply: the question's own journal as the bridge, the new name among the keywords.
    reply = GapReply(enough=False, bridge="Journal of Psychotherapy Integration",
                     sub_question="Who was the first president of the American Psychological Association?",
                     keywords=["American Psychological Association", "Journal of Psychotherapy Integration"])
    analysis = round_analysis(gap_from_reply(reply, [question]), [question])
    assert [k.term for k in analysis.primary] == ["American Psychological Association"]
    assert [k.term for k in analysis.expanded] == ["first", "president"]
    # Nothing new: the gap's terms stand; no sub-question written: its terms stand in.
    gap = gap_from_reply(GapReply(enough=False, bridge=" Hank  Snow ", keywords=["Hank Snow", "died"]), ["Hank Snow"])
    assert gap.sub_question == "Hank Snow died"
    assert [k.term for k in round_analysis(gap, ["Hank Snow died?"]).primary] == ["Hank Snow", "died"]
    assert round_analysis(gap_from_reply(GapReply(enough=False, sub_question="Who?"), []), []).primary == []


def test_opening_cuts_at_a_word() -> None:
    assert opening("short  text\nhere", 40) == "short text here"
    assert opening("alpha beta gamma delta", 14) == "alpha beta ..."
