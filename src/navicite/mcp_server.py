"""navicite as a Model Context Protocol server: a collection's search, passages and cited answers as tools.

Built on the official ``mcp`` SDK's high-level server (``MCPServer``) over
:class:`navicite.api.Collection`, so an assistant sees what ``navicite ask`` prints:

- ``search(query, k)`` -> ``{"results": [{"id", "title", "url", ...}]}``, the shape ChatGPT
  connectors and deep-research clients expect; ``id`` is a passage id, so ``fetch`` returns
  the passage the hit points at;
- ``fetch(id)`` -> ``{id, title, text, url, metadata}`` for a passage or a whole document;
- ``ask(question, mode)`` -> the cited answer: text with ``[n]`` markers and its citation
  block, the citations and the sentence records; progress goes out as MCP progress
  notifications while the answer is made;
- ``list_documents(limit)`` -> ids, titles, word counts;
- the resource template ``navicite://doc/{id}``: a document's text.

navicite's user errors (a bad id, an empty question, a model that cannot be reached) come
back as tool results with ``isError`` and the message the command line prints; the server
keeps answering. Blocking work runs in worker threads, so asks and searches overlap.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Annotated, Any, Literal, ParamSpec, TypeVar
from urllib.parse import quote

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.server.mcpserver.resources import ResourceSecurity
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from navicite import __version__
from navicite.api import Collection
from navicite.documents import Document, place_label
from navicite.errors import DocumentNotFound, NaviciteError
from navicite.generate.answer import Answer, Citation, SentenceKind
from navicite.pipeline import Event, Mode

log = logging.getLogger(__name__)

#: The scheme of document URIs, for documents without a link of their own and for resources.
DOC_URI_PREFIX = "navicite://doc/"

INSTRUCTIONS = (
    "navicite answers questions from a fixed collection of documents. Use `ask` for a cited answer "
    "(every factual sentence carries [n] markers that point to passages; sentences listed as unsupported "
    "have no verified source and must not be presented as fact). Use `search` to find passages and "
    "`fetch` to read a passage or a whole document by id; `list_documents` shows what the collection holds."
)

_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


# -- what the tools return -----------------------------------------------------------------------


class SearchResult(BaseModel):
    """One passage found by ``search``."""

    id: str = Field(description="Passage id; `fetch` returns its text.")
    title: str = Field(description="Title of the document the passage belongs to.")
    url: str = Field(description="Link to the document (with #page=N for a PDF page), or its navicite:// URI.")
    snippet: str = Field("", description="The passage's words around the match.")
    doc_id: str = Field(description="Id of the document the passage belongs to.")
    pages: list[int] = Field(default_factory=list, description="First and last page of the passage (PDFs).")
    section: list[str] = Field(default_factory=list, description="Headings enclosing the passage, outermost first.")
    place: str = Field("", description="Page and section as a label, e.g. 'p. 12, §3.3 Title'.")
    score: float = Field(0.0, description="BM25 score.")


class SearchResults(BaseModel):
    """The result of ``search``."""

    results: list[SearchResult]


class FetchResult(BaseModel):
    """A passage or a document, as ``fetch`` returns it."""

    id: str
    title: str
    text: str
    url: str
    metadata: dict[str, Any] = Field(default_factory=dict)


class CitationOut(BaseModel):
    """One entry of an answer's citation block."""

    marker: int = Field(description="The n of the [n] markers that cite this passage.")
    doc_id: str
    title: str
    pages: list[int] = Field(default_factory=list)
    section: str = ""
    place: str = ""
    passage_id: str | None = None
    quote: str = Field("", description="The sentence of the passage that best supports the claims citing it.")
    url: str


class SentenceOut(BaseModel):
    """One sentence of an answer and how it relates to the sources."""

    text: str
    kind: SentenceKind = Field(description="cited (verified source), general (needs none), unsupported (no source found), heading.")
    markers: list[int] = Field(default_factory=list)


