"""Building training groups: sentence cutting, inverse cloze, claims, labelled groups, held-out split."""

from __future__ import annotations

import random

from navicite.eval.datasets import EvalQuestion
from navicite.train.corpora import Passage
from navicite.train.data import (
    Group,
    claim_groups,
    inverse_cloze_groups,
    labelled_groups,
    sentences,
    split_heldout,
)
from navicite.train.negatives import NegativeMiner

CORPUS = [
    Passage("a", "Statins and muscle pain", "Statins are widely prescribed.We followed 900 patients for two years. Muscle pain was not more common with statins than with placebo. Statins do not cause muscle pain in most patients."),
    Passage("b", "Statin adherence", "Adherence to statins falls after one year. Muscle pain is the reason patients give most often. Reminders improved adherence."),
    Passage("c", "Exercise and muscle pain", "Exercise causes delayed muscle pain. Pain peaks after two days. Stretching did not reduce it."),
    Passage("d", "Statin dose", "Higher statin doses lower cholesterol further. Patients on high doses reported muscle pain more often. The effect was small."),
    Passage("e", "Coffee", "Coffee drinkers sleep less. Caffeine blocks adenosine receptors. Decaffeinated coffee had no effect."),
]


def test_sentences_splits_glued_full_stops_but_not_decimals() -> None:
    assert sentences("Rates rose by 2.5 percent.We then stopped. Done!") == ["Rates rose by 2.5 percent.", "We then stopped.", "Done!"]


def test_negative_miner_never_returns_the_excluded_passage() -> None:
    miner = NegativeMiner(CORPUS)
    assert miner.hits("statins muscle pain", 2)[0].pid in {"a", "d", "b"}
    negatives = miner.negatives("statins muscle pain", {"a"}, 3, random.Random(0))
    assert len(negatives) == 3 and all(n.pid != "a" for n in negatives)
    assert miner.hits("zzz qqq", 3) == []


def test_inverse_cloze_query_is_a_sentence_removed_from_its_positive() -> None:
    miner = NegativeMiner(CORPUS)
    groups = inverse_cloze_groups(CORPUS, miner, 10, 2, random.Random(3), keep_sentence=0.0)
    assert groups
    for g in groups:
        source = next(p for p in CORPUS if g.positive.startswith(p.title))
        assert g.query in source.text and g.query not in g.positive
        assert len(g.negatives) == 2 and all(not n.startswith(source.title + "\n") for n in g.negatives)


def test_labelled_groups_one_per_positive_and_skip_short_lists() -> None:
    rng = random.Random(0)
    groups = labelled_groups("q?", CORPUS[:2], CORPUS[2:], 2, rng, "test")
    assert [g.positive for g in groups] == [CORPUS[0].as_text(), CORPUS[1].as_text()]
    assert all(set(g.negatives) <= {p.as_text() for p in CORPUS[2:]} for g in groups)
    assert labelled_groups("q?", CORPUS[:1], CORPUS[1:2], 2, rng, "test") == []


def test_heldout_split_keeps_each_query_on_one_side() -> None:
    groups = [Group(f"q{i % 7}", "p", ("n",), "s") for i in range(30)]
    train, held = split_heldout(groups, 0.3, random.Random(0))
    assert len(train) + len(held) == 30
    assert held and not {g.query for g in train} & {g.query for g in held}


def test_claim_groups_never_use_a_judged_abstract_as_negative_and_repeat_with_fresh_negatives() -> None:
    claim = EvalQuestion(id="7", text="Statins cause muscle pain", gold={"a": 1, "d": 1})
    passages = {f"scifact:{p.pid}": Passage(f"scifact:{p.pid}", p.title, p.text) for p in CORPUS}
    miner = NegativeMiner(list(passages.values()), depth=4)
    groups = claim_groups([claim], passages, miner, 2, random.Random(5), repeats=3)
    assert len(groups) == 2 * 3 and {g.source for g in groups} == {"scifact-claims"}
    judged = {passages["scifact:a"].as_text(), passages["scifact:d"].as_text()}
    assert {g.positive for g in groups} == judged
    assert not any(set(g.negatives) & judged for g in groups)
    # A claim whose abstracts are not in the corpus gives nothing.
    assert claim_groups([EvalQuestion(id="8", text="x", gold={"zz": 1})], passages, miner, 2, random.Random(5)) == []
