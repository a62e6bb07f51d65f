"""Metrics against their references: pytrec_eval conventions and the HotpotQA script's definitions."""

from __future__ import annotations

import math

import pytest
import pytrec_eval

from navicite.eval import metrics as m

QRELS = {
    "q1": {"d1": 1, "d2": 2},
    "q2": {"d3": 1},
    "q3": {"d4": 1, "d5": 0},
}
RUN = {
    "q1": {"d9": 0.9, "d1": 0.5, "d2": 0.1},
    "q2": {"q2": 5.0, "d7": 0.4, "d3": 0.2},
    "q3": {f"x{i}": 1.0 - i / 100 for i in range(12)} | {"d4": 0.5},
}


def test_scores_match_pytrec_eval_on_fixed_run() -> None:
    ours = m.retrieval_scores(QRELS, RUN, [2, 10])
    cleaned = {q: {d: s for d, s in docs.items() if d != q} for q, docs in RUN.items()}
    ref = pytrec_eval.RelevanceEvaluator(QRELS, {"ndcg_cut.10", "recall.2,10"}).evaluate(cleaned)
    for qid in QRELS:
        assert ours[qid]["ndcg@10"] == pytest.approx(ref[qid]["ndcg_cut_10"])
        assert ours[qid]["recall@2"] == pytest.approx(ref[qid]["recall_2"])
        assert ours[qid]["recall@10"] == pytest.approx(ref[qid]["recall_10"])


def test_ndcg_by_hand() -> None:
    ours = m.retrieval_scores(QRELS, RUN, [10])
    # q1: gains 1 at rank 2 and 2 at rank 3; ideal: 2 at rank 1, 1 at rank 2 (linear gains, as trec_eval).
    dcg = 1 / math.log2(3) + 2 / math.log2(4)
    idcg = 2 / math.log2(2) + 1 / math.log2(3)
    assert ours["q1"]["ndcg@10"] == pytest.approx(dcg / idcg)


def test_document_equal_to_query_id_is_dropped() -> None:
    ours = m.retrieval_scores(QRELS, RUN, [1, 2])
    # Without the self-hit "q2", d3 is second: reciprocal rank 1/2, found within 2.
    assert ours["q2"]["mrr@10"] == pytest.approx(0.5)
    assert ours["q2"]["recall@2"] == 1.0
    assert ours["q2"]["recall@1"] == 0.0


def test_mrr_has_a_cutoff_that_pytrec_recip_rank_lacks() -> None:
    ours = m.retrieval_scores(QRELS, RUN, [10])
    full = pytrec_eval.RelevanceEvaluator(QRELS, {"recip_rank"}).evaluate(RUN)
    assert full["q3"]["recip_rank"] == pytest.approx(1 / 13)  # d4 ranks 13th
    assert ours["q3"]["mrr@10"] == 0.0
    assert ours["q1"]["mrr@10"] == pytest.approx(full["q1"]["recip_rank"])


def test_grade_zero_is_not_relevant_and_empty_run_scores_zero() -> None:
    ours = m.retrieval_scores(QRELS, {**RUN, "q1": {}}, [100])
    assert ours["q3"]["recall@100"] == 1.0  # d5 has grade 0, so only d4 counts
    assert ours["q1"] == {"ndcg@10": 0.0, "mrr@10": 0.0, "recall@100": 0.0, "all_gold@100": 0.0}


def test_all_gold_found() -> None:
    ranking = {"a": 3.0, "b": 2.0, "c": 1.0}
    assert m.all_gold_found({"a": 1, "c": 1}, ranking, 2) == 0.0
    assert m.all_gold_found({"a": 1, "c": 1}, ranking, 3) == 1.0
    assert m.all_gold_found({"a": 1, "z": 0}, ranking, 1) == 1.0


def test_mean_scores() -> None:
    assert m.mean_scores({"a": {"x": 1.0}, "b": {"x": 0.0}}) == {"x": 0.5}
    assert m.mean_scores({}) == {}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The  Quick, Brown fox!", "quick brown fox"),
        ("Apple's theater", "apples theater"),
        ("an apple a day", "apple day"),
        ("A.B.C.", "abc"),
    ],
)
def test_normalize_answer(text: str, expected: str) -> None:
    assert m.normalize_answer(text) == expected


@pytest.mark.parametrize(
    ("prediction", "gold", "em", "f1"),
    [
        ("the Beatles", "Beatles", 1.0, 1.0),
        ("Barack Obama", "President Barack Obama", 0.0, 0.8),  # p=1, r=2/3
        ("the the cat cat cat", "cat cat", 0.0, 0.8),  # counts clip: 2 shared of 3 predicted
        ("yes", "yes", 1.0, 1.0),
        ("yes", "no", 0.0, 0.0),
        ("yes it is", "yes", 0.0, 0.0),  # gold is yes/no: no partial credit
        ("no", "no way", 0.0, 0.0),  # prediction is yes/no: no partial credit
        ("no answer", "noanswer", 0.0, 0.0),
        ("a an the", "the", 1.0, 0.0),  # both normalise to empty: EM holds, F1 has no tokens
        ("Paris", "London", 0.0, 0.0),
    ],
)
def test_hotpot_em_f1_cases(prediction: str, gold: str, em: float, f1: float) -> None:
    assert m.exact_match(prediction, gold) == em
    assert m.token_f1(prediction, gold)[0] == pytest.approx(f1)


def test_precision_recall_parts_and_aliases() -> None:
    f1, precision, recall = m.token_f1("Barack Obama", "President Barack Obama")
    assert (precision, recall) == (pytest.approx(1.0), pytest.approx(2 / 3))
    assert m.best_em_f1("Stanley Hall", ["G. Stanley Hall", "Stanley Hall"]) == (1.0, 1.0)
    assert m.best_em_f1("anything", []) == (0.0, 0.0)


@pytest.mark.parametrize(
    ("answer", "letter"),
    [("(B) Their subconscious knew", "B"), ("B. because", "B"), ("The answer is C", "C"), ("Answer: (D)", "D"), ("I do not know", None)],
)
def test_choice_letter(answer: str, letter: str | None) -> None:
    assert m.choice_letter(answer) == letter


def test_choice_accuracy() -> None:
    assert m.choice_accuracy("(A) It means that", "A") == 1.0
    assert m.choice_accuracy("(A) It means that", "b") == 0.0


def test_language_match_with_bundled_model() -> None:
    question = "Quelle est la capitale de la France et pourquoi est-elle importante ?"
    assert m.language_match("La capitale de la France est Paris, une ville très ancienne.", question) == 1.0
    assert m.language_match("The capital of France is Paris, a very old city.", question) == 0.0
    assert m.language_match("", question) == 0.0


def test_answer_in_context_recall() -> None:
    evidence = ["G. Stanley Hall was the first president.", "Other text"]
    assert m.answer_in_context_recall(["G. Stanley Hall"], evidence) == 1.0
    assert m.answer_in_context_recall(["William James Hall"], evidence) == pytest.approx(1 / 3)
    assert m.answer_in_context_recall(["nothing here", "Stanley"], evidence) == 1.0
    assert m.answer_in_context_recall(["the"], evidence) == 0.0
