"""One synthetic training query written by the real embedded model."""

from __future__ import annotations

import pytest

from navicite.llm.base import LLM
from navicite.train.corpora import Passage
from navicite.train.split import word_set
from navicite.train.synthetic import SyntheticQueryWriter

pytestmark = pytest.mark.llm

PASSAGE = Passage(
    "hotpot:eiffel",
    "Eiffel Tower",
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. It is named after the "
    "engineer Gustave Eiffel, whose company designed and built the tower for the 1889 World's Fair.",
)


def test_real_model_writes_a_question_about_the_passage(real_llm: LLM) -> None:
    writer = SyntheticQueryWriter(real_llm, max_tokens=48)
    written = writer.write(PASSAGE, "question")
    assert written is not None, "the model's reply was unusable"
    assert written.kind == "question" and written.passage is PASSAGE
    # usable() guarantees it names the subject; check it is about this passage's content.
    assert word_set(written.query) & {"eiffel", "tower", "paris", "gustave", "1889"}
    assert sum(1 for u in real_llm.usage.calls if u.stage == "synthetic-query") == 1
