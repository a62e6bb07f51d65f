"""ALCE citation metrics, driven by a judge whose verdicts are fixed by the test."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from navicite.eval.citations import CitationScorer, looks_factual, split_cited
from navicite.eval.judge import joined


class TableJudge:
    """Supported exactly when the premise contains one of the listed sources for the claim."""

    name = "table"

    def __init__(self, support: dict[str, list[set[str]]]) -> None:
        self.support = support
        self.calls = 0

    def entails(self, premise: str | Sequence[str], hypothesis: str) -> bool:
        self.calls += 1
        return any(all(s in joined(premise) for s in needed) for needed in self.support.get(hypothesis, []))


SOURCES = [{"title": "S1", "text": "alpha"}, {"title": "S2", "text": "beta"}, {"title": "S3", "text": "gamma"}]


def test_split_keeps_markers_with_their_sentence() -> None:
    sentences = split_cited("Water boils at 100 degrees [1][2]. Ice melts at zero degrees [3, 1]. Is that so?")
    assert [s.markers for s in sentences] == [(1, 2), (3, 1), ()]
    # The marker goes with the space before it: the judge reads the sentence as written.
    assert sentences[0].claim == "Water boils at 100 degrees."


def test_recall_precision_and_rates() -> None:
    answer = (
        "Claim one is well supported here [1]. "  # supported by S1 alone
        "Claim two needs both sources together [1][2]. "  # needs S1+S2: both precise
        "Claim three has an extra citation [1][3]. "  # S1 alone suffices: S3 irrelevant
        "Claim four is cited wrongly here [2]. "  # not supported: citation imprecise
        "Claim five has no citation at all. "  # uncited fact
        "Claim six points nowhere at all [7]."  # broken marker: counts as uncited
    )
    support = {
        "Claim one is well supported here.": [{"alpha"}],
        "Claim two needs both sources together.": [{"alpha", "beta"}],
        "Claim three has an extra citation.": [{"alpha"}],
    }
    judge = TableJudge(support)
    counts = CitationScorer(judge).score_answer(answer, SOURCES)
    rates = counts.rates()
    assert counts.sentences == 6
    assert rates["citation_recall"] == pytest.approx(3 / 6)
    # citations: 1 + 2 + 2 + 1 = 6; precise: 1 + 2 + 1 + 0 = 4
    assert counts.citations == 6
    assert rates["citation_precision"] == pytest.approx(4 / 6)
    assert rates["uncited_fact_rate"] == pytest.approx(2 / 6)
    assert counts.markers == 7 and rates["broken_marker_rate"] == pytest.approx(1 / 7)


def test_judge_sees_titles_and_only_cited_passages() -> None:
    seen: list[str] = []

    class Recorder:
        name = "recorder"

        def entails(self, premise: str | Sequence[str], hypothesis: str) -> bool:
            seen.append(list(premise))
            return True

    CitationScorer(Recorder()).score_answer("Only the second source is cited here [2].", SOURCES)
    CitationScorer(Recorder()).score_answer("Both are cited here [1][3].", SOURCES)
    # Several cited passages reach the judge as separate passages, each under its title.
    assert seen[0] == ["Title: S2\nbeta"] and seen[1] == ["Title: S1\nalpha", "Title: S3\ngamma"]


def test_looks_factual() -> None:
    assert looks_factual("The tower was built in 1889 [1].")
    assert not looks_factual("Is that so?")
    assert not looks_factual("I don't know the answer to this.")
    assert not looks_factual("Yes [1].")
    assert not looks_factual("Gallu are demons [2].")  # three words; the marker and stop are not words


def test_a_cited_list_is_split_as_the_generator_cut_it() -> None:
    # CiteG checks a lead-in and its short items as one sentence and puts the marker after the last item.
    [listed, done] = split_cited("The countries are:\n- Japan\n- USA [1]\n\nDone here now [2].")
    assert listed.markers == (1,) and listed.claim == "The countries are: - Japan - USA"
    assert done.markers == (2,)
