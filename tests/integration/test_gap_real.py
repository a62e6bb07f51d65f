"""The missing-information call with the real embedded model: one call on a two-hop question (~1 minute)."""

from __future__ import annotations

import pytest

from navicite.llm.base import LLM, usage_scope
from navicite.retrieve.gap import GapFinder, Glimpse

pytestmark = pytest.mark.llm

QUESTION = "In which village was the buyer of the Ouse farm born?"
PASSAGES = [
    Glimpse("d1", "Ouse farm", "The Ouse farm near York was sold to the engineer Mary Hale in 1931."),
    Glimpse("d2", "River Ouse", "The Ouse flows through York and joins the Trent to form the Humber."),
]


def test_a_two_hop_question_gets_a_valid_verdict_within_budget(real_llm: LLM) -> None:
    finder = GapFinder(real_llm, max_tokens=128)
    with usage_scope() as calls:
        gap, problem = finder.run(QUESTION, PASSAGES, [QUESTION])
    assert gap is not None, problem
    # One call that ends within its budget: a cut reply would cost a repair call as long again.
    assert len(calls) == 1 and calls[0].completion_tokens < 128, calls
    # The birthplace is in no passage: the model asks for the next hop, naming the buyer.
    assert not gap.enough
    assert "mary hale" in " ".join([gap.sub_question, gap.bridge, *gap.keywords]).lower(), gap