class AskResult(BaseModel):
    """A cited answer."""

    question: str
    text: str = Field(description="The answer with [n] markers, then its citation block (and unsupported sentences, if any).")
    answer: str = Field(description="The answer with [n] markers alone.")
    language: str
    citations: list[CitationOut]
    sentences: list[SentenceOut]
    unsupported: int = Field(0, description="How many claims no source was verified for.")


class DocumentEntry(BaseModel):
    """One document of the collection."""

    id: str
    title: str
    words: int
    uri: str = Field(description="The document as an MCP resource (navicite://doc/{id}).")


class DocumentList(BaseModel):
    """The result of ``list_documents``."""

    documents: list[DocumentEntry]
    total: int = Field(description="Documents in the collection (more than listed when the limit cut the list).")


# -- links ---------------------------------------------------------------------------------------


def doc_uri(doc_id: str) -> str:
    """``navicite://doc/{id}``, the id percent-encoded so any id is one path segment."""
    return DOC_URI_PREFIX + quote(doc_id, safe="")


def document_url(doc_id: str, link: str, pages: list[int] | tuple[int, ...] = (), pdf: bool | None = None) -> str:
    """Where a reader can open a document: its link (at the first page for a PDF), else its navicite URI."""
    if not link:
        return doc_uri(doc_id)
    base = link.split("#", 1)[0]
    is_pdf = pdf if pdf is not None else base.split("?", 1)[0].lower().endswith(".pdf")
    if pages and is_pdf:
        return f"{base}#page={pages[0]}"
    return link


def _is_pdf(doc: Document | None) -> bool | None:
    """True for a document loaded from a PDF; None leaves the decision to the link's file name."""
    return None if doc is None else (doc.metadata.get("format") == "pdf" or None)


# -- errors --------------------------------------------------------------------------------------

P = ParamSpec("P")
R = TypeVar("R")


def user_errors(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R | CallToolResult]]:
    """Turn navicite's own errors into an ``isError`` tool result carrying the CLI's message.

    Anything else is a bug: it propagates, and the SDK answers with a generic tool error
    while logging the traceback, so the server stays up either way.
    """

    @functools.wraps(fn)
    async def run(*args: P.args, **kwargs: P.kwargs) -> R | CallToolResult:
        try:
            return await fn(*args, **kwargs)
        except NaviciteError as exc:
            log.info("tool %s: %s", fn.__name__, exc)
            return CallToolResult(content=[TextContent(type="text", text=str(exc))], is_error=True)

    return run


# -- progress of an answer -----------------------------------------------------------------------


