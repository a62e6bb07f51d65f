"""Read the development corpora the reranker is trained from.

The corpora are read by the loaders ``navicite ingest`` and ``navicite eval`` use
(:func:`navicite.eval.datasets.beir_corpus`, :func:`~navicite.eval.datasets.title_corpus`),
so a training passage is the document a user's collection holds, seen as (id, title, text):
the group builders do not care which benchmark a passage came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from navicite.documents import Document
from navicite.eval.datasets import beir_corpus, title_corpus


@dataclass(frozen=True)
class Passage:
    """One retrievable text: a SciFact abstract or a Wikipedia paragraph.

    A view of a :class:`~navicite.documents.Document` (see :meth:`of`), or of a
    question's own paragraph; ``pid`` is prefixed by its corpus (``scifact:<id>``).
    """

    pid: str
    title: str
    text: str

    @classmethod
    def of(cls, document: Document, prefix: str) -> Passage:
        """``document`` as a passage of corpus ``prefix``: its id, title and body."""
        return cls(f"{prefix}:{document.id}", document.title, document.text or document.abstract)

    def as_text(self) -> str:
        """The form the reranker reads at run time: title, newline, body (as navicite's retrievers build it)."""
        return f"{self.title}\n{self.text}"


def scifact_corpus(path: Path) -> list[Passage]:
    """A BEIR ``corpus.jsonl``; passage ids are ``scifact:<_id>``."""
    return [Passage.of(d, "scifact") for d in beir_corpus(path)]


def title_text_corpus(path: Path, prefix: str) -> list[Passage]:
    """A HippoRAG corpus: a mapping title -> sentences, or a list of ``{title, text}``."""
    return [Passage.of(d, prefix) for d in title_corpus(path)]
