"""Entailment judges and their agreement figures (LLM judge via the scripted stand-in)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from navicite.eval.expertqa import evidence_text, load_claims, sample_claims
from navicite.eval.judge import Agreement, LexicalJudge, ModelJudge, content_words, create_judge, premise_windows
from navicite.support.llm import LLMJudge as SupportLLMJudge


def LLMJudge(llm, max_premise_chars: int = 6000) -> ModelJudge:
    """The evaluation's ``llm`` judge as create_judge builds it."""
    return ModelJudge(SupportLLMJudge(llm, stage="judge", max_chars=max_premise_chars), "llm")

from navicite.errors import UserInputError
from navicite.llm.scripted import ScriptedLLM


def test_llm_judge_reads_verdict_and_sends_both_texts() -> None:
    llm = ScriptedLLM([{"supported": True}, {"supported": False}])
    judge = LLMJudge(llm)
    assert judge.entails("Paris is the capital of France.", "France's capital is Paris.") is True
    assert judge.entails("Paris is in France.", "Paris has 2 million people.") is False
    assert "Paris is the capital of France." in llm.calls[0].prompt and "France's capital is Paris." in llm.calls[0].prompt
    assert llm.calls[0].json_schema is not None and llm.calls[0].max_tokens <= 16


def test_llm_judge_asks_a_cited_passage_as_the_verifier_asked_it() -> None:
    from navicite.eval.citations import format_passage
    from navicite.support.llm import ask_support

    claim = "William King was Maine's first governor."
    passage = {"title": "William King (governor)", "text": "William King was the first Governor of Maine."}
    llm = ScriptedLLM(default={"supported": True})
    ask_support(llm, passage["title"], passage["text"], claim)
    LLMJudge(llm).entails(format_passage(passage), claim)
    verifier_prompt, judge_prompt = (call.prompt for call in llm.calls)
    assert judge_prompt == verifier_prompt and judge_prompt.count("Title:") == 1


def test_llm_judge_asks_several_cited_passages_as_the_verifier_asked_the_pair() -> None:
    from navicite.eval.citations import format_passage
    from navicite.support.llm import ask_support_together

    claim = "Stronger Together was written by a senator from Virginia."
    passages = [{"title": "Stronger Together", "text": "A 2016 book by Hillary Clinton and Tim Kaine."},
                {"title": "Tim Kaine", "text": "Tim Kaine is the junior United States Senator from Virginia."}]
    llm = ScriptedLLM(default={"supported": True})
    ask_support_together(llm, [(p["title"], p["text"]) for p in passages], claim)
    LLMJudge(llm).entails([format_passage(p) for p in passages], claim)
    verifier_prompt, judge_prompt = (call.prompt for call in llm.calls)
    assert judge_prompt == verifier_prompt and '<source id="2">\nTitle: Tim Kaine' in judge_prompt


def test_llm_judge_counts_unusable_replies_as_unsupported() -> None:
    llm = ScriptedLLM(["not json at all", "still not json"])
    judge = LLMJudge(llm)
    assert judge.entails("premise", "claim") is False
    assert judge.failures == 1


def test_llm_judge_skips_empty_and_shortens_long_premises() -> None:
    llm = ScriptedLLM([{"supported": True}])
    judge = LLMJudge(llm, max_premise_chars=100)
    assert judge.entails("", "claim") is False and not llm.calls
    judge.entails("word " * 500, "claim")
    assert len(llm.calls[0].prompt) < 1500


def test_lexical_judge() -> None:
    judge = LexicalJudge(threshold=0.7)
    assert judge.entails("The Eiffel Tower is in Paris and was built in 1889.", "The Eiffel Tower was built in 1889.")
    assert not judge.entails("The Eiffel Tower is in Paris.", "The Colosseum was built in Rome in 80 AD.")
    assert content_words("The cat and the hat") == ["cat", "hat"]


def test_premise_windows_overlap() -> None:
    windows = premise_windows("One is here. Two is here. Three is here. Four is here. Five is here.", 3)
    assert windows[0].startswith("One") and "Three" in windows[0] and windows[1].startswith("Three")
    assert premise_windows("") == []


def test_create_judge_unknown_kind() -> None:
    with pytest.raises(UserInputError, match="llm, cascade, embedding, lexical"):
        create_judge("nli", llm=lambda: None, embedder=lambda: None)


def test_agreement_figures() -> None:
    figures = Agreement.count([(True, True), (True, False), (False, False), (False, True), (True, True)]).figures()
    assert figures["accuracy"] == pytest.approx(3 / 5)
    assert figures["precision_supported"] == pytest.approx(2 / 3)
    assert figures["recall_supported"] == pytest.approx(2 / 3)
    assert figures["f1_supported"] == pytest.approx(2 / 3)
    assert figures["human_supported_rate"] == pytest.approx(3 / 5)


def test_expertqa_label_mapping(tmp_path: Path) -> None:
    claims = [
        {"claim_string": "A.", "evidence": ["[1] http://x\n\nText A."], "support": "Complete"},
        {"claim_string": "B.", "evidence": ["Text B."], "support": "Partial"},
        {"claim_string": "C.", "evidence": ["Text C."], "support": "Incomplete"},
        {"claim_string": "D.", "evidence": [], "support": "Missing"},
        {"claim_string": "E.", "evidence": ["Text E."], "support": "N/A"},
    ]
    path = tmp_path / "eqa.jsonl"
    path.write_text(json.dumps({"question": "q", "answers": {"sys": {"claims": claims}}}) + "\n")
    loaded = load_claims(path)
    assert [(c.claim, c.supported) for c in loaded] == [("A.", True), ("B.", False), ("C.", False)]
    assert loaded[0].evidence == "Text A."
    assert sample_claims(loaded, 2) == sample_claims(loaded, 2) and len(sample_claims(loaded, 2)) == 2
    assert evidence_text("plain text") == "plain text"
