"""Request bodies of the API (responses are the ``to_dict`` shapes of the engine's objects)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AskRequest(_Body):
    """A question for ``POST /v1/ask``."""

    question: str = Field(..., min_length=1, max_length=4000, description="The question, in any language.")
    mode: Literal["mpr", "navi", "hybrid"] = Field(
        "mpr", description="How evidence is found: mpr (retrieval), navi (knowledge trees), hybrid (both)."
    )
    doc_ids: list[str] | None = Field(None, max_length=100, description="Mode navi: navigate only these documents.")
    stream: bool = Field(False, description="Send server-sent events (stage, token, reset, answer, error) instead of one JSON answer.")


class SearchRequest(_Body):
    """A search for ``POST /v1/search``."""

    query: str = Field(..., min_length=1, max_length=4000)
    k: int = Field(10, ge=1, le=200, description="Number of hits.")
    boolean: bool = Field(False, description="Read the query as Boolean syntax (AND, OR, NOT, quotes, field:term, prefix*).")
    snippets: bool = Field(True, description="Return a snippet with the matched words marked **like this**.")


class RecordsRequest(_Body):
    """JSON records for ``POST /v1/documents`` (fields as in JSONL ingest: id, title, abstract, text, link, ...)."""

    records: list[dict[str, Any]] = Field(..., min_length=1)
