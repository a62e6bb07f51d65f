"""Entailment judges: does a premise (cited passages) support a hypothesis (one sentence)?

ALCE uses a T5-XXL NLI model, which is not available offline here. Options:

- ``llm``: the chat model asked a schema-constrained yes/no question, the same one the verifier
  asks (:class:`navicite.support.llm.LLMJudge`): the verifier's own judge, so on answers the
  verifier checked it repeats its verdicts; reports say so. Seconds per call on a CPU.
- ``cascade``: the verifier's support cascade (word rules, then that model), :mod:`navicite.support`.
- ``embedding``: the claim is supported when it is close (cosine) to some window of the
  premise. Fast, but it measures topical similarity, not entailment.
- ``lexical``: the claim is supported when most of its content words occur in the premise.

``navicite eval judge`` measures each against ExpertQA's human labels.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol


from navicite.errors import UserInputError
from navicite.eval.metrics import normalize_answer
from navicite.support.base import Passage, SupportJudge
from navicite.support.cascade import Cascade, default_rules
from navicite.support.llm import TITLE_LINE, LLMJudge
from navicite.text.sentences import split_sentences

if TYPE_CHECKING:
    from navicite.embed import Embedder
    from navicite.llm.base import LLM

JUDGE_KINDS = ("llm", "cascade", "embedding", "lexical")

# Function words carry no evidence of support; kept short and in our own list.
_FUNCTION_WORDS = frozenset(
    "a an the and or but if of to in on at by for with from as is are was were be been being it its this that these "
    "those there their they them he she his her we our you your i not no can could may might will would should has "
    "have had do does did so such than then also which who whom whose what when where why how all any some more most".split()
)


class EntailmentJudge(Protocol):
    """Decides support of one sentence by a premise."""

    name: str

    def entails(self, premise: str | Sequence[str], hypothesis: str) -> bool:
        """True when ``premise`` (one text, or several passages read together) supports all of ``hypothesis``."""
        ...


def joined(premise: str | Sequence[str]) -> str:
    """Several passages as one text (what judges that read no structure compare against)."""
    return premise if isinstance(premise, str) else "\n\n".join(premise)


class ModelJudge:
    """A support judge of :mod:`navicite.support` (the chat model, or the verifier's whole cascade)
    as an :class:`EntailmentJudge`: passages that open with a ``Title: ...`` line are read with
    that title. A reply the model cannot give counts as "not supported" (and in ``failures``).
    """

    def __init__(self, judge: SupportJudge, name: str) -> None:
        self.judge = judge
        self.name = name

    @property
    def failures(self) -> int:
        """Calls the model could not answer."""
        return getattr(self.judge, "failures", 0) + getattr(getattr(self.judge, "model", None), "failures", 0)

    def entails(self, premise: str | Sequence[str], hypothesis: str) -> bool:
        passages = [Passage(*_untitled(p)) for p in ([premise] if isinstance(premise, str) else premise) if p.strip()]
        if not passages or not hypothesis.strip():
            return False
        return self.judge.entails(passages, hypothesis.strip()).supported


def _untitled(passage: str) -> tuple[str, str]:
    """``(title, text)`` of a passage that may open with a ``Title: ...`` line."""
    if passage.startswith(TITLE_LINE):
        first_line, _, text = passage.partition("\n")
        return first_line[len(TITLE_LINE):], text
    return "", passage


def content_words(text: str) -> list[str]:
    """Normalised words of ``text`` without function words."""
    return [w for w in normalize_answer(text).split() if w not in _FUNCTION_WORDS]


class LexicalJudge:
    """Supported when at least ``threshold`` of the claim's content words occur in the premise."""

    name = "lexical"

    def __init__(self, threshold: float = 0.5) -> None:
        self.threshold = threshold

    def entails(self, premise: str | Sequence[str], hypothesis: str) -> bool:
        words = content_words(hypothesis)
        if not words:
            return False
        present = set(content_words(joined(premise)))
        return sum(1 for w in words if w in present) / len(words) >= self.threshold


def premise_windows(premise: str, sentences_per_window: int = 3) -> list[str]:
    """Overlapping windows of a few sentences, so a long premise is compared piece by piece."""
    sentences = split_sentences(premise)
    if len(sentences) <= sentences_per_window:
        return [" ".join(sentences)] if sentences else []
    step = max(1, sentences_per_window - 1)
    return [" ".join(sentences[i : i + sentences_per_window]) for i in range(0, len(sentences) - 1, step)]


class EmbeddingJudge:
    """Supported when the claim's embedding is within ``threshold`` cosine of some premise window."""

    name = "embedding"

    def __init__(self, embedder: Embedder, threshold: float = 0.6) -> None:
        self.embedder = embedder
        self.threshold = threshold

    def entails(self, premise: str | Sequence[str], hypothesis: str) -> bool:
        windows = premise_windows(joined(premise))
        if not windows or not hypothesis.strip():
            return False
        vectors = self.embedder.embed([hypothesis, *windows])
        return float((vectors[1:] @ vectors[0]).max()) >= self.threshold


def create_judge(kind: str, llm: Callable[[], LLM], embedder: Callable[[], Embedder]) -> EntailmentJudge:
    """A judge by name; models are built only for the judge that needs them."""
    if kind == "llm":
        return ModelJudge(LLMJudge(llm(), stage="judge"), "llm")
    if kind == "cascade":
        return ModelJudge(Cascade(default_rules(), LLMJudge(llm(), stage="judge")), "cascade")
    if kind == "embedding":
        return EmbeddingJudge(embedder())
    if kind == "lexical":
        return LexicalJudge()
    raise UserInputError(f"unknown judge {kind!r}; use one of {', '.join(JUDGE_KINDS)}")


@dataclass
class Agreement:
    """How a judge's verdicts compare with human "supported" labels."""

    n: int
    true_positive: int
    false_positive: int
    true_negative: int
    false_negative: int

    @classmethod
    def count(cls, pairs: list[tuple[bool, bool]]) -> Agreement:
        """From ``(judged, human)`` pairs."""
        return cls(
            n=len(pairs),
            true_positive=sum(1 for j, h in pairs if j and h),
            false_positive=sum(1 for j, h in pairs if j and not h),
            true_negative=sum(1 for j, h in pairs if not j and not h),
            false_negative=sum(1 for j, h in pairs if not j and h),
        )

    def figures(self) -> dict[str, float]:
        """Accuracy, precision / recall / F1 of "supported", and the human base rate."""
        tp, fp, tn, fn = self.true_positive, self.false_positive, self.true_negative, self.false_negative
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        return {
            "n": self.n,
            "accuracy": (tp + tn) / self.n if self.n else 0.0,
            "precision_supported": precision,
            "recall_supported": recall,
            "f1_supported": 2 * precision * recall / (precision + recall) if precision + recall else 0.0,
            "human_supported_rate": (tp + fn) / self.n if self.n else 0.0,
            "judged_supported_rate": (tp + fp) / self.n if self.n else 0.0,
            "tp": tp,
            "fp": fp,
            "tn": tn,
            "fn": fn,
        }
