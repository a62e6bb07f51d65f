"""Test-only plugin: ``llm.backend=scripted`` for a ``navicite`` started as a subprocess.

The MCP tests start the server the way a client does, as a separate process, where a
ScriptedLLM object cannot be handed over. Importing this module registers a backend that
builds one; :data:`LAUNCHER` runs the command line after importing it:

    PYTHONPATH=tests python -c "$LAUNCHER" --home HOME -s llm.backend=scripted mcp
"""

from __future__ import annotations

import time
from typing import Any

from navicite.config import Settings
from navicite.llm import register_backend
from navicite.llm.base import Message
from navicite.llm.scripted import ScriptedLLM

#: ``python -c`` program that registers the backend, then runs ``navicite`` with the remaining arguments.
LAUNCHER = "import mcp_scripted_backend; from navicite.cli import main; main()"

#: The drafted answer; it names words of the test collection's survival-analysis passages.
DRAFT = "Data sets with time-dependent covariates are built with the tmerge function."

#: Seconds each draft takes, so that several asks are in flight at once in the concurrency test.
DRAFT_SECONDS = 0.3


def model(messages: list[Message]) -> Any:
    """An unusable analysis (the statistical fallback runs), an answer-first draft, one alignment."""
    text = "\n".join(m.content for m in messages)
    if "<source" in text and "sentences" in text and "Draft" in text:
        return {"sentences": [{"index": 1, "kind": "fact", "sources": [1]}]}
    if "<source" in text:
        time.sleep(DRAFT_SECONDS)
        return DRAFT
    return "not json"


def _scripted(settings: Settings) -> ScriptedLLM:
    return ScriptedLLM(default=model)


register_backend("scripted", _scripted)
