"""Citation alignment: prompts, repair of faulty replies, both modes."""

from __future__ import annotations

import pytest

from navicite.config import Settings
from navicite.errors import UserInputError
from navicite.generate.align import (
    AlignReply,
    Alignment,
    BatchedAligner,
    PerSentenceAligner,
    SentenceLinks,
    create_aligner,
    repair_reply,
)
from navicite.generate.answer import Source
from navicite.generate.sources import ContextEntry

SENTENCES = ["Intro sentence.", "Paris is in France.", "It has 2 million people."]


def entries(n: int = 3) -> list[ContextEntry]:
    return [ContextEntry(i, Source(f"d{i}", f"T{i}", f"text {i}"), f"text {i}", False) for i in range(1, n + 1)]


def reply(*items: tuple[int, str, list[int]]) -> AlignReply:
    return AlignReply(sentences=[SentenceLinks(index=i, kind=k, sources=s) for i, k, s in items])  # type: ignore[arg-type]


def test_a_clean_reply_is_taken_as_is() -> None:
    got, repairs = repair_reply(reply((1, "general", []), (2, "fact", [1]), (3, "fact", [2, 3])), 3, 3)
    assert got == [Alignment("general", ()), Alignment("fact", (1,)), Alignment("fact", (2, 3))]
    assert repairs == []


def test_out_of_range_and_repeated_sources_are_dropped() -> None:
    got, repairs = repair_reply(reply((1, "fact", [0, 4, 2, 2, -1]), (2, "fact", []), (3, "fact", [3])), 3, 3)
    assert got[0] == Alignment("fact", (2,))
    assert len(repairs) == 4


def test_zero_based_numbering_is_shifted() -> None:
    got, repairs = repair_reply(reply((0, "general", []), (1, "fact", [1]), (2, "fact", [3])), 3, 3)
    assert [a.sources for a in got] == [(), (1,), (3,)]
    assert any("0-based" in r for r in repairs)


def test_missing_and_unknown_sentences() -> None:
    got, repairs = repair_reply(reply((1, "fact", [1]), (7, "fact", [2])), 3, 3)
    assert got[0] == Alignment("fact", (1,))
    assert got[1] == got[2] == Alignment("fact", (), answered=False)
    assert any("sentence 7" in r for r in repairs) and any("[2, 3]" in r for r in repairs)


def test_unusable_numbers_with_one_entry_per_sentence_go_by_position() -> None:
    got, _ = repair_reply(reply((5, "general", []), (5, "fact", [1]), (9, "fact", [2])), 3, 3)
    assert [a.sources for a in got] == [(), (1,), (2,)]


def test_repeated_sentence_entries_keep_the_first() -> None:
    got, repairs = repair_reply(reply((1, "fact", [1]), (1, "fact", [2]), (2, "fact", [3]), (3, "general", [])), 3, 3)
    assert got[0].sources == (1,)
    assert any("repeated entry" in r for r in repairs)


def test_general_label_with_sources_counts_as_a_fact() -> None:
    got, _ = repair_reply(reply((1, "general", [2]), (2, "fact", []), (3, "general", [])), 3, 3)
    assert got[0] == Alignment("fact", (2,))


def test_no_reply_leaves_every_sentence_unanswered() -> None:
    got, _ = repair_reply(None, 2, 3)
    assert got == [Alignment("fact", (), answered=False)] * 2


def test_batched_aligner_makes_one_call_with_all_sentences(scripted_llm) -> None:
    llm = scripted_llm({"sentences": [{"index": 1, "kind": "general", "sources": []}, {"index": 2, "kind": "fact", "sources": [1, 9]}, {"index": 3, "kind": "fact", "sources": [2]}]})
    result = BatchedAligner(llm).run(SENTENCES, entries(), "whole answer")
    assert result.calls == 1 and len(llm.calls) == 1
    assert [a.sources for a in result.alignments] == [(), (1,), (2,)]
    prompt = llm.calls[0].prompt
    assert all(f"{i}. {s}" in prompt for i, s in enumerate(SENTENCES, 1))
    assert llm.calls[0].json_schema is not None  # schema-constrained
    # The sources come before the sentences, so the draft prompt's prefix is reused.
    assert prompt.index('<source id="1">') < prompt.index("1. Intro sentence.")


def test_batched_aligner_survives_garbage(scripted_llm) -> None:
    llm = scripted_llm("not json at all", '{"sentences": "nope"}')
    result = BatchedAligner(llm).run(SENTENCES, entries(), "whole answer")
    assert [a.answered for a in result.alignments] == [False, False, False]
    assert any("failed" in r for r in result.repairs)


def test_batched_aligner_uses_the_repair_attempt(scripted_llm) -> None:
    good = {"sentences": [{"index": i, "kind": "fact", "sources": [i]} for i in (1, 2, 3)]}
    llm = scripted_llm("```json\n{broken", good)
    result = BatchedAligner(llm).run(SENTENCES, entries(), "whole answer")
    assert [a.sources for a in result.alignments] == [(1,), (2,), (3,)]


def test_per_sentence_aligner_calls_once_per_sentence(scripted_llm) -> None:
    llm = scripted_llm({"kind": "general", "sources": []}, {"kind": "fact", "sources": [3, 3, 8]}, "junk", "junk")
    result = PerSentenceAligner(llm).run(SENTENCES, entries(), "the whole answer")
    assert result.calls == 3
    assert result.alignments[0] == Alignment("general", ())
    assert result.alignments[1] == Alignment("fact", (3,))
    assert result.alignments[2].answered is False
    assert "Sentence: Paris is in France." in llm.calls[1].prompt and "the whole answer" in llm.calls[1].prompt


def test_create_aligner_modes(scripted_llm) -> None:
    llm = scripted_llm()
    assert create_aligner(llm, Settings()).mode == "batched"
    assert create_aligner(llm, Settings(), "per-sentence").mode == "per-sentence"
    with pytest.raises(UserInputError, match="per-sentence"):
        create_aligner(llm, Settings(), "sideways")
