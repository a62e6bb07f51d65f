"""Ranking figures and the learning-rate schedule of the training loop."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from navicite.train import base_model_path
from navicite.train.data import Group
from navicite.train.trainer import (
    TIMING_STEPS,
    CrossEncoderTrainer,
    TrainConfig,
    _linear_warmup_decay,
    load_base,
    rank_groups,
)

GROUPS = [Group("q1", "good", ("bad", "worse"), "s"), Group("q2", "good2", ("better", "bad"), "s")]
SCORES = {"good": 3.0, "bad": 1.0, "worse": 0.0, "good2": 2.0, "better": 5.0}


def test_rank_groups_mrr_and_accuracy() -> None:
    ranking = rank_groups(lambda pairs: [SCORES[text] for _, text in pairs], GROUPS)
    assert ranking.groups == 2
    assert ranking.accuracy == pytest.approx(0.5)
    assert ranking.mrr == pytest.approx((1 + 1 / 2) / 2)


def test_ties_count_against_the_positive() -> None:
    ranking = rank_groups(lambda pairs: [0.0] * len(pairs), GROUPS[:1])
    assert ranking.mrr == pytest.approx(1 / 3) and ranking.accuracy == 0.0


def test_schedule_warms_up_then_decays_to_zero() -> None:
    values = [_linear_warmup_decay(step, 2, 10) for step in range(11)]
    assert values[0] == 0.5 and values[1] == 1.0 and values[2] == 1.0
    assert values[10] == 0.0 and all(a >= b for a, b in itertools.pairwise(values[2:]))


@pytest.mark.slow
def test_time_cap_shortens_the_run_and_the_model_is_saved(tmp_path: Path) -> None:
    from navicite.train import base_model_path
    from navicite.train.trainer import (
        CrossEncoderTrainer,
        TrainConfig,
    )

    groups = [Group(f"question {i}", f"answer {i}", (f"other {i}",), "s") for i in range(3 * TIMING_STEPS)]
    config = TrainConfig(base_model_path(), max_length=16, groups_per_step=1, max_minutes=1e-6, threads=1)
    result = CrossEncoderTrainer(config).run(groups, groups[:2], tmp_path)
    # Far too little time: the first re-plan ends the run.
    assert result.steps == TIMING_STEPS and result.pairs == 2 * TIMING_STEPS
    assert result.heldout_after is not None and result.heldout_after.groups == 2
    assert (tmp_path / "config.json").is_file() and (tmp_path / "tokenizer.json").is_file()


def test_pair_head_gets_its_own_learning_rate() -> None:
    config = TrainConfig(base_model_path(), learning_rate=1e-4, head_learning_rate=3e-3)
    model, _ = load_base(config.base_model)
    groups = CrossEncoderTrainer(config)._parameter_groups(model)
    head = groups[-1]
    assert head["lr"] == 3e-3 and "lr" not in groups[0]
    named = {id(p): n for n, p in model.named_parameters()}
    assert {named[id(p)] for p in head["params"]} == {
        "bert.pooler.dense.weight", "bert.pooler.dense.bias", "classifier.weight", "classifier.bias"
    }  # fmt: skip
    assert sum(len(g["params"]) for g in groups) == len(list(model.parameters()))