class AskProgress:
    """Maps the events of :meth:`Collection.ask_stream` to MCP progress steps.

    Steps: 1 first matches, 2 sources retrieved, 3 trees navigated, 4 sources chosen,
    4-5 the draft being written, 5 the answer. The protocol wants every notification's
    progress above the last one, so each step is at least a little past the previous one
    (a heartbeat while a stage is quiet, a rewritten draft).
    """

    TOTAL = 5.0
    #: Draft words at which the writing step is half done (the step never reaches its end before the answer).
    HALF_WORDS = 60

    def __init__(self) -> None:
        self.value = 0.0
        self.words = 0
        self.activity = "finding sources"

    def _to(self, target: float) -> float:
        # Rounded here rather than when sent, so two steps never round to the same value.
        self.value = round(min(max(target, self.value + 0.001), self.TOTAL), 3)
        return self.value

    def step(self, event: Event) -> tuple[float, str] | None:
        """The progress and message for ``event``, or None when it is not worth a notification."""
        data = event.data
        if event.kind == "sources" and data.get("preliminary"):
            titles = _titles(data.get("sources", []))
            self.activity = "analysing the question"
            return self._to(1), f"first matches: {titles}; analysing the question" if titles else "analysing the question"
        if event.kind == "stage" and data.get("name") == "navigate":
            self.activity = "choosing sources"
            return self._to(3), f"navigated {data.get('documents', 0)} document tree(s): {data.get('evidence', 0)} pieces of evidence"
        if event.kind == "stage" and data.get("name") == "widen":
            self.activity = "choosing sources"
            return self._to(3), str(data.get("reason", ""))
        if event.kind == "stage":
            self.activity = "choosing sources"
            return self._to(2), f"retrieved {data.get('ranked', 0)} passages from a pool of {data.get('pool_size', 0)}"
        if event.kind == "sources":
            sources = data.get("sources", [])
            self.activity = "writing the answer"
            return self._to(4), f"reading {len(sources)} sources ({_titles(sources)}) and writing the answer"
        if event.kind == "reset":
            self.activity = "rewriting the draft"
            return self._to(self.value), "rewriting the draft in the question's language"
        if event.kind == "token":
            self.words += len(str(data.get("text", "")).split())
            share = self.words / (self.words + self.HALF_WORDS)
            return self._to(4 + share * 0.99), f"writing the answer: {self.words} words"
        if event.kind == "answer":
            answer: Answer = data["answer"]
            return self._to(self.TOTAL), f"answer ready: {len(answer.citations)} citations, {len(answer.unsupported)} unsupported"
        return None

    def heartbeat(self, seconds: float) -> tuple[float, str]:
        """A notification while no event comes (clients may take a quiet call for a dead one)."""
        return self._to(self.value), f"still {self.activity} ({seconds:.0f}s)"


def _titles(sources: list[dict[str, Any]], k: int = 3) -> str:
    names = [str(s.get("title") or s.get("doc_id") or "") for s in sources[:k]]
    more = len(sources) - k
    return "; ".join(n for n in names if n) + (f" and {more} more" if more > 0 else "")


# -- the tools -----------------------------------------------------------------------------------


