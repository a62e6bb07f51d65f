"""Request bodies of the API (responses are the ``to_dict`` shapes of the engine's objects)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from navicite.text.utf8 import utf8_safe


def _safe(value: Any) -> Any:
    return utf8_safe(value) if isinstance(value, str) else value


#: Text a client wrote: a JSON "\ud800" (a lone surrogate) is replaced before validation, so it
#: neither fails it nor the embedder or the JSON reply later.
ClientText = Annotated[str, BeforeValidator(_safe)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AskRequest(_Body):
    """A question for ``POST /v1/ask``."""

    question: ClientText = Field(..., min_length=1, max_length=4000, description="The question, in any language.")
    mode: Literal["mpr", "navi", "hybrid", "auto"] = Field(
        "mpr", description="How evidence is found: mpr (retrieval), navi (knowledge trees), hybrid (both), "
        "auto (retrieval, widened to the best passage's section where it has one; a summary request reads the "
        "document's opening)."
    )
    doc_ids: list[ClientText] | None = Field(None, max_length=100, description="Mode navi: navigate only these documents.")
    stream: bool = Field(False, description="Send server-sent events (stage, token, reset, answer, error) instead of one JSON answer.")


class SearchRequest(_Body):
    """A search for ``POST /v1/search``."""

    query: ClientText = Field(..., min_length=1, max_length=4000)
    k: int = Field(10, ge=1, le=200, description="Number of hits.")
    boolean: bool = Field(False, description="Read the query as Boolean syntax (AND, OR, NOT, quotes, field:term, prefix*).")
    snippets: bool = Field(True, description="Return a snippet with the matched words marked **like this**.")


class RecordsRequest(_Body):
    """JSON records for ``POST /v1/documents`` (fields as in JSONL ingest: id, title, abstract, text, link, ...)."""

    records: list[dict[str, Any]] = Field(..., min_length=1)


class _ClientBody(BaseModel):
    """A body written by someone else's client: fields navicite does not use are ignored, not refused."""

    model_config = ConfigDict(extra="ignore")


class ChatMessage(_ClientBody):
    """One message of an OpenAI or Ollama chat; ``content`` may be OpenAI's list of parts."""

    role: str = Field(..., description="system, user, assistant, ...; only user messages are read.")
    content: str | list[dict[str, Any]] | None = None

    @property
    def text(self) -> str:
        """The message's text (the text parts of a list, joined; images and other parts are dropped)."""
        if isinstance(self.content, list):
            return utf8_safe("\n".join(str(p.get("text", "")) for p in self.content if p.get("type") == "text"))
        return utf8_safe(self.content or "")


class ChatCompletionRequest(_ClientBody):
    """``POST /v1/chat/completions``; sampling options (temperature, max_tokens, ...) are ignored."""

    model: str = Field("navicite", description="navicite (mode mpr), navicite-navi, navicite-hybrid or navicite-auto; see GET /v1/models.")
    messages: list[ChatMessage] = Field(default_factory=list, max_length=500)
    stream: bool = False
    stream_options: dict[str, Any] | None = Field(None, description="{\"include_usage\": true} adds a last chunk with usage.")


class OllamaChatRequest(_ClientBody):
    """``POST /api/chat`` as Ollama takes it; it streams unless ``stream`` is false."""

    model: str = "navicite"
    messages: list[ChatMessage] = Field(default_factory=list, max_length=500)
    stream: bool = True
