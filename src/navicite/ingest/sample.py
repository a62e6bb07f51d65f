"""The sample collection shipped inside the package, so a fresh install has something to ask."""

from __future__ import annotations

from pathlib import Path

#: Files in the sample folder that describe the sample rather than belong to it.
_NOT_DOCUMENTS = ("CREDITS.md", "questions.txt")


def sample_path() -> Path:
    """Folder of the bundled sample (documents, ``questions.txt`` and ``CREDITS.md``)."""
    return Path(__file__).resolve().parent.parent / "data" / "sample"


def sample_documents() -> list[Path]:
    """The sample's document files, without its credits and example questions."""
    return sorted(p for p in sample_path().iterdir() if p.is_file() and p.name not in _NOT_DOCUMENTS)


def sample_questions() -> list[str]:
    """Example questions the sample can answer, one per line of ``questions.txt``."""
    lines = (sample_path() / "questions.txt").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
