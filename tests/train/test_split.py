"""The evaluation-question guard, and that a built training set holds no evaluation question."""

from __future__ import annotations

from pathlib import Path

from navicite.eval.datasets import load_dataset
from navicite.train.recipe import DataOptions, TrainingSetBuilder
from navicite.train.split import (
    SCIFACT_EVAL_CLAIMS,
    EvalGuard,
    default_guard,
    evaluation_questions,
    jaccard,
    normalise,
    scifact_train_split,
    word_set,
)

from .conftest import disguise

EVAL = ["Vitamin D lowers the risk of hip fractures in elderly women.", "Who directed the film that won the 1994 Palme d'Or?"]


def test_normalise_ignores_case_punctuation_and_spacing() -> None:
    assert normalise("  Vitamin-D lowers\tthe RISK!  ") == "vitamin d lowers the risk"
    assert jaccard(word_set("a b c"), word_set("A, B; C.")) == 1.0
    assert jaccard(frozenset(), frozenset()) == 0.0


def test_guard_rejects_exact_and_near_copies_and_keeps_the_rest() -> None:
    guard = EvalGuard(EVAL)
    assert not guard.allows("vitamin d LOWERS the risk of hip-fractures in elderly women")
    assert not guard.allows(disguise(EVAL[1]))
    # One word swapped in an eleven-word question: overlap 10/12 >= 0.8.
    assert not guard.allows("Vitamin D lowers the risk of hip fractures in elderly men.")
    assert guard.allows("Vitamin D supplements and fracture risk")
    assert guard.allows("Which river flows through Paris?")
    assert guard.filter(["x y z", EVAL[0]]) == ["x y z"]


def test_threshold_is_respected() -> None:
    strict = EvalGuard(EVAL, max_jaccard=0.3)
    assert not strict.allows("Vitamin D and the risk of hip fractures")
    assert EvalGuard(EVAL, max_jaccard=0.95).allows("Vitamin D lowers the risk of hip fractures in elderly men.")


def test_real_evaluation_sets_are_all_covered(shared_data: Path) -> None:
    questions = evaluation_questions(shared_data)
    assert len(questions) == SCIFACT_EVAL_CLAIMS + 100
    guard = default_guard(shared_data)
    assert not any(guard.allows(q) for q in questions)


def test_scifact_cut_is_where_eval_limit_starts(shared_data: Path) -> None:
    scored, training = scifact_train_split(shared_data)
    harness = load_dataset(f"beir:{shared_data / 'scifact'}", "train").questions
    assert [q.id for q in scored] == [q.id for q in harness[:SCIFACT_EVAL_CLAIMS]]
    assert [q.id for q in training] == [q.id for q in harness[SCIFACT_EVAL_CLAIMS:]]
    assert not {q.id for q in scored} & {q.id for q in training}


def test_built_training_set_contains_no_evaluation_question(tiny_data: Path) -> None:
    guard = default_guard(tiny_data)
    built = TrainingSetBuilder(DataOptions(tiny_data, max_groups=None, negatives=3, heldout_share=0.2, seed=1), guard=guard).run()
    groups = built.train + built.heldout
    assert groups and built.heldout
    # The two planted copies (one SciFact claim, one closed-corpus question) were caught.
    assert built.dropped_by_guard >= 2
    exact = {normalise(q) for q in evaluation_questions(tiny_data)}
    assert not any(normalise(g.query) in exact for g in groups)
    assert all(guard.allows(g.query) for g in groups)
    assert {"musique", "hotpotqa-distractor", "inverse-cloze", "scifact-claims"} <= set(built.sources)
    scored, training = scifact_train_split(tiny_data)
    claims = {g.query for g in groups if g.source == "scifact-claims"}
    assert claims and claims <= {q.text for q in training}
    # The first scored claim's abstract is in the tiny corpus, yet it never became a query.
    assert not claims & {q.text for q in scored}
