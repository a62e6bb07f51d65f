"""Turn a model's text into a validated pydantic object.

Schema-constrained backends return bare JSON; unconstrained ones often wrap it
in a Markdown code fence or add a sentence before it. :func:`parse_reply`
accepts all of these and reports a readable reason when it cannot, which the
repair prompt shows the model.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


class ReplyError(ValueError):
    """The reply is not valid JSON for the schema; the message says why, briefly."""


def json_schema_of(schema: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema sent to backends for ``schema``."""
    return schema.model_json_schema()


def extract_json_text(text: str) -> str:
    """The JSON part of ``text``: a fenced block's body, or the outermost object/array."""
    stripped = text.strip()
    fenced = _FENCE.search(stripped)
    if fenced:
        return fenced.group(1).strip()
    if stripped[:1] in "{[":
        return stripped
    starts = [i for i in (stripped.find("{"), stripped.find("[")) if i >= 0]
    if not starts:
        return stripped
    start = min(starts)
    closer = "}" if stripped[start] == "{" else "]"
    end = stripped.rfind(closer)
    return stripped[start : end + 1] if end > start else stripped[start:]


def parse_reply(text: str, schema: type[T]) -> T:
    """Parse and validate ``text`` as ``schema``.

    Raises:
        ReplyError: empty text, JSON that does not parse, or JSON that does not fit the schema.
    """
    if not text.strip():
        raise ReplyError("the reply was empty")
    body = extract_json_text(text)
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise ReplyError(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()[:5]
        )
        raise ReplyError(f"JSON does not match the schema ({problems})") from None
