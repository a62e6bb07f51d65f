"""The chat model as the support judge: its verdict and its probability of "yes"."""

from __future__ import annotations

import math

from navicite.llm.core import Completion
from navicite.llm.scripted import ScriptedLLM
from navicite.support.base import Passage
from navicite.support.llm import LLMJudge, answer_probability, support_probability, yes_probability

TOWER = [Passage("Eiffel Tower", "The Eiffel Tower was completed in 1889.")]


def test_yes_probability_is_read_at_the_verdict_token() -> None:
    tokens = [('{"', {'{"': -0.1}), ("supported", {"supported": 0.0}), ('":', {'":': 0.0}),
              (" true", {" true": math.log(0.6), " false": math.log(0.2), "true": math.log(0.1)})]
    assert math.isclose(yes_probability(tokens), 0.7 / 0.9)
    assert yes_probability([(" false", {" false": math.log(0.9), " true": math.log(0.05)})] ) < 0.1
    assert yes_probability([("{", {"{": 0.0})]) is None  # no verdict token
    assert yes_probability([(" true", {" maybe": -0.1})]) is None  # neither word among the alternatives


class _WithAlternatives(ScriptedLLM):
    """A scripted model that also reports log-probabilities for its verdict token, as llama.cpp does."""

    def _generate(self, request):  # type: ignore[no-untyped-def]
        completion = super()._generate(request)
        assert request.alternatives > 0
        return Completion(completion.text, alternatives=((" true", {" true": math.log(0.8), " false": math.log(0.2)}),))


def test_the_judge_scores_with_the_probability_where_the_backend_gives_one() -> None:
    assert support_probability(_WithAlternatives(default={"supported": True}), [("t", "x")], "x")[1] == 0.8
    verdict = LLMJudge(_WithAlternatives(default={"supported": True})).entails(TOWER, "It was completed in 1889.")
    assert verdict.supported and verdict.score == 0.8


def test_without_log_probabilities_the_score_is_the_bare_verdict() -> None:
    assert LLMJudge(ScriptedLLM(default={"supported": True})).entails(TOWER, "It was completed in 1889.").score == 1.0
    assert LLMJudge(ScriptedLLM(default={"supported": False})).entails(TOWER, "It was completed in 1887.").score == 0.0


def test_a_reply_that_is_no_verdict_is_not_supported_and_counted() -> None:
    judge = LLMJudge(ScriptedLLM(default="not json at all"))
    verdict = judge.entails(TOWER, "It was completed in 1889.")
    assert not verdict.supported and judge.failures == 1


def test_whether_a_source_sentence_answers_is_asked_question_first() -> None:
    llm = _WithAlternatives(default={"answers": True})
    assert answer_probability(llm, "Eiffel Tower", "It was completed in 1889.", "When was it completed?") == 0.8
    prompt = llm.calls[0].prompt
    assert prompt.index("Question: When was it completed?") < prompt.index("It was completed in 1889.")
    assert answer_probability(ScriptedLLM(default={"answers": False}), "t", "x", "q?") == 0.0


def test_the_real_model_tells_a_quoted_answer_from_a_sentence_on_its_subject(real_llm) -> None:
    # bench/quote_answers.py's pdf-06 pairs (survival's compete vignette): 0.754 against 0.557 there.
    question = "Which command creates the data set for a Fine-Gray model?"
    title = "Multi-state models and competing risks"
    answers = answer_probability(real_llm, title, "The data set can be created using the finegray command.", question)
    aside = answer_probability(real_llm, title, "A Cox model fit to the constructed data set yields the Fine-Gray models "
                               "for PCM and for death.", question)
    assert answers >= 0.65 > aside
