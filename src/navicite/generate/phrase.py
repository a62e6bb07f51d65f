"""The answer phrase: the name, number or date that an answer's first sentence gives.

The answer form opens with a sentence that answers the question ("Jaclyn Stapp is married to
the former frontman of Creed, which disbanded in 2004."). A reader scanning many answers, and a
benchmark scored by exact match, want the phrase itself ("2004"). One short call shows the
model the question and that sentence only and asks which of its words answer the question;
the reply is kept only when every word of it is in the sentence (or it is a plain yes or no),
so the phrase never says more than the sentence whose citation it shares.

Questions that ask for an explanation (``answer_length`` says ``broad``) get no phrase and cost
no call; nor does a first sentence that reports a gap in the sources.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from navicite import prompts
from navicite.llm.base import LLM, CallOptions, LLMError

#: Longest phrase kept: past this it is a clause, not an answer phrase.
MAX_PHRASE_WORDS = 10
_WORD = re.compile(r"\w+", re.UNICODE)
_YES_NO = frozenset({"yes", "no", "예", "네", "아니요", "아니오"})
_EDGES = " \t\n\"'“”‘’`*.,;:!?()[]"
_YES_NO_QUESTION = re.compile(
    r"^\W*(?:is|are|was|were|am|do|does|did|can|could|has|have|had|will|would|should|shall|may|might|must)\b", re.IGNORECASE
)


# The docstring and field description are part of the JSON schema that backends which cannot
# constrain their output read in the prompt: they address the model.
class PhraseReply(BaseModel):
    """The JSON the answer-phrase prompt asks for."""

    answer: str = Field("", max_length=160, description="the shortest phrase of the sentence that answers the question, or empty")


def valid_phrase(phrase: str, sentence: str, question: str = "") -> str | None:
    """``phrase`` tidied, or ``None`` when it cannot be the answer the sentence gives.

    Not kept: an empty or long phrase, the whole sentence, a word the sentence lacks, a yes or
    no to a question that is not a yes/no question (unless the sentence says it), and common
    words the question already holds ("name" for "what does the new name stand for?"); a name
    the question holds stays, as the answer to "A or B?" does.
    """
    tidy = " ".join(phrase.split()).strip(_EDGES)
    words = _WORD.findall(tidy.lower())
    if not words:
        return None
    held = sentence.lower()
    sentence_words = _WORD.findall(held)
    if tidy.lower() in _YES_NO:
        opens = sentence_words[:1] == words
        return (tidy.capitalize() if tidy.isascii() else tidy) if opens or _YES_NO_QUESTION.match(question) else None
    if len(words) > MAX_PHRASE_WORDS or len(words) >= len(sentence_words):
        return None
    # Substrings, not whole words: a Korean name is kept out of the word it ends in ("임수경입니다").
    if not all(w in held for w in words):
        return None
    asked = set(_WORD.findall(question.lower()))
    if set(words) <= asked and tidy.isascii() and tidy == tidy.lower() and not any(c.isdigit() for c in tidy):
        return None
    return tidy


class PhraseFinder:
    """The answer-phrase call: ``run(question, sentence) -> (phrase | None, why not)``; never raises on a bad reply.

    Args:
        llm: the chat model.
        max_tokens: budget of the reply (a phrase in JSON is a handful of tokens).
    """

    def __init__(self, llm: LLM, max_tokens: int = 40) -> None:
        self.llm = llm
        self.max_tokens = max_tokens

    def run(self, question: str, sentence: str) -> tuple[str | None, str]:
        """The phrase of ``sentence`` that answers ``question``, or ``(None, why)``."""
        messages = prompts.render("answer_phrase", question=question.strip(), sentence=sentence.strip())
        options = CallOptions(stage="phrase", max_tokens=self.max_tokens, temperature=0.0)
        try:
            reply = self.llm.complete_json(messages, PhraseReply, options)
        except LLMError as exc:
            return None, f"answer-phrase reply unusable: {exc}"
        phrase = valid_phrase(reply.answer, sentence, question)
        if phrase is None:
            return None, f"phrase {reply.answer!r} is not a short part of the first sentence" if reply.answer.strip() else "the model found no phrase"
        return phrase, ""
