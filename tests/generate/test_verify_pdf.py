"""The lme4-like failure on a real JSS paper: a claim that names the right things but says of them
what the passage does not, refused (issue 39).

The passage is cut from the pile's sandwich paper (``../shared/data/pile``) as navicite cuts it:
it names kernHAC() and NeweyWest() as sandwich's HAC interfaces and hccm() as car's. The claim
gives kernHAC() and NeweyWest() to car. Every word and name of the claim is in the passage, so
word overlap alone had cited it (0.8 or more: the hybrid verifier asked no model).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from navicite.documents import Document
from navicite.generate.align import Alignment
from navicite.generate.answer import Source
from navicite.generate.sources import ContextEntry
from navicite.generate.verify import Verifier
from navicite.ingest.pdf import load_pdf
from navicite.support.base import Verdict
from navicite.support.cascade import Cascade, default_rules
from navicite.support.words import lexical_support, unmentioned
from navicite.text.passages import cut_passages

_DATA = [Path(__file__).resolve().parents[2].parent / "shared" / "data", Path(os.environ.get("NAVICITE_SHARED_DATA", "/nonexistent"))]
SANDWICH = next((d / "pile" / "sandwich-clustered-covariances.pdf" for d in _DATA if (d / "pile").is_dir()), None)
WRONG = "The car package provides kernHAC() and NeweyWest() for HAC covariances."
RIGHT = "The car package includes HC0 to HC4 estimators in its function hccm()."


@pytest.fixture(scope="module")
def hac_passage() -> ContextEntry:
    if SANDWICH is None:
        pytest.skip("../shared/data/pile is not beside the repository (or set NAVICITE_SHARED_DATA)")
    [document] = [d for d in load_pdf(SANDWICH) if isinstance(d, Document)]
    [passage] = [p for p in cut_passages(document) if "kernHAC()" in p.text and "hccm()" in p.text]
    return ContextEntry(1, Source(document.id, document.title, passage.text), passage.text, False)


class _Counting:
    """A model judge that says ``answer`` and counts its calls."""

    name = "llm"

    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.calls = 0

    def entails(self, premises, claim, given=()):
        self.calls += 1
        return Verdict(self.answer, float(self.answer), self.name)


def test_the_claim_names_nothing_the_passage_lacks(hac_passage: ContextEntry) -> None:
    # Why the old verifier cited it: every name is there and the words overlap.
    text = f"{hac_passage.source.title}\n{hac_passage.text}"
    assert unmentioned(WRONG, [text]) == [] and lexical_support(WRONG, text) >= 0.8


def test_without_a_model_the_lme4_like_claim_is_refused_and_the_stated_one_cited(hac_passage: ContextEntry) -> None:
    verifier = Verifier(Cascade(default_rules()), 0.8, joint=False)
    wrong, right = verifier.run([WRONG, RIGHT], [Alignment("fact", (1,))] * 2, [hac_passage])
    assert wrong.kept == [] and right.kept == [1]


def test_overlap_alone_no_longer_cites_it_the_model_decides(hac_passage: ContextEntry) -> None:
    model = _Counting(False)
    [wrong] = Verifier(Cascade(default_rules(), model), 0.8, joint=False).run([WRONG], [Alignment("fact", (1,))], [hac_passage])
    assert wrong.kept == [] and model.calls == 1


@pytest.mark.llm
def test_the_real_model_refuses_the_lme4_like_claim(hac_passage: ContextEntry, real_llm) -> None:
    from navicite.support.llm import LLMJudge

    [wrong] = Verifier(Cascade(default_rules(), LLMJudge(real_llm)), 0.8, joint=False).run(
        [WRONG], [Alignment("fact", (1,))], [hac_passage])
    assert wrong.kept == [] and [c.scorer for c in wrong.checks] == ["llm"]
