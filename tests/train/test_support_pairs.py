"""Support-judge training pairs: each spoiler makes the failure it names, and a claim's form says nothing of its label."""

from __future__ import annotations

import random
from collections import Counter

from navicite.text.sentences import split_sentences
from navicite.train.support_pairs import PairMaker, fused, shortened, usable

# A real passage (GNU coreutils' sort manual, as Debian ships it), cut into sentences.
SORT = split_sentences(
    "The sort command sorts the lines of each given file and writes them to standard output. "
    "By default sort uses the locale's collating order, which the LC_ALL variable sets. "
    "The option --parallel=N runs N sorts at once, and the default is 8 threads on a large input. "
    "The option -S 80% uses eighty percent of memory for its buffer. "
    "Keys are given with -k, and each key may use the b, d, f and n modifiers. "
    "Stable sorting is not the default, so equal lines may change their order. "
    "The merge option -m merges files that are already sorted and does not sort them again. "
    "This version of sort was written by Mike Haertel and Paul Eggert for the Free Software Foundation."
)


def _pairs(seed: int = 3, rounds: int = 40) -> list:
    maker = PairMaker(random.Random(seed))
    return [ex for r in range(rounds) for ex in maker.from_document(f"sort{r}", "sort manual", SORT)]


def test_supported_pairs_state_their_claim_in_the_window_and_spoiled_ones_do_not() -> None:
    pairs = _pairs()
    kinds = Counter((ex.kind, ex.label) for ex in pairs)
    # Every spoiler that fits this passage was used, and both labels are common.
    for kind in ("number", "name", "negation", "neighbour", "subject"):
        assert kinds[(kind, 0)] > 0, kinds
    assert 0.35 < sum(ex.label for ex in pairs) / len(pairs) < 0.65
    for ex in pairs:
        window = ex.window.lower()
        if ex.label == 1 and ex.kind == "sentence":
            assert ex.claim.lower().rstrip(".") in window
        if ex.kind == "number":
            # The swapped number is not what the window says of that thing: the claim is not in it.
            assert ex.claim.lower().rstrip(".") not in window
        if ex.kind == "neighbour":
            assert ex.claim.rstrip(".") not in ex.window


def test_a_fused_claim_is_supported_only_by_a_window_holding_both_sentences() -> None:
    claim = fused(SORT[0], SORT[1])
    assert claim.startswith("The sort command sorts") and ", and by default sort uses" in claim
    for ex in _pairs():
        if ex.kind == "missing":
            assert ex.label == 0
            # The claim's start (first sentence) and end (second sentence) are not both in the window.
            head, tail = ex.claim[:25].lower(), ex.claim.rstrip(".")[-25:].lower()
            assert not (head in ex.window.lower() and tail in ex.window.lower())


def test_shortened_claims_keep_the_main_clause() -> None:
    assert shortened("By default sort uses the locale's collating order, which the LC_ALL variable sets.") \
        == "By default sort uses the locale's collating order."
    assert shortened("Short one.") is None
    assert not usable("Options:") and usable(SORT[0])


def test_the_same_seed_makes_the_same_pairs() -> None:
    assert _pairs(seed=5, rounds=3) == _pairs(seed=5, rounds=3)
