"""The engine: one collection, its index and model, and the path of a question through them.

``Engine.ask`` finds evidence and then runs CiteG over it; ``Engine.ask_stream`` does
the same while yielding :class:`Event` objects (stage progress, draft text, the final
answer) for the terminal and the HTTP API. How evidence is found is the mode:

- ``mpr``: MPR retrieval over passages with reranking; each ranked passage is one source
  (``generate.evidence=document``: each ranked document, its text cut to the budget);
- ``navi``: the knowledge trees of the given documents (default: every document with a
  current tree) are navigated; each evidence item is one source with its path;
- ``hybrid``: MPR ranks documents; the best ranked ones that have a current tree are
  navigated and their evidence replaces the whole document, the others stay as they are;
- ``auto``: ``mpr``, and when the best passage sits under a heading of its document, the passages
  of its section join it nearest first (``navigate.widen_share`` of the reading budget; no model
  call, no tree): evidence at the granularity of a section; a question asking for a summary reads
  the opening passages of the best passage's document instead. Stage ``widen`` says which and why.

Parts are created on first use, so commands that only search never load the model.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal

from navicite import rerank
from navicite.config import Settings
from navicite.collection import CollectionStore
from navicite.documents import Document, Passage
from navicite.errors import DocumentNotFound, UserInputError
from navicite.generate.answer import Answer, Source
from navicite.generate.citeg import CiteG, Chosen
from navicite.generate.sources import context_budget
from navicite.index.base import Hit, LexicalIndex
from navicite.llm.base import LLM
from navicite.llm.deadline import deadline
from navicite.navigate.evidence import Navigation
from navicite.navigate.navigator import Navigator
from navicite.navigate.sources import evidence_sources, navigation_trace, paths_taken
from navicite.navigate.store import TreeStore
from navicite.navigate.tree import KnowledgeTree
from navicite.navigate.widen import asks_for_summary, opening, sectioned, widen
from navicite.retrieve.mpr import MPRResult, MultiPortfolioRetriever
from navicite.stages import StageRecorder, in_one_context
from navicite.text.utf8 import utf8_safe
from navicite.text.passages import passage_link

Mode = Literal["mpr", "navi", "hybrid", "auto"]
MODES: tuple[str, ...] = ("mpr", "navi", "hybrid", "auto")
NO_TREES_HINT = "build them with: navicite tree build [DOC...]"

EventKind = Literal["stage", "sources", "token", "reset", "answer"]


@dataclass(frozen=True)
class Event:
    """One step of a streamed answer.

    ``stage``: a stage finished (``data`` has its name, seconds and a summary);
    ``sources``: the sources the draft will read (``data["sources"]``: number, title, pages, section, ...);
    first, with ``data["preliminary"]``, the flat question's best passages while the question is analysed;
    ``token``: a piece of the draft; ``reset``: the draft is being rewritten, clear it;
    ``answer``: the final :class:`Answer` (``data["answer"]``).
    """

    kind: EventKind
    data: dict[str, Any] = field(default_factory=dict)


def _put_first(passages: list[Passage], lifted: set[str], doc: Document, best: Source, sources: list[Source]) -> list[Source]:
    """``passages`` as sources (the ranking's own where it has them) before the rest of ``sources``;
    those in ``lifted`` carry at least ``best``'s score, so the reading budget's floor lets them in."""
    by_id = {s.passage_id: s for s in sources if s.passage_id}
    chosen = [by_id.get(p.id) or passage_source(p, doc, best.score, best.round) for p in passages]
    chosen = [replace(s, score=max(s.score, best.score)) if s.passage_id in lifted else s for s in chosen]
    taken = {s.passage_id for s in chosen}
    return chosen + [s for s in sources if s.passage_id not in taken]


class Engine:
    """Everything needed to answer questions over one data directory."""

    def __init__(self, settings: Settings, llm: LLM | None = None, index: LexicalIndex | None = None) -> None:
        rerank.check_backend(settings.rerank.backend)  # a misspelt backend fails here, not at the first question
        self.settings = settings
        self._llm = llm
        self._index = index
        self._lock = threading.RLock()

    # -- parts, created on first use ---------------------------------------------------------

    @property
    def index(self) -> LexicalIndex:
        """The collection's lexical index."""
        with self._lock:
            if self._index is None:
                from navicite import index as index_package

                self._index = index_package.create(self.settings)
            return self._index

    @property
    def llm(self) -> LLM:
        """The configured chat model."""
        with self._lock:
            if self._llm is None:
                from navicite import llm as llm_package

                self._llm = llm_package.create(self.settings)
            return self._llm

    @cached_property
    def collection(self) -> CollectionStore:
        """The collection: its documents, passages and trees, written through one object."""
        with self._lock:
            return CollectionStore(self.settings, documents=self.index)

    @property
    def by_passage(self) -> bool:
        """Whether sources are passages (the default) rather than whole documents cut to the budget."""
        return self.settings.generate.evidence == "passages"

    @cached_property
    def retriever(self) -> MultiPortfolioRetriever:
        """The MPR stage over the passages (statistical analysis when ``llm.backend`` is none)."""
        from navicite.retrieve.mpr import create_retriever

        with self._lock:  # two first requests at once must not build two rerankers
            llm = None if self.settings.llm.backend == "none" else self.llm
            searched = self.collection.passages if self.by_passage else self.index
            return create_retriever(self.settings, index=searched, llm=llm)

    @property
    def trees(self) -> TreeStore | None:
        """The collection's tree store, or None while no tree was ever built (nothing is created)."""
        return TreeStore.existing(self.settings)

    @cached_property
    def navigator(self) -> Navigator:
        """The navigation agent (memory variant when ``navigate.memory`` is set)."""
        with self._lock:
            return Navigator(self.llm, self.settings)

    @cached_property
    def citeg(self) -> CiteG:
        """The CiteG stage."""
        with self._lock:
            return CiteG(self.llm, self.settings)

    def close(self) -> None:
        """Release the files the retriever holds open (its vector stores); a later question opens them again."""
        with self._lock:
            retriever = self.__dict__.pop("retriever", None)
        if retriever is not None:
            retriever.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- questions ---------------------------------------------------------------------------

    def retrieve(self, question: str) -> MPRResult:
        """Candidates for ``question``, reranked, with provenance."""
        return self.retriever.run(_checked(question))

    def sources(self, result: MPRResult) -> list[Source]:
        """The ranked candidates as CiteG sources: passages with their place, or whole documents."""
        out: list[Source] = []
        for candidate in result.ranked:
            if self.by_passage:
                passage = self.collection.get_passage(candidate.doc_id)
                doc = None if passage is None else self.index.get(passage.doc_id)
                if passage is not None and doc is not None:
                    out.append(passage_source(passage, doc, candidate.score, candidate.round))
            elif (doc := self.index.get(candidate.doc_id)) is not None:
                out.append(_source(doc, candidate.score, candidate.round))
        return out

    def ask(self, question: str, mode: Mode = "mpr", doc_ids: list[str] | None = None) -> Answer:
        """A cited answer to ``question`` (``doc_ids``: the documents mode ``navi`` navigates)."""
        answer: Answer | None = None
        for event in self.ask_stream(question, mode, doc_ids):
            if event.kind == "answer":
                answer = event.data["answer"]
        assert answer is not None
        return answer

    def ask_stream(self, question: str, mode: Mode = "mpr", doc_ids: list[str] | None = None) -> Iterator[Event]:
        """The steps of answering ``question``, ending with an ``answer`` event.

        Raises:
            UserInputError: empty question, unknown mode, ``doc_ids`` outside mode navi, no
                tree to navigate in mode navi, or nothing found.
            DocumentNotFound: a ``doc_ids`` entry names no document of the collection.
            DeadlineExceeded: the answer took longer than ``llm.answer_timeout_s``.
        """
        # Every step in one context: the stages' usage scopes span the steps (the draft is streamed),
        # and so does the answer's one deadline.
        yield from in_one_context(self._within_deadline(question, mode, doc_ids))

    def _within_deadline(self, question: str, mode: Mode, doc_ids: list[str] | None) -> Iterator[Event]:
        """The answer's events, all of its model calls done within ``llm.answer_timeout_s``."""
        with deadline(self.settings.llm.answer_timeout_s):
            yield from self._events(question, mode, doc_ids)

    def _events(self, question: str, mode: Mode, doc_ids: list[str] | None) -> Iterator[Event]:
        question = _checked(question)
        if mode not in MODES:
            raise UserInputError(f"unknown mode {mode!r}; choose one of: {', '.join(MODES)}")
        if doc_ids and mode != "navi":
            raise UserInputError(f"documents can only be chosen in mode navi (asked for mode {mode}); add --mode navi")
        # Every stage of the answer, retrieval and navigation here and CiteG's own: the answer is
        # assembled once, with all their seconds and model calls.
        recorder = StageRecorder()
        if mode == "navi":
            targets = [(doc, tree, 1.0) for doc, tree in self._navigable(doc_ids)]
            sources: list[Source] = []
        else:
            with recorder.stage("retrieve", question=question, mode=mode) as out:
                # The flat question's best passages take milliseconds: shown while the model analyses it.
                flat = self.retriever.flat_hits(question)
                yield Event("sources", {"sources": self._preview(flat), "preliminary": True})
                result = self.retriever.run(question, flat=flat)
                out.update(result.to_dict())
            yield Event("stage", {"name": "retrieve", "seconds": recorder.last.seconds, "pool_size": len(result.pool),
                                  "ranked": len(result.ranked), "analysis": result.analysis.to_dict(),
                                  "rounds": [r.to_dict() for r in result.rounds], "stopped": result.stopped})
            sources = self.sources(result)
            targets = self._hybrid_targets(sources) if mode == "hybrid" else []
            if mode == "auto":
                sources = self.widen_sources(question, sources, recorder)
                yield Event("stage", {"name": "widen", "seconds": recorder.last.seconds, **recorder.last.outputs})
        if targets:
            navigated = self._navigate(question, targets, recorder)
            stage = recorder.last
            yield Event("stage", {"name": "navigate", "seconds": stage.seconds, "documents": len(targets),
                                  "evidence": stage.outputs["evidence"], "paths": stage.outputs["paths"]})
            sources = _replace_documents(sources, navigated)
        if not sources:
            raise UserInputError(
                "no document in the collection matches this question; ingest documents first "
                "(navicite ingest PATH) or rephrase it"
                if mode != "navi" else
                "navigation found no evidence for this question in the chosen documents; rephrase it or try --mode hybrid"
            )
        for piece in self.citeg.stream(question, sources, recorder):
            if isinstance(piece, Chosen):
                yield Event("sources", {"sources": piece.to_dict()})
            elif isinstance(piece, Answer):
                yield Event("answer", {"answer": piece})
            elif piece == "\f":
                yield Event("reset")
            else:
                yield Event("token", {"text": piece})

    def _preview(self, hits: list[Hit], k: int = 5) -> list[dict[str, Any]]:
        """The first ``k`` flat hits in the shape of a ``sources`` event."""
        out = []
        for number, hit in enumerate(hits[:k], start=1):
            passage = self.collection.get_passage(hit.doc_id) if self.by_passage else None
            source = Source(passage.doc_id if passage else hit.doc_id, hit.title, "", hit.link, hit.score,
                            passage_id=hit.doc_id, pages=passage.pages if passage else (),
                            section=passage.section if passage else ())
            out.append(source.listing(number))
        return out

    def widen_sources(self, question: str, sources: list[Source], recorder: StageRecorder) -> list[Source]:
        """Mode auto: ``sources`` with the best passage's section mates after it, when it has a section (stage ``widen``);
        for a question asking for a summary, the opening passages of the best passage's document instead.

        The mates carry the best passage's score (where theirs is lower), so the reading budget's score
        floor lets them in: they are read for their place, not for their words.
        """
        with recorder.stage("widen", candidates=len(sources)) as out:
            by_id = {s.passage_id: s for s in sources if s.passage_id}
            ranked = [p for s in sources if s.passage_id and (p := self.collection.get_passage(s.passage_id))]
            doc = self.index.get(ranked[0].doc_id) if self.by_passage and ranked else None
            best = by_id[ranked[0].id] if ranked else None
            if doc is not None and best is not None and asks_for_summary(question):
                lead = opening(self.collection.passages_of(doc), context_budget(self.settings))
                out.update(choice="opening", added=sum(p.id not in by_id for p in lead),
                           reason=f"the question asks for a summary: read the opening of {doc.title!r} ({len(lead)} passages)")
                return _put_first(lead, {p.id for p in lead}, doc, best, sources)
            if doc is None or not sectioned(ranked):
                out.update(choice="flat", reason="kept flat retrieval: the best passage sits under no heading")
                return sources
            widened = widen(ranked, lambda _id: self.collection.passages_of(doc), context_budget(self.settings),
                            self.settings.navigate.widen_share)
            out.update(choice="section", section=list(widened.section), added=widened.added,
                       reason=f"widened the best passage to its section {widened.section[-1]!r} of {doc.title!r} "
                       f"(+{widened.added} passages)")
            return _put_first(widened.passages, set(widened.mates), doc, best, sources)

    # -- navigation ------------------------------------------------------------------------------

    def _navigable(self, doc_ids: list[str] | None) -> list[tuple[Document, KnowledgeTree]]:
        """The documents (with their current trees) mode navi walks."""
        store = self.trees
        wanted = list(dict.fromkeys(doc_ids or []))
        for doc_id in wanted:
            if self.index.get(doc_id) is None:
                raise DocumentNotFound(f"no document with id {doc_id!r}; list ids with: navicite docs list")
        ids = wanted or (store.doc_ids() if store else [])
        found = []
        for doc_id in ids:
            pair = self._current_tree(store, doc_id)
            if pair is not None:
                found.append(pair)
            elif wanted:
                raise UserInputError(f"document {doc_id!r} has no up-to-date knowledge tree; {NO_TREES_HINT.replace('[DOC...]', doc_id)}")
        if not found:
            raise UserInputError(f"mode navi needs knowledge trees and no document has one; {NO_TREES_HINT}")
        return found

    def _current_tree(self, store: TreeStore | None, doc_id: str) -> tuple[Document, KnowledgeTree] | None:
        """The document and its tree, if the tree was built from the document's current text."""
        if store is None:
            return None
        doc = self.index.get(doc_id)
        tree = store.get(doc_id) if doc is not None else None
        if doc is None or tree is None or tree.fingerprint != doc.fingerprint:
            return None
        return doc, tree

    def _hybrid_targets(self, sources: list[Source]) -> list[tuple[Document, KnowledgeTree, float]]:
        """The best ranked retrieved documents that have a current tree (at most ``navigate.hybrid_documents``)."""
        store = self.trees
        if store is None:
            return []
        with_tree = set(store.doc_ids())
        targets = []
        for source in sources:
            if len(targets) >= self.settings.navigate.hybrid_documents:
                break
            pair = self._current_tree(store, source.doc_id) if source.doc_id in with_tree else None
            if pair is not None:
                targets.append((*pair, source.score))
        return targets

    def _navigate(
        self, question: str, targets: list[tuple[Document, KnowledgeTree, float]], recorder: StageRecorder
    ) -> dict[str, list[Source]]:
        """Navigate each target's tree as stage ``navigate`` of ``recorder``; the evidence sources per document."""
        inputs = {"question": question, "documents": [doc.id for doc, _, _ in targets], "memory": self.navigator.memory}
        with recorder.stage("navigate", **inputs) as out:
            navigations: list[Navigation] = []
            navigated: dict[str, list[Source]] = {}
            # Each document's fill tops up to its share of the answer's reading budget.
            share = self.settings.generate.context_budget_tokens // max(1, len(targets))
            fill = min(self.settings.navigate.fill_tokens, share)
            for doc, tree, score in targets:
                navigation = self.navigator.run(question, tree, fill)
                navigations.append(navigation)
                navigated[doc.id] = evidence_sources(navigation, doc, score)
            out.update(
                evidence=sum(len(n.evidence) for n in navigations),
                paths=[p for n in navigations for p in paths_taken(n)],
                navigations=[navigation_trace(n) for n in navigations],
            )
        return navigated


def _checked(question: str) -> str:
    # Undecodable bytes of a command-line argument, a JSON "\ud800": replaced, not a crash in the embedder.
    text = utf8_safe(question or "").strip()
    if not text:
        raise UserInputError("the question is empty; ask something, e.g. navicite ask \"What causes X?\"")
    return text


def passage_source(passage: Passage, doc: Document, score: float, found_in: int = 1) -> Source:
    """A passage as a CiteG source, with its page(s), section and the retrieval round that found it."""
    return Source(doc_id=doc.id, title=doc.title, text=passage.text, link=passage_link(doc, passage), score=score,
                  passage_id=passage.id, pages=passage.pages, section=passage.section, position=passage.number,
                  round=found_in)


def _source(doc: Document, score: float, found_in: int = 1) -> Source:
    text = "\n".join(part for part in (doc.abstract, doc.text) if part)
    return Source(doc_id=doc.id, title=doc.title, text=text, link=doc.link, score=score, round=found_in)


def _replace_documents(sources: list[Source], navigated: dict[str, list[Source]]) -> list[Source]:
    """``sources`` with each navigated document's sources replaced by its evidence, where its first one stood.

    Documents navigated but not among ``sources`` (mode navi) follow in navigation order.
    """
    out: list[Source] = []
    placed: set[str] = set()
    for source in sources:
        if source.doc_id not in navigated:
            out.append(source)
        elif source.doc_id not in placed:  # a document's passages give way to its evidence, once
            placed.add(source.doc_id)
            out.extend(navigated[source.doc_id])
    listed = {s.doc_id for s in sources}
    for doc_id, evidence in navigated.items():
        if doc_id not in listed:
            out.extend(evidence)
    return out

