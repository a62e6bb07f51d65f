"""Read the development corpora and question sets the reranker is trained from.

Every reader returns plain :class:`Passage` objects (id, title, text), so the
group builders do not care which benchmark a passage came from.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from navicite.errors import UserInputError


@dataclass(frozen=True)
class Passage:
    """One retrievable text: a SciFact abstract or a Wikipedia paragraph."""

    pid: str
    title: str
    text: str

    def as_text(self) -> str:
        """The form the reranker reads at run time: title, newline, body (as navicite's retrievers build it)."""
        return f"{self.title}\n{self.text}"


def read_text(path: Path) -> str:
    """A data file's text, with a clear error naming the file when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserInputError(f"{path}: cannot read ({exc.strerror}); pass --data-dir pointing at the shared data folder") from exc


def read_json(path: Path) -> Any:
    """Parse a JSON file (see :func:`read_text`); broken JSON is a user error too."""
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise UserInputError(f"{path}: not valid JSON ({exc})") from exc


def scifact_corpus(path: Path) -> list[Passage]:
    """A BEIR ``corpus.jsonl`` (``_id``, ``title``, ``text``)."""
    passages = []
    for line in read_text(path).splitlines():
        if line.strip():
            row = json.loads(line)
            passages.append(Passage(f"scifact:{row['_id']}", row.get("title", ""), row.get("text", "")))
    return passages


def title_text_corpus(path: Path, prefix: str) -> list[Passage]:
    """A HippoRAG corpus: a list of ``{title, text}`` or a mapping title -> sentences."""
    data = read_json(path)
    if isinstance(data, dict):
        rows = [(title, "".join(sentences) if isinstance(sentences, list) else str(sentences)) for title, sentences in data.items()]
    else:
        rows = [(row["title"], row["text"]) for row in data]
    return [Passage(f"{prefix}:{i}", title, text.strip()) for i, (title, text) in enumerate(rows)]
