"""navicite from Python: a collection you add documents to, search and ask.

    from navicite import Collection

    with Collection("~/papers") as papers:
        papers.add(["reports/", "notes.md"])
        for hit in papers.search("time-dependent covariates", k=3):
            print(hit.title, hit.place, hit.snippet)
        answer = papers.ask("Which function builds time-dependent data sets?")
        print(answer.answer)
        for c in answer.citations:
            print(c.block_line(), "|", c.quote)

The command line, the HTTP server and the MCP server use this same object, so what a script
sees is what ``navicite ask`` prints.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from navicite.config import Settings, load_settings
from navicite.documents import Document, Passage, place_label
from navicite.errors import DocumentNotFound, UserInputError
from navicite.generate.answer import Answer
from navicite.index import free_text, parse_boolean
from navicite.ingest import IngestProgress, IngestSummary
from navicite.ingest.base import Failure
from navicite.ingest.records import EmptyRecord
from navicite.llm.base import LLM
from navicite.pipeline import Engine, Event, Mode
from navicite.text.utf8 import utf8_safe


@dataclass(frozen=True)
class SearchHit:
    """One passage found by :meth:`Collection.search`, with the document it belongs to and its place."""

    doc_id: str
    passage_id: str
    title: str
    score: float
    snippet: str = ""
    link: str = ""
    pages: list[int] = field(default_factory=list)
    section: list[str] = field(default_factory=list)

    @property
    def place(self) -> str:
        """``p. 12, §3.3 Title``, as far as it is known."""
        return place_label(self.pages, self.section[-1] if self.section else "")

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON (``id`` is the document's id)."""
        data = asdict(self)
        data["id"] = data.pop("doc_id")
        return data


