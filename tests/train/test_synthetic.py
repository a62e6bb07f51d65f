"""Synthetic queries: prompt, validation of the model's reply, sampling order (scripted LLM stand-in)."""

from __future__ import annotations

from navicite.llm import LLMOutputError
from navicite.llm.scripted import ScriptedLLM
from navicite.train.corpora import Passage
from navicite.train.synthetic import (
    SyntheticQueryWriter,
    sample_jobs,
    shorten,
    usable,
)

PASSAGE = Passage("hotpot:1", "Douche and Turd", "Douche and Turd is an episode of South Park in which Stan refuses to vote in a school mascot election. " * 3)


def test_writer_keeps_a_good_query_and_sends_the_passage() -> None:
    llm = ScriptedLLM([{"query": "Why does Stan refuse to vote in the Douche and Turd episode?"}])
    written = SyntheticQueryWriter(llm).run([(PASSAGE, "question")])
    assert [w.query for w in written] == ["Why does Stan refuse to vote in the Douche and Turd episode?"]
    prompt = llm.calls[0].prompt
    assert "Douche and Turd" in prompt and "question" in prompt and "{kind}" not in prompt
    assert llm.calls[0].max_tokens == 64


def test_writer_skips_unusable_and_broken_replies_without_raising() -> None:
    llm = ScriptedLLM([{"query": "What is the title of the episode?"}, "not json at all", "still not json", LLMOutputError("bad")])
    writer = SyntheticQueryWriter(llm)
    assert writer.run([(PASSAGE, "question"), (PASSAGE, "question"), (PASSAGE, "question")]) == []


def test_usable_rules() -> None:
    assert not usable("Douche and Turd", PASSAGE)  # the title itself
    assert not usable("What is the duration of the documentary?", PASSAGE)  # names nothing of the subject
    assert not usable("Douche and Turd is an episode of South Park", PASSAGE)  # copied text
    assert not usable("Turd?", PASSAGE)
    assert usable("In Douche and Turd, which election does Stan refuse to vote in?", PASSAGE)


def test_shorten_cuts_long_texts_only() -> None:
    assert shorten("a b c", 5) == "a b c"
    assert shorten("a b c d e f", 3) == "a b c ..."


def test_sample_jobs_alternates_corpora_and_a_larger_budget_extends_a_smaller_one() -> None:
    sci = [Passage(f"scifact:{i}", "t", "word " * 50) for i in range(5)]
    wiki = [Passage(f"hotpot:{i}", "t", "word " * 50) for i in range(5)]
    short = [Passage("hotpot:short", "t", "too short")]
    small = sample_jobs([(sci, "claim"), (wiki + short, "question")], 4, seed=3)
    large = sample_jobs([(sci, "claim"), (wiki + short, "question")], 9, seed=3)
    assert large[:4] == small
    assert [kind for _, kind in small] == ["claim", "question", "claim", "question"]
    assert all(p.pid != "hotpot:short" for p, _ in large)
    assert len(sample_jobs([(sci, "claim")], 50, seed=3)) == 5
