"""Widening flat retrieval's best passage to its section: order, budget shares, the ``auto`` signals."""

from __future__ import annotations

from navicite.documents import Passage
from navicite.navigate.widen import asks_for_summary, opening, sectioned, widen
from navicite.text.tokens import estimate_tokens

WORDS = " ".join(["word"] * 30)  # about 40 tokens a passage


def passages(sections: list[tuple[str, ...]], doc: str = "d") -> list[Passage]:
    return [Passage(doc, i, f"p{i} {WORDS}", section=s) for i, s in enumerate(sections)]


def test_the_seed_s_section_mates_come_nearest_first_within_the_share() -> None:
    doc = passages([("A",)] * 2 + [("B",)] * 5 + [("C",)] * 3)
    ranked = [doc[4], doc[8], doc[0], doc[9]]  # best in B, the rest elsewhere
    cost = estimate_tokens(doc[0].text)
    out = widen(ranked, lambda _id: doc, budget_tokens=cost * 5, share=0.6)  # 3 passages of B, then the ranking
    assert [p.number for p in out.passages] == [4, 3, 5, 8, 0]
    assert out.section == ("B",) and out.added == 2 and out.mates == ("d#p3", "d#p5")


def test_widening_stops_at_the_section_boundary_and_never_exceeds_the_budget() -> None:
    doc = passages([("A",)] * 3 + [("B",)] * 3)
    cost = estimate_tokens(doc[0].text)
    out = widen([doc[2], doc[5]], lambda _id: doc, budget_tokens=cost * 10, share=1.0)
    assert [p.number for p in out.passages] == [2, 1, 0, 5]  # the same section only, then the ranking
    assert sum(estimate_tokens(p.text) for p in out.passages) <= cost * 10
    tight = widen([doc[2], doc[5]], lambda _id: doc, budget_tokens=cost * 2, share=1.0)
    assert [p.number for p in tight.passages] == [2, 1]


def test_a_repeated_heading_elsewhere_is_another_section() -> None:
    doc = passages([("Results",), ("Results",), ("Methods",), ("Results",)])
    cost = estimate_tokens(doc[0].text)
    out = widen([doc[0]], lambda _id: doc, budget_tokens=cost * 4, share=1.0)
    assert [p.number for p in out.passages] == [0, 1]


def test_share_zero_is_flat_retrieval_and_an_empty_ranking_is_empty() -> None:
    doc = passages([("A",)] * 4)
    cost = estimate_tokens(doc[0].text)
    ranked = [doc[3], doc[0]]
    assert [p.number for p in widen(ranked, lambda _id: doc, cost * 4, share=0.0).passages] == [3, 0]
    assert widen([], lambda _id: doc, 100).passages == []


def test_auto_widens_only_under_a_heading() -> None:
    headed = passages([("A",)] * 3 + [("B",)] * 3)
    assert sectioned([headed[4], headed[0]])
    assert not sectioned(passages([()] * 3)) and not sectioned([])


def test_a_summary_request_is_told_from_a_question_about_one_thing() -> None:
    asks = ["Summarize the paper.", "Give a short summary of the report.", "What is this report about?",
            "What are the main findings?", "Give me an overview of the manual", "Please generate the Abstract section for this paper."]
    specific = ["What is the summary statistic used?", "How does abstract meaning representation parse?",
                "In the main results, how do the settings compare?", "Which summary table lists the rates?"]
    assert all(asks_for_summary(q) for q in asks)
    assert not any(asks_for_summary(q) for q in specific)


def test_the_opening_is_the_document_from_its_start_within_the_budget() -> None:
    doc = passages([("Intro",), ("Intro",), ("Method",), ("Method",), ("Results",)])
    cost = estimate_tokens(doc[0].text)
    assert opening(doc, 3 * cost) == doc[:3]
    assert opening(doc, cost - 1) == [] and opening([], 100) == []