@dataclass(frozen=True)
class LibraryEntry:
    """One document as a library lists it.

    ``kind`` is the format it was read from (``pdf``, ``md``, ``html``, ``txt``) or ``record``;
    ``pages`` is 0 without pages; ``added`` is an ISO 8601 time in UTC, empty for a document
    added before the collection kept that; ``has_file`` says whether its original file is kept.
    """

    doc_id: str
    title: str
    kind: str
    pages: int
    passages: int
    words: int
    added: str = ""
    link: str = ""
    has_file: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON (``id`` is the document's id)."""
        data = asdict(self)
        data["id"] = data.pop("doc_id")
        return data


@dataclass(frozen=True)
class PassageContext:
    """A passage with the passages around it in its document, for reading a citation in place."""

    passage: Passage
    entry: LibraryEntry
    before: list[Passage] = field(default_factory=list)
    after: list[Passage] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON: the document's entry and each passage's id, text, pages and section."""
        def part(p: Passage) -> dict[str, Any]:
            return {"id": p.id, "text": p.text, "pages": list(p.pages), "section": list(p.section)}

        return {"document": self.entry.to_dict(), "passage": part(self.passage),
                "before": [part(p) for p in self.before], "after": [part(p) for p in self.after]}


class Collection:
    """One navicite data directory: its documents, their passages and trees, and the model that answers.

    Args:
        home: the data directory (created on the first write); default ``$NAVICITE_HOME`` or ``./.navicite``.
        overrides: settings as ``section.key=value`` strings, as ``navicite -s`` takes them.
        settings: a ready :class:`~navicite.config.Settings` instead of ``home`` and ``overrides``.
        llm: the chat model to use instead of the configured one (e.g. a scripted one in tests).
        engine: an existing engine to work through (the HTTP server's), instead of a new one.
    """

    def __init__(self, home: str | Path | None = None, overrides: Sequence[str] = (), *,
                 settings: Settings | None = None, llm: LLM | None = None, engine: Engine | None = None) -> None:
        if engine is not None:  # a server's engine, shared with its other routes
            settings = engine.settings
        elif settings is None:
            settings = load_settings(Path(home).expanduser() if home is not None else None, list(overrides))
        self.settings = settings
        self.engine = engine if engine is not None else Engine(settings, llm=llm)

    # -- writing -------------------------------------------------------------------------------

    def add(self, items: str | Path | Document | Iterable[str | Path | Document], fmt: str = "auto",
            progress: Callable[[IngestProgress], None] | None = None) -> IngestSummary:
        """Add files, folders and :class:`Document` objects; a changed document replaces its old version.

        Raises:
            UserInputError: a path does not exist or the format is unknown (nothing is written).
        """
        if isinstance(items, (str, Path, Document)):
            items = [items]
        paths: list[Path] = []
        documents: list[Document] = []
        for item in items:
            if isinstance(item, Document):
                documents.append(item)
            else:
                paths.append(Path(item).expanduser())
        return self.engine.collection.ingest(paths, fmt=fmt, progress=progress, documents=documents)

    def add_read(self, items: Iterable[Document | Failure | EmptyRecord],
                 originals: dict[str, Path] | None = None) -> IngestSummary:
        """Add documents a caller has read itself (a server upload): failures and empty records are counted.

        ``originals``: document id -> the PDF it was read from, so the collection keeps a copy (the
        web viewer shows it); it may be filled while ``items`` is read.
        """
        return self.engine.collection.add(items, originals)

    def delete(self, doc_ids: str | Iterable[str]) -> list[str]:
        """Remove documents (with their passages and trees); returns the ids that existed."""
        return self.engine.collection.delete([doc_ids] if isinstance(doc_ids, str) else list(doc_ids))

    # -- reading -------------------------------------------------------------------------------

    def __len__(self) -> int:
        return self.engine.index.count()

    def get(self, doc_id: str) -> Document | None:
        """A document by id, or None."""
        return self.engine.index.get(doc_id)

    def documents(self) -> Iterator[Document]:
        """Every document, in index order."""
        for doc_id in self.engine.index.ids():
            doc = self.engine.index.get(doc_id)
            if doc is not None:
                yield doc

    def ids(self) -> list[str]:
        """Every document id, sorted."""
        return sorted(self.engine.index.ids())

    def library(self, offset: int = 0, limit: int = 200) -> tuple[int, list[LibraryEntry]]:
        """The documents newest first (those without a recorded time last, by id), ``limit`` from ``offset``.

        Returns the number of documents and the entries of the page.
        """
        ids = self.ids()
        records = self.engine.collection.records(ids)
        ids.sort(key=lambda i: -records[i].added if i in records else 0.0)  # stable: ids stay sorted among equals
        entries = []
        for doc_id in ids[offset: offset + limit]:
            entry = self.entry(doc_id, records)
            if entry is not None:  # deleted between listing and reading
                entries.append(entry)
        return len(ids), entries

    def entry(self, doc_id: str, records: dict[str, Any] | None = None) -> LibraryEntry | None:
        """A document's library entry, or None."""
        doc = self.get(doc_id)
        if doc is None:
            return None
        store = self.engine.collection
        record = (records if records is not None else store.records([doc_id])).get(doc_id)
        meta = doc.metadata
        return LibraryEntry(
            doc_id=doc.id, title=doc.title, kind=str(meta.get("format") or "record"),
            pages=meta["pages"] if isinstance(meta.get("pages"), int) else 0,
            passages=record.passages if record else len(store.passages_of(doc)),
            words=doc.word_count, link=doc.link,
            added=datetime.fromtimestamp(record.added, timezone.utc).isoformat(timespec="seconds") if record else "",
            has_file=bool(record and record.file),
        )

    def original(self, doc_id: str) -> Path | None:
        """The kept copy of the file a document was read from (PDFs added since files are kept), or None."""
        return self.engine.collection.original(doc_id)

    def context(self, passage_id: str, around: int = 1) -> PassageContext:
        """A cited passage with up to ``around`` passages before and after it in its document.

        Raises:
            DocumentNotFound: no passage has this id.
        """
        store = self.engine.collection
        passage = store.get_passage(passage_id)
        entry = self.entry(passage.doc_id) if passage is not None else None
        if passage is None or entry is None:
            raise DocumentNotFound(f"no passage with id {passage_id!r}; passage ids come from an answer's citations")
        near = (store.get_passage(replace(passage, number=n).id) for n in range(passage.number - around, passage.number))
        after = (store.get_passage(replace(passage, number=n).id) for n in range(passage.number + 1, passage.number + around + 1))
        return PassageContext(
            passage=passage, entry=entry,
            before=[p for p in near if p is not None] if not passage.whole else [],
            after=[p for p in after if p is not None] if not passage.whole else [],
        )

    def passages(self, doc_id: str) -> list[Passage]:
        """The passages a document is cut into (what answers cite).

        Raises:
            UserInputError: no document has this id.
        """
        doc = self.get(doc_id)
        if doc is None:
            raise UserInputError(f"no document with id {doc_id!r}; list ids with: navicite docs list")
        return self.engine.collection.passages_of(doc)

    def passage(self, passage_id: str) -> Passage | None:
        """A stored passage by its id (a search hit's ``passage_id``; a whole record's is its document's id), or None."""
        return self.engine.collection.get_passage(passage_id)

    def open(self) -> None:
        """Open the indexes now, repairing the passages first if a write was interrupted, so that
        the first concurrent requests of a server do not race to."""
        len(self)
        _ = self.engine.collection.passages

    def search(self, query: str, k: int = 10, boolean: bool = False, snippets: bool = True) -> list[SearchHit]:
        """The ``k`` best passages for free text (BM25), or for a Boolean query with ``boolean``.

        Raises:
            QuerySyntaxError: ``boolean`` and the query does not parse (the message says where).
        """
        query = utf8_safe(query)  # undecodable bytes of an argument or a JSON escape: replaced
        parsed = parse_boolean(query) if boolean else free_text(query)
        if parsed is None:
            return []
        store = self.engine.collection
        hits = []
        for hit in store.passages.search(parsed, k=k, snippets=snippets):
            passage = store.get_passage(hit.doc_id)
            hits.append(SearchHit(
                doc_id=passage.doc_id if passage else hit.doc_id, passage_id=hit.doc_id, title=hit.title,
                score=hit.score, snippet=hit.snippet, link=hit.link,
                pages=list(passage.pages) if passage else [], section=list(passage.section) if passage else [],
            ))
        return hits

    def ask(self, question: str, mode: Mode = "mpr", doc_ids: list[str] | None = None) -> Answer:
        """A cited answer (see :meth:`navicite.pipeline.Engine.ask_stream` for what each mode does)."""
        return self.engine.ask(question, mode, doc_ids)

    def ask_stream(self, question: str, mode: Mode = "mpr", doc_ids: list[str] | None = None) -> Iterator[Event]:
        """The steps of an answer as they happen: sources, draft pieces, then the answer."""
        return self.engine.ask_stream(question, mode, doc_ids)

    # -- lifetime ------------------------------------------------------------------------------

    def close(self) -> None:
        """Release open files (vector stores, index writers); the collection reopens them when used again."""
        self.engine.close()
        self.engine.collection.close()

    def __enter__(self) -> Collection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