class NaviciteTools:
    """The tools and the resource of one collection, callable without a protocol around them.

    Args:
        collection: the collection to serve; it is only read (searches and asks may overlap).
        heartbeat_s: seconds between progress notifications while an answer's stage is quiet.
    """

    def __init__(self, collection: Collection, heartbeat_s: float = 10.0) -> None:
        self.collection = collection
        self.heartbeat_s = heartbeat_s

    def prepare(self) -> None:
        """Open the indexes once, before requests can race to open (or rebuild) them."""
        self.collection.open()

    @user_errors
    async def search(
        self,
        query: Annotated[str, Field(description="Free text: words or a question.")],
        k: Annotated[int, Field(ge=1, le=100, description="How many passages to return.")] = 10,
    ) -> SearchResults:
        """Find the passages of the collection that best match a query (BM25).

        Each result's id is a passage id: pass it to `fetch` for the passage text, or its doc_id for the whole document.
        """
        hits = await anyio.to_thread.run_sync(functools.partial(self.collection.search, query, k))
        results = [
            SearchResult(
                id=hit.passage_id, title=hit.title or hit.doc_id, url=document_url(hit.doc_id, hit.link, hit.pages),
                snippet=hit.snippet, doc_id=hit.doc_id, pages=hit.pages, section=hit.section, place=hit.place,
                score=round(hit.score, 4),
            )
            for hit in hits
        ]
        return SearchResults(results=results)

    @user_errors
    async def fetch(
        self, id: Annotated[str, Field(description="A passage id from `search` or a document id.")]
    ) -> FetchResult:
        """Read a passage (a search result's id) or a whole document (a document id) with its title, link and place."""
        return await anyio.to_thread.run_sync(self._fetch, id)

    def _fetch(self, item_id: str) -> FetchResult:
        passage = self.collection.passage(item_id)
        doc = self.collection.get(passage.doc_id if passage is not None else item_id)
        if passage is not None and doc is not None and not passage.whole:
            section = list(passage.section)
            return FetchResult(
                id=passage.id, title=doc.title or doc.id, text=passage.text,
                url=document_url(doc.id, doc.link, passage.pages, _is_pdf(doc)),
                metadata={"doc_id": doc.id, "pages": list(passage.pages), "section": section,
                          "place": place_label(passage.pages, section[-1] if section else ""), "passage": passage.number},
            )
        if doc is None:
            raise DocumentNotFound(
                f"no passage or document with id {item_id!r}; use an id from search or list_documents"
            )
        meta: dict[str, Any] = {"doc_id": doc.id, "words": doc.word_count}
        if doc.link:
            meta["link"] = doc.link
        # Scalars only: a PDF's metadata also holds per-page offsets and its outline.
        meta.update({k: v for k, v in doc.metadata.items() if isinstance(v, (str, int, float, bool)) and k not in meta})
        return FetchResult(id=doc.id, title=doc.title or doc.id, text=document_text(doc),
                           url=document_url(doc.id, doc.link), metadata=meta)

    @user_errors
    async def ask(
        self,
        question: Annotated[str, Field(description="The question, in any language.")],
        mode: Annotated[Mode, Field(description="mpr: retrieval (default); navi: walk the documents' knowledge "
                                                "trees; hybrid: retrieval, then navigation of the best documents; auto: retrieval, "
                                                "widened to the best passage's section where it has one; a summary request reads "
                                                "the document's opening.")] = "mpr",
        ctx: Context | None = None,
    ) -> AskResult:
        """Answer a question from the collection; every factual sentence cites the passages that support it.

        Takes from seconds to minutes (a local model writes the answer); progress is reported meanwhile.
        """
        answer = await self._answer(question, mode, ctx)
        return ask_result(answer)

    async def _answer(self, question: str, mode: Mode, ctx: Context | None) -> Answer:
        events = self.collection.ask_stream(question, mode)
        progress = AskProgress()
        started = time.monotonic()
        answer: Answer | None = None
        last_token_note = 0.0
        try:
            while True:
                event = await self._next_event(events, progress, ctx, started)
                if event is None:
                    break
                if event.kind == "answer":
                    answer = event.data["answer"]
                note = progress.step(event)
                if note is None or ctx is None:
                    continue
                now = time.monotonic()
                if event.kind == "token" and now - last_token_note < 0.5:
                    continue  # a notification per draft piece would outnumber the answer's words
                last_token_note = now
                await _report(ctx, *note)
        finally:
            # After a cancellation the worker has finished its step, so the generator is idle and can be closed.
            events.close()
        if answer is None:  # pragma: no cover - ask_stream always ends with an answer or raises
            raise RuntimeError("the answer stream ended without an answer")
        return answer

    async def _next_event(self, events: Iterator[Event], progress: AskProgress, ctx: Context | None,
                          started: float) -> Event | None:
        """The stream's next event, computed in a worker thread, with heartbeats while it takes long."""
        async def beat() -> None:
            while ctx is not None:
                await anyio.sleep(self.heartbeat_s)
                await _report(ctx, *progress.heartbeat(time.monotonic() - started))

        event: Event | None = None
        failure: Exception | None = None
        async with anyio.create_task_group() as beats:
            beats.start_soon(beat)
            try:
                event = await anyio.to_thread.run_sync(next, events, None)
            except Exception as exc:  # raised below, outside the group, so it is not wrapped in an ExceptionGroup
                failure = exc
            beats.cancel_scope.cancel()
        if failure is not None:
            raise failure
        return event

    @user_errors
    async def list_documents(
        self, limit: Annotated[int, Field(ge=1, le=10_000, description="At most this many documents.")] = 50
    ) -> DocumentList:
        """List the documents in the collection: ids, titles and word counts, in index order."""
        return await anyio.to_thread.run_sync(self._list, limit)

    def _list(self, limit: int) -> DocumentList:
        listed = []
        for doc in self.collection.documents():
            if len(listed) >= limit:
                break
            listed.append(DocumentEntry(id=doc.id, title=doc.title or doc.id, words=doc.word_count, uri=doc_uri(doc.id)))
        return DocumentList(documents=listed, total=len(self.collection))

    async def read_document(self, id: str) -> str:
        """The text of a document: its title, abstract and body."""
        doc = await anyio.to_thread.run_sync(self.collection.get, id)
        if doc is None:
            raise ResourceNotFoundError(f"no document with id {id!r}; list ids with the list_documents tool")
        return document_text(doc, with_title=True)


