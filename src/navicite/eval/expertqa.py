"""ExpertQA claims with human support labels, to calibrate entailment judges.

Label mapping (ALCE counts a sentence as cited only when its passages entail all of it):

- ``Complete`` -> supported.
- ``Partial`` / ``Incomplete`` -> not supported: part of the claim lacks evidence,
  which an entailment judge must reject.
- ``Missing`` (no evidence given), ``N/A`` and absent labels -> left out: there is
  no premise to judge, or no human decision.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from navicite.eval.datasets import DatasetError, read_jsonl, require_field

SUPPORTED_LABELS = frozenset({"complete"})
UNSUPPORTED_LABELS = frozenset({"partial", "incomplete"})


@dataclass(frozen=True)
class ClaimExample:
    """One claim, the evidence cited for it, and the human verdict."""

    id: str
    claim: str
    evidence: str
    label: str
    supported: bool


def evidence_text(raw: str) -> str:
    """Drop ExpertQA's ``[n] URL`` header line from an evidence block."""
    head, sep, rest = raw.partition("\n\n")
    if sep and head.lstrip().startswith("[") and len(head.split()) <= 3:
        return rest.strip()
    return raw.strip()


def load_claims(path: Path) -> list[ClaimExample]:
    """Every claim with evidence and a Complete / Partial / Incomplete label, in file order."""
    claims = []
    for number, rec in read_jsonl(path):
        where = f"{path}:{number}"
        answers = require_field(rec, "answers", where, dict)
        for system, answer in answers.items():
            if not isinstance(answer, dict):
                raise DatasetError(f"{where}: answer {system!r} should be an object")
            for j, claim in enumerate(answer.get("claims") or []):
                label = str(claim.get("support") or "").strip()
                key = label.lower()
                evidence = [evidence_text(e) for e in claim.get("evidence") or [] if isinstance(e, str)]
                if key not in SUPPORTED_LABELS | UNSUPPORTED_LABELS or not evidence:
                    continue
                claims.append(
                    ClaimExample(
                        id=f"{number}/{system}/{j}",
                        claim=str(claim.get("claim_string") or ""),
                        evidence="\n\n".join(evidence),
                        label=label,
                        supported=key in SUPPORTED_LABELS,
                    )
                )
    if not claims:
        raise DatasetError(f"{path}: no claims with evidence and a Complete/Partial/Incomplete label")
    return claims


def sample_claims(claims: list[ClaimExample], limit: int | None, seed: int = 0) -> list[ClaimExample]:
    """A fixed random subset (the file is ordered by question and system, so a prefix would be skewed)."""
    if limit is None or limit >= len(claims):
        return claims
    return random.Random(seed).sample(claims, limit)
