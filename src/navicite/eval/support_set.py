"""The labelled support set: (claim, cited passages) pairs with a reader's label (``navicite/data/support``;
people for ExpertQA and SciFact, an assistant reading session for the hand-written parts).

Each line of the set's JSONL files is one pair: ``claim``, ``passages`` (``title``, ``text``),
``label`` (``supported``, ``partly`` or ``not_supported``), ``reason`` (wrong subject, wrong
number, not stated, contradicted), ``source`` and ``id``. How each part was made is in the
folder's README. A pair belongs to the held-out part or the tuning part by a hash of its claim
and passages (:func:`held_out`), so the split never depends on file order and no rule can be
tuned on the held-out part by accident.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from collections.abc import Callable

from navicite.config import Settings
from navicite.eval.datasets import DatasetError
from navicite.eval.judge import Agreement, EntailmentJudge
from navicite.support.base import Passage
from navicite.support.llm import titled

LABELS = ("supported", "partly", "not_supported")
#: Share of pairs in the held-out part, in fifths of the hash space.
_HELD_OUT_FIFTHS = 2


@dataclass(frozen=True)
class SupportPair:
    """A claim, the passages it cites, and a person's label."""

    id: str
    claim: str
    passages: tuple[Passage, ...]
    label: str
    reason: str
    source: str

    @property
    def supported(self) -> bool:
        """Whether the passages support all of the claim ("partly" is not support)."""
        return self.label == "supported"

    @property
    def digest(self) -> str:
        """Hash of the claim and passages: the pair's place in the split and its order."""
        text = "\n".join([self.claim, *(f"{p.title}\n{p.text}" for p in self.passages)])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def held_out(pair: SupportPair) -> bool:
    """Whether ``pair`` is in the held-out part (two fifths of the set, by hash)."""
    return int(pair.digest[:8], 16) % 5 < _HELD_OUT_FIFTHS


def default_folder() -> Path:
    """The set shipped with navicite."""
    return Path(str(files("navicite") / "data" / "support"))


def load_support_set(folder: Path | None = None) -> list[SupportPair]:
    """Every pair of every ``*.jsonl`` file in ``folder`` (default: the shipped set), in hash order.

    Raises:
        DatasetError: a line that is not a labelled pair, named by file and line number.
    """
    folder = folder or default_folder()
    paths = sorted(folder.glob("*.jsonl"))
    if not paths:
        raise DatasetError(f"{folder}: no labelled pairs (*.jsonl); give a folder of the support set")
    pairs = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                rec = json.loads(line)
                passages = tuple(Passage(str(p.get("title") or ""), str(p["text"])) for p in rec["passages"])
                pair = SupportPair(str(rec["id"]), str(rec["claim"]), passages, str(rec["label"]),
                                   str(rec.get("reason") or ""), str(rec.get("source") or path.stem))
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise DatasetError(f"{where}: not a labelled pair ({exc}); each line needs claim, passages, label") from exc
            if pair.label not in LABELS or not pair.passages or not pair.claim.strip():
                raise DatasetError(f"{where}: label must be one of {', '.join(LABELS)}, with a claim and passages")
            pairs.append(pair)
    return sorted(pairs, key=lambda p: p.digest)


def measure_judge(judge: EntailmentJudge, pairs: list[SupportPair],
                  progress: Callable[[int, int], None] | None = None) -> dict[str, float]:
    """Precision and recall of ``judge``'s "supported" against the person's labels on ``pairs``
    (a pair counts as supported only when labelled ``supported``; ``partly`` is not support)."""
    outcomes = []
    for done, pair in enumerate(pairs, start=1):
        premises = [titled(p.title, p.text) for p in pair.passages]
        outcomes.append((judge.entails(premises, pair.claim), pair.supported))
        if progress:
            progress(done, len(pairs))
    figures = Agreement.count(outcomes).figures()
    return {"pairs": len(pairs), "precision": figures["precision_supported"], "recall": figures["recall_supported"],
            "accuracy": figures["accuracy"], "accepted": figures["tp"] + figures["fp"], "supported": figures["tp"] + figures["fn"]}


def judge_note(kind: str, settings: Settings) -> str:
    """Which judge grades, in words; plain about a model judge being the verifier's own model."""
    if kind in ("llm", "cascade"):
        model = f"{settings.llm.backend} model {settings.llm.model}"
        return (f"judge: {kind}, the {model}: the verifier's own model asked the verifier's own question, so on "
                "answers it verified it tends to repeat its verdicts; the labelled-set figures above are the check on it")
    return f"judge: {kind} (no model)"
