"""Test-only plugin: ``llm.backend=scripted-web`` for the web page's browser tests.

``navicite serve`` runs as a subprocess there, where a ScriptedLLM object cannot be handed
over; importing this module registers a backend that builds one (run the command line with
:data:`LAUNCHER`). The scripted model drafts two sentences: one copied from the first source
(so the verifier finds it and quotes it) and one that no source states (so it stays
unsupported); it cites source 1 for both and answers anything else unusably (the statistical
fallbacks run).
"""

from __future__ import annotations

import re
from typing import Any

from navicite.config import Settings
from navicite.llm import register_backend
from navicite.llm.base import Message
from navicite.llm.scripted import ScriptedLLM

#: ``python -c`` program that registers the backend, then runs ``navicite`` with the remaining arguments.
LAUNCHER = "import web_scripted_backend; from navicite.cli import main; main()"

#: The drafted sentence that no source supports.
UNSUPPORTED = "The package was first written on a lighthouse in 1847 by a retired sea captain."

_SOURCE_1 = re.compile(r'<source id="1">\n(?:Title: [^\n]*\n)?(.+?)\n</source>', re.S)


def quotable(text: str) -> str:
    """The longest sentence of ``text`` of 8 to 40 words, whitespace collapsed (the first sentence if none is)."""
    sentences = [" ".join(s.split()) for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]
    fitting = [s for s in sentences if 8 <= len(s.split()) <= 40 and s.endswith((".", "!", "?"))]
    return max(fitting, key=len) if fitting else sentences[0]


def model(messages: list[Message]) -> Any:
    text = "\n".join(m.content for m in messages)
    if "An answer was written from these sources" in text:
        count = int(re.search(r"all (\d+) of them", text).group(1))
        return {"sentences": [{"index": i, "kind": "fact", "sources": [1]} for i in range(1, count + 1)]}
    found = _SOURCE_1.search(text)
    if found and "Question:" in text:
        return f"{quotable(found.group(1))} {UNSUPPORTED}"
    return "not json"


register_backend("scripted-web", lambda settings: ScriptedLLM(default=model))
