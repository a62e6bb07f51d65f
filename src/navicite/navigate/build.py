"""Building trees for a collection: which documents need one, build, validate, store.

A document gets a tree when it has more than ``navigate.min_document_words``
words. A stored tree that matches the document's fingerprint and the current
build parameters is kept; anything else is rebuilt. Building one document writes
only its own row in the store.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from navicite.config import Settings
from navicite.documents import Document
from navicite.errors import DocumentNotFound
from navicite.index.base import LexicalIndex
from navicite.llm.base import LLM
from navicite.navigate.organise import Organiser, ProgressFn
from navicite.navigate.store import TreeStore, build_params
from navicite.navigate.tree import BuildCost, KnowledgeTree
from navicite.navigate.validate import TreeInvariantError
from navicite.text.segments import segment

Status = Literal["built", "current", "short", "failed"]


@dataclass
class BuildOutcome:
    """What happened to one document."""

    doc_id: str
    status: Status
    cost: BuildCost | None = None
    nodes: int = 0
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON."""
        return {
            "doc_id": self.doc_id,
            "status": self.status,
            "nodes": self.nodes,
            "cost": self.cost.to_dict() if self.cost else None,
            "error": self.error,
        }


class TreeBuilder:
    """Builds and stores the trees of long documents."""

    def __init__(self, settings: Settings, llm: LLM, store: TreeStore | None = None, progress: ProgressFn | None = None) -> None:
        self.settings = settings
        self.llm = llm
        self.store = store or TreeStore.open(settings)
        self.progress = progress
        self.params = build_params(settings)

    def needs_tree(self, document: Document) -> bool:
        """Whether ``document`` is long enough to be organised."""
        return document.word_count > self.settings.navigate.min_document_words

    def build(self, document: Document, force: bool = False) -> BuildOutcome:
        """Build and store the tree of ``document`` unless a current one exists (or ``force``).

        A build that fails validation stores nothing; the tree of an earlier version of the
        document is then removed, so no one navigates a text that has changed.

        Raises:
            LLMUnavailableError: the model cannot be reached (nothing is changed).
        """
        if not self.needs_tree(document):
            return BuildOutcome(document.id, "short")
        if not force and self.store.is_current(document.id, document.fingerprint, self.params):
            return BuildOutcome(document.id, "current")
        try:
            tree = self.organise(document)
            self.store.put(tree, self.params)
        except TreeInvariantError as exc:
            if self.store.fingerprint(document.id) not in (None, document.fingerprint):
                self.store.delete([document.id])  # the old tree describes a text that is gone
            return BuildOutcome(document.id, "failed", error=str(exc))
        return BuildOutcome(document.id, "built", tree.cost, nodes=sum(1 for _ in tree.nodes()))

    def organise(self, document: Document) -> KnowledgeTree:
        """The validated tree of ``document`` (not stored)."""
        ingest = self.settings.ingest
        segments = segment(document, ingest.segment_words, ingest.segment_overlap)
        return Organiser(self.llm, self.settings, self.progress).run(document, segments)

    def build_collection(self, index: LexicalIndex, doc_ids: Iterable[str] | None = None, force: bool = False) -> list[BuildOutcome]:
        """Build the trees of ``doc_ids`` (default: every document in ``index``).

        With no ids given, trees of documents no longer in the index are removed too.

        Raises:
            DocumentNotFound: an id names no document in the index (checked before any build).
        """
        ids = list(doc_ids) if doc_ids is not None else list(index.ids())
        documents = []
        for doc_id in ids:
            document = index.get(doc_id)
            if document is None:
                raise DocumentNotFound(f"no document with id {doc_id!r} in the index; list ids with `navicite docs`")
            documents.append(document)
        if doc_ids is None:
            self.store.prune(ids)
        return [self.build(document, force) for document in documents]
