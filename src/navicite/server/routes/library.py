"""What the web page reads to check a citation: the library, a document's original file, a passage in context.

``GET /v1/library`` lists documents newest first with their kind, pages, passages and the time
they were added, ``GET /v1/library/{doc_id}`` gives one document's entry (for a citation that is
not a stored passage, such as navigation evidence); ``GET /v1/files/{doc_id}`` sends the kept original (a PDF) for the page's
viewer; ``GET /v1/passages/{passage_id}`` a cited passage with its neighbours. Everything goes
through :class:`navicite.api.Collection`.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse
from starlette.concurrency import run_in_threadpool

from navicite.errors import DocumentNotFound
from navicite.server.links import public_record

router = APIRouter(tags=["library"])

#: A kept file is data for the viewer: never sniffed as another type, never run as a page of this origin.
_FILE_HEADERS = {"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox", "Cache-Control": "no-cache"}
_MEDIA_TYPES = {".pdf": "application/pdf"}


@router.get("/library", summary="List documents with kind, pages, passages and when they were added")
async def list_library(
    request: Request,
    offset: int = Query(0, ge=0),
    limit: int = Query(200, ge=1, le=1000),
) -> dict[str, Any]:
    """Documents newest first (those added before times were kept come last), ``limit`` from ``offset``."""
    total, entries = await run_in_threadpool(request.app.state.collection.library, offset, limit)
    base = str(request.base_url)
    return {"total": total, "offset": offset, "documents": [public_record(e.to_dict(), base) for e in entries]}


@router.get("/library/{doc_id:path}", summary="One document's library entry")
async def library_entry(doc_id: str, request: Request) -> dict[str, Any]:
    """The document's kind, pages, passages, time added and whether its original file is kept."""
    entry = await run_in_threadpool(request.app.state.collection.entry, doc_id)
    if entry is None:
        raise DocumentNotFound(f"no document with id {doc_id!r}; GET /v1/library lists the documents")
    return public_record(entry.to_dict(), str(request.base_url))


@router.get("/files/{doc_id:path}", summary="The original file of a document (PDF)", response_class=FileResponse)
async def original_file(doc_id: str, request: Request) -> FileResponse:
    """The bytes of the file the document was read from, where the collection kept one (PDFs)."""
    path = await run_in_threadpool(request.app.state.collection.original, doc_id)
    if path is None:
        raise DocumentNotFound(f"no original file is kept for document {doc_id!r}; only PDFs added since "
                               "this version keep one (ingest the file again to keep it)")
    media = _MEDIA_TYPES.get(path.suffix.lower(), "application/octet-stream")
    return FileResponse(path, media_type=media, headers=_FILE_HEADERS, content_disposition_type="inline")


@router.get("/passages/{passage_id:path}", summary="A passage with the passages around it")
async def passage_in_context(passage_id: str, request: Request, around: int = Query(1, ge=0, le=5)) -> dict[str, Any]:
    """The passage (id, text, pages, section), its document's library entry, and ``around`` passages each side."""
    found = (await run_in_threadpool(request.app.state.collection.context, passage_id, around)).to_dict()
    return {**found, "document": public_record(found["document"], str(request.base_url))}
