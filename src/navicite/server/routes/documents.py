"""``/v1/documents``: upload (files or JSON records), list, read and delete documents.

Writes (ingest, delete) run one at a time in worker threads under the app's write
lock, so the index has a single writer; searches and answers keep running meanwhile
because readers never wait for the writer.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request, Response, status
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from navicite.errors import DocumentNotFound, UserInputError
from navicite.server.links import public_link, public_record
from navicite.server.schemas import RecordsRequest
from navicite.server.uploads import ALLOWED_SUFFIXES, UploadBatch, UploadTooLarge

router = APIRouter(tags=["documents"])

_UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {"files": {"type": "array", "items": {"type": "string", "format": "binary"}}},
                    "required": ["files"],
                }
            },
            "application/json": {"schema": RecordsRequest.model_json_schema()},
        },
    }
}


def _check_length(request: Request, limit: int) -> None:
    declared = request.headers.get("content-length")
    multipart = request.headers.get("content-type", "").lower().startswith("multipart/")
    if multipart and not (declared and declared.isdigit()):
        # the form parser would spool the whole body before the size could be checked
        raise UserInputError("a file upload needs a Content-Length header (send it, not a chunked body)")
    if declared and declared.isdigit() and int(declared) > limit:
        raise UploadTooLarge(
            f"upload of {int(declared) / 2**20:.1f} MB is larger than the limit of {limit // 2**20} MB; "
            "send fewer or smaller files or raise server.max_upload_mb"
        )


async def _read_limited(request: Request, limit: int) -> bytes:
    """The request body, refused as soon as it passes ``limit`` (also without Content-Length)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise UploadTooLarge(f"request body larger than {limit // 2**20} MB; raise server.max_upload_mb")
        chunks.append(chunk)
    return b"".join(chunks)


async def _fill(batch: UploadBatch, request: Request) -> None:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "multipart/form-data":
        form = await request.form(max_files=1000, max_fields=20)
        files = [f for f in form.getlist("files") if isinstance(f, UploadFile)]
        if not files:
            raise UserInputError("no files in the upload: send them in the multipart field 'files'")
        for upload in files:
            await run_in_threadpool(batch.add_file, upload.filename, upload.file)
    elif kind == "application/json":
        try:
            body = RecordsRequest.model_validate_json(await _read_limited(request, batch.limit))
        except ValidationError as exc:
            problem = exc.errors()[0]
            where = ".".join(str(p) for p in problem["loc"]) or "body"
            raise UserInputError(f"bad JSON body at {where}: {problem['msg']}; send {{\"records\": [{{...}}, ...]}}") from exc
        await run_in_threadpool(batch.add_records, body.records)
    else:
        raise UserInputError(
            f"unsupported content type {kind or 'none'!r}: send multipart/form-data files "
            f"({', '.join(ALLOWED_SUFFIXES)}) or application/json records"
        )


@router.post("/documents", summary="Add documents (file upload or JSON records)", openapi_extra=_UPLOAD_BODY)
async def add_documents(request: Request, response: Response) -> dict[str, Any]:
    """Ingest uploaded files (multipart field ``files``) or ``{"records": [...]}``.

    Documents with an id already in the collection are replaced. The reply is the
    ingest summary plus the ``ids`` written; 201 when something was added or replaced.
    """
    settings = request.app.state.settings
    with UploadBatch(settings) as batch:
        _check_length(request, batch.limit)
        await _fill(batch, request)
        summary = await run_in_threadpool(_locked_ingest, request, batch)
    if not summary["ids"] and summary["failed"]:
        response.status_code = 422  # every record or file failed
    elif summary["added"] or summary["replaced"]:
        response.status_code = status.HTTP_201_CREATED
    return summary


def _locked_ingest(request: Request, batch: UploadBatch) -> dict[str, Any]:
    with request.app.state.write_lock:
        return batch.ingest(request.app.state.collection)


@router.get("/documents", summary="List documents")
async def list_documents(
    request: Request,
    offset: int = Query(0, ge=0),
    limit: int = Query(50, ge=1, le=1000),
) -> dict[str, Any]:
    """Documents in id order, ``limit`` from ``offset``, with title, link and word count."""
    collection = request.app.state.collection
    base = str(request.base_url)

    def page() -> dict[str, Any]:
        ids = collection.ids()
        entries = []
        for doc_id in ids[offset: offset + limit]:
            doc = collection.get(doc_id)
            if doc is not None:  # deleted between listing and reading
                entries.append({"id": doc.id, "title": doc.title, "link": public_link(doc.link, doc.id, base),
                                "words": doc.word_count})
        return {"total": len(ids), "offset": offset, "documents": entries}

    return await run_in_threadpool(page)


@router.get("/documents/{doc_id:path}", summary="Read one document")
async def get_document(doc_id: str, request: Request) -> dict[str, Any]:
    """The stored document: id, title, abstract, text, link, metadata."""
    doc = await run_in_threadpool(request.app.state.collection.get, doc_id)
    if doc is None:
        raise DocumentNotFound(f"no document with id {doc_id!r}; GET /v1/documents lists the ids")
    return public_record(doc.to_dict(), str(request.base_url))


@router.delete("/documents/{doc_id:path}", summary="Delete one document")
async def delete_document(doc_id: str, request: Request) -> dict[str, Any]:
    """Remove the document (and its knowledge tree, if it has one)."""

    def delete() -> list[str]:
        with request.app.state.write_lock:
            return request.app.state.collection.delete([doc_id])  # with its passages, tree and kept file

    if not await run_in_threadpool(delete):
        raise DocumentNotFound(f"no document with id {doc_id!r}; nothing was deleted")
    return {"deleted": doc_id}


