"""``GET /v1/tree/{id}``: the knowledge tree NaviRAG built for a long document."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from navicite.config import Settings
from navicite.errors import DocumentNotFound

router = APIRouter(tags=["documents"])


def open_store(settings: Settings) -> Any | None:
    """The collection's tree store, or None when no tree was ever built (the file is never created here)."""
    try:
        from navicite.navigate.store import STORE_FILE_NAME, TreeStore
    except ImportError:
        return None
    path = settings.home / STORE_FILE_NAME
    return TreeStore(path) if path.is_file() else None


@router.get("/tree/{doc_id:path}", summary="Knowledge tree of a document")
async def get_tree(doc_id: str, request: Request) -> dict[str, Any]:
    """The document's tree (nodes with titles, summaries and segment references); 404 when none was built."""

    def read() -> dict[str, Any] | None:
        store = open_store(request.app.state.settings)
        tree = store.get(doc_id) if store is not None else None
        return None if tree is None else tree.to_dict()

    tree = await run_in_threadpool(read)
    if tree is None:
        raise DocumentNotFound(
            f"no knowledge tree for document {doc_id!r}: trees are built for long documents only "
            "(navicite tree build); check the id with GET /v1/documents"
        )
    return tree
