"""The OpenAI wire format: token alternatives asked for and read back."""

from __future__ import annotations

from navicite.llm.base import Message
from navicite.llm.core import ChatRequest
from navicite.llm.wire import chat_body, completion_from, token_alternatives


def _request(alternatives: int) -> ChatRequest:
    return ChatRequest((Message("user", "Is it so?"),), 0.0, 16, alternatives=alternatives)


def test_alternatives_are_asked_for_only_when_wanted() -> None:
    assert "logprobs" not in chat_body(_request(0), stream=False)
    body = chat_body(_request(5), stream=False)
    assert body["logprobs"] is True and body["top_logprobs"] == 5


def test_a_reply_with_logprobs_gives_each_token_and_its_alternatives() -> None:
    reply = {"choices": [{"message": {"content": '{"supported": true}'}, "finish_reason": "stop", "logprobs": {"content": [
        {"token": '{"', "logprob": -0.1, "top_logprobs": [{"token": '{"', "logprob": -0.1}]},
        {"token": " true", "logprob": -0.2, "top_logprobs": [{"token": " true", "logprob": -0.2}, {"token": " false", "logprob": -1.7}]},
    ]}}]}
    completion = completion_from(reply)
    assert completion.alternatives == (('{"', {'{"': -0.1}), (" true", {" true": -0.2, " false": -1.7}))


def test_missing_or_malformed_logprobs_give_no_alternatives() -> None:
    assert token_alternatives(None) == ()
    assert token_alternatives({"content": None}) == ()
    assert token_alternatives({"content": [{"logprob": -1.0}]}) == ()  # a token without its text
    # An alternative without a usable log-probability is left out, the token kept.
    assert token_alternatives({"content": [{"token": "a", "top_logprobs": [{"token": "b", "logprob": "x"}]}]}) == (("a", {}),)
    assert completion_from({"choices": [{"message": {"content": "hi"}}]}).alternatives == ()
