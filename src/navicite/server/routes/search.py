"""``POST /v1/search``: BM25 search of the collection, free text or Boolean."""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from navicite.index.parse import free_text, parse_boolean
from navicite.index.query import to_text
from navicite.server.schemas import SearchRequest

router = APIRouter(tags=["search"])


@router.post("/search", summary="Search the collection")
async def search(body: SearchRequest, request: Request) -> dict[str, Any]:
    """Top ``k`` documents for a query; a Boolean query that does not parse is a 400 naming the position."""
    query = parse_boolean(body.query) if body.boolean else free_text(body.query)
    index = request.app.state.engine.index
    started = time.perf_counter()
    # free text without a searchable word (only punctuation, say) matches nothing
    hits = [] if query is None else await run_in_threadpool(index.search, query, body.k, body.snippets)
    return {
        "query": body.query,
        "parsed": "" if query is None else to_text(query),
        "seconds": round(time.perf_counter() - started, 4),
        "hits": [hit.to_dict() for hit in hits],
    }
