"""``POST /v1/search``: BM25 search of the collection's passages, free text or Boolean."""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from navicite.api import Collection
from navicite.index.parse import free_text, parse_boolean
from navicite.index.query import to_text
from navicite.server.links import public_record
from navicite.server.schemas import SearchRequest

router = APIRouter(tags=["search"])


@router.post("/search", summary="Search the collection")
async def search(body: SearchRequest, request: Request) -> dict[str, Any]:
    """Top ``k`` passages for a query, each with its document, page and section; a Boolean query that
    does not parse is a 400 naming the position."""
    query = parse_boolean(body.query) if body.boolean else free_text(body.query)
    papers = Collection(engine=request.app.state.engine)
    started = time.perf_counter()
    # free text without a searchable word (only punctuation, say) matches nothing
    hits = [] if query is None else await run_in_threadpool(papers.search, body.query, body.k, body.boolean, body.snippets)
    return {
        "query": body.query,
        "parsed": "" if query is None else to_text(query),
        "seconds": round(time.perf_counter() - started, 4),
        "hits": [public_record(hit.to_dict(), str(request.base_url)) for hit in hits],
    }
