"""Building trees for a collection: which documents need one, build, validate, store.

A document gets a tree when it has more than ``navigate.min_document_words``
words. Structure first: a document with a plausible outline or headings gets a tree
shaped by them (:mod:`navicite.navigate.structure`), where the model only writes short
summaries (:mod:`navicite.navigate.summarise`); any other document is organised by the
model (:mod:`navicite.navigate.organise`). A stored tree that matches the document's
fingerprint and the build parameters of its path is kept; anything else is rebuilt.
Building one document writes only its own row in the store.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from navicite.config import Settings
from navicite.documents import Document, Passage
from navicite.errors import DocumentNotFound
from navicite.index.base import LexicalIndex
from navicite.llm.base import LLM, usage_scope
from navicite.navigate.ask import REQUESTS_PER_CALL, CallBudget
from navicite.navigate.organise import BuildProgress, Organiser, ProgressFn, build_cost, cost_of
from navicite.navigate.store import TreeStore, build_params
from navicite.navigate.structure import Structure, structure_of, structure_tree
from navicite.navigate.summarise import Summariser
from navicite.navigate.tree import BuildCost, KnowledgeTree
from navicite.navigate.validate import TreeInvariantError, check
from navicite.text.passages import WHOLE_RECORD_FACTOR, cut_passages
from navicite.text.segments import segment

#: The stages of a structure tree's build.
STRUCTURE_STAGES = ("tree_summarise",)

#: ``left``: a document without usable headings, not organised because the build may not call the model.
Status = Literal["built", "current", "short", "failed", "left"]


@dataclass
class BuildOutcome:
    """What happened to one document."""

    doc_id: str
    status: Status
    cost: BuildCost | None = None
    nodes: int = 0
    error: str | None = None
    #: Where the tree's shape comes from: "outline", "headings" or "llm" (None: no tree considered).
    source: str | None = None
    #: Why the model organised the document: no outline or headings, or implausible ones.
    fallback: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON."""
        return {
            "doc_id": self.doc_id,
            "status": self.status,
            "source": self.source,
            "fallback": self.fallback,
            "nodes": self.nodes,
            "cost": self.cost.to_dict() if self.cost else None,
            "error": self.error,
        }


class TreeBuilder:
    """Builds and stores the trees of long documents."""

    def __init__(self, settings: Settings, llm: LLM, store: TreeStore | None = None, progress: ProgressFn | None = None,
                 structure_only: bool = False) -> None:
        """``structure_only``: build only from outlines and headings (documents without them are ``left``)."""
        self.settings = settings
        self.llm = llm
        self.structure_only = structure_only
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
        structure = self.structure(document)
        source = structure.source if structure.usable else "llm"
        fallback = None if structure.usable else structure.problem
        params = build_params(self.settings, structure.source) if structure.usable else self.params
        if not force and self._current(document, params):
            return BuildOutcome(document.id, "current", source=source, fallback=fallback)
        if self.structure_only and not structure.usable:
            return BuildOutcome(document.id, "left", source=source, fallback=fallback)
        try:
            tree = self.organise(document)
            self.store.put(tree, params)
        except TreeInvariantError as exc:
            if self.store.fingerprint(document.id) not in (None, document.fingerprint):
                self.store.delete([document.id])  # the old tree describes a text that is gone
            return BuildOutcome(document.id, "failed", error=str(exc), source=source, fallback=fallback)
        return BuildOutcome(document.id, "built", tree.cost, nodes=sum(1 for _ in tree.nodes()), source=source, fallback=fallback)

    def _current(self, document: Document, params: dict[str, Any]) -> bool:
        """Whether the stored tree is current; a build without the model also keeps a current tree
        whose summaries the model wrote (it is the better one)."""
        if self.store.is_current(document.id, document.fingerprint, params):
            return True
        written = {k: v for k, v in params.items() if k != "summaries"}
        return self.structure_only and written != params and self.store.is_current(document.id, document.fingerprint, written)

    def structure(self, document: Document) -> Structure:
        """The document's usable outline or headings, or why the model organises it (no model call)."""
        if self.settings.navigate.structure == "llm":
            return Structure("", [], "navigate.structure is 'llm'")
        structure = structure_of(document)
        if structure.usable and document.word_count <= WHOLE_RECORD_FACTOR * self.settings.ingest.passage_words:
            # Its one passage is the whole record (the document's own id): no sections to cut it by.
            return Structure(structure.source, structure.sections, "one passage only: too short to follow its headings")
        return structure

    def organise(self, document: Document) -> KnowledgeTree:
        """The validated tree of ``document`` (not stored): from its structure when usable, else by the model."""
        structure = self.structure(document)
        if structure.usable:
            return self._from_structure(document, structure)
        ingest = self.settings.ingest
        segments = segment(document, ingest.segment_words, ingest.segment_overlap)
        return Organiser(self.llm, self.settings, self.progress).run(document, segments)

    def _passages(self, document: Document) -> list[Passage]:
        return cut_passages(document, self.settings.ingest.passage_words)

    def _from_structure(self, document: Document, structure: Structure) -> KnowledgeTree:
        """Shape the tree from ``structure``, then let the model summarise its inner nodes
        (``navigate.summaries=extractive``: they keep their opening sentences).

        The call budget is the one the model's organisation would have had for this document
        (``navigate.max_calls_per_segment`` per segment, at least one call); summaries it declines
        keep their fallback.
        """
        started = time.perf_counter()
        passages = self._passages(document)
        ingest, per_segment = self.settings.ingest, self.settings.navigate.max_calls_per_segment
        segments = len(segment(document, ingest.segment_words, ingest.segment_overlap))
        # At least one call (with its repair), as the model's organisation makes at least one select call.
        budget = CallBudget(max(REQUESTS_PER_CALL, math.floor(per_segment * segments))) if per_segment else CallBudget()
        with usage_scope() as calls:
            tree, fixed = structure_tree(document, passages, structure, self.settings.navigate)

            def report(done: int, total: int) -> None:
                if self.progress is not None:
                    cost = cost_of(calls, STRUCTURE_STAGES)
                    self.progress(BuildProgress(document.id, "summarise", done, total, cost.calls, cost.prompt_tokens + cost.completion_tokens))

            if self.settings.navigate.summaries == "model":
                report(0, 1)
                summariser = Summariser(self.llm, self.settings, budget, self.store.memo(document.id))
                tree.memo = summariser.run(tree, fixed, report)
        check(tree)
        tree.cost = build_cost(calls, STRUCTURE_STAGES, budget, started, document, len(passages))
        return tree

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
