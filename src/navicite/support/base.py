"""The support judge's vocabulary: a passage, a verdict, and the judge protocol."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Passage:
    """A cited passage as a judge reads it: its title (may be empty) and text."""

    title: str
    text: str

    @property
    def full_text(self) -> str:
        """Title and text as one string, for word checks (a title names what the passage is about)."""
        return f"{self.title}\n{self.text}" if self.title else self.text


@dataclass(frozen=True)
class Verdict:
    """Whether the premises support the claim, a score in [0, 1], and what decided it.

    ``by`` names the rule or judge that decided (``"names"``, ``"llm"``, ...); ``reason`` says
    why in a few words for a refusal ("names Berlin, which no passage mentions").
    """

    supported: bool
    score: float
    by: str
    reason: str = ""


class SupportJudge(Protocol):
    """Decides whether passages, read together, support all of a claim."""

    name: str

    def entails(self, premises: Sequence[Passage], claim: str, given: Sequence[str] = ()) -> Verdict:
        """The verdict on ``claim`` given ``premises``; ``given``: what the user said (the question),
        whose words the claim may repeat without a passage stating them."""
        ...