async def _report(ctx: Context, progress: float, message: str) -> None:
    try:
        await ctx.report_progress(progress, AskProgress.TOTAL, message)
    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
        pass  # the client went away; the answer is still cached for the next time


def document_text(doc: Document, with_title: bool = False) -> str:
    """A document's words as one text: (title,) abstract, body."""
    parts = [doc.title] if with_title and doc.title else []
    parts += [part for part in (doc.abstract, doc.text) if part.strip()]
    return "\n\n".join(parts)


def citation_out(citation: Citation, pdf: bool | None = None) -> CitationOut:
    """A citation with the link a reader can open."""
    return CitationOut(
        marker=citation.marker, doc_id=citation.doc_id, title=citation.title or citation.doc_id,
        pages=list(citation.pages), section=citation.section, place=citation.place,
        passage_id=citation.passage_id, quote=citation.quote,
        url=document_url(citation.doc_id, citation.link, citation.pages, pdf),
    )


def ask_result(answer: Answer) -> AskResult:
    """The answer as the ``ask`` tool returns it; ``text`` reads on its own, as ``navicite ask`` prints it."""
    citations = [citation_out(c) for c in answer.citations]
    text = answer.answer.strip()
    if citations:
        text += "\n\n" + "\n".join(
            f"[{c.marker}] {c.title}" + "".join(f" — {part}" for part in (c.place, c.url) if part) for c in citations
        )
    unsupported = answer.unsupported
    if unsupported:
        text += "\n\nNo source supports these sentences:\n" + "\n".join(f"⚠ {s.text}" for s in unsupported)
    return AskResult(
        question=answer.question, text=text, answer=answer.answer, language=answer.language,
        citations=citations,
        sentences=[SentenceOut(text=s.text, kind=s.kind, markers=list(s.markers)) for s in answer.sentences],
        unsupported=len(unsupported),
    )


def create_server(collection: Collection, *, heartbeat_s: float = 10.0,
                  log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "WARNING") -> MCPServer:
    """An MCP server over ``collection`` with the tools ``search``, ``fetch``, ``ask``, ``list_documents``
    and the resource template ``navicite://doc/{id}``; run it with ``.run()`` or mount ``.streamable_http_app()``."""
    tools = NaviciteTools(collection, heartbeat_s=heartbeat_s)
    tools.prepare()
    server: MCPServer = MCPServer(
        "navicite", title="navicite", version=__version__, instructions=INSTRUCTIONS,
        description="Cited answers, search and passages over one navicite document collection.",
        log_level=log_level,
    )
    server.add_tool(tools.search, title="Search passages", annotations=_READ_ONLY)
    server.add_tool(tools.fetch, title="Fetch a passage or document", annotations=_READ_ONLY)
    server.add_tool(tools.ask, title="Ask with citations", annotations=_READ_ONLY)
    server.add_tool(tools.list_documents, title="List documents", annotations=_READ_ONLY)
    # Ids are index keys, never file paths: the SDK's path-traversal checks would only refuse odd ids.
    server.resource(DOC_URI_PREFIX + "{id}", name="document", title="A navicite document",
                    description="A document's title, abstract and text.", mime_type="text/plain",
                    security=ResourceSecurity(exempt_params={"id"}))(tools.read_document)
    return server
