"""``navicite mcp`` with the real embedded model: one short question through the stdio client.

Kept short for a shared 2-core machine: two small documents, flat retrieval, a lexical
verifier and an 80-token draft.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install -e '.[mcp]')")

import anyio  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from navicite import Collection, Document  # noqa: E402

pytestmark = pytest.mark.llm

SHORT = ["llm.backend=embedded", "llm.threads=1", "generate.draft_max_tokens=80", "generate.verifier=lexical",
         "retrieve.method=flat", "rerank.backend=none", "generate.max_sources=2", "generate.language_retry=false"]


def test_a_real_answer_through_the_stdio_client(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Collection(home, ["llm.backend=none"]) as papers:
        papers.add([
            Document(id="tmerge", title="Building time-dependent data sets",
                     text="The tmerge function of the R survival package builds data sets with time-dependent covariates."),
            Document(id="folate", title="Folic acid and homocysteine",
                     text="Folic acid supplementation lowers blood homocysteine levels in healthy adults."),
        ])
    settings = [part for item in SHORT for part in ("-s", item)]
    params = StdioServerParameters(command=sys.executable, args=["-m", "navicite", "--home", str(home), *settings, "mcp"])
    messages: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        messages.append(message or "")

    async def main() -> dict:
        async with stdio_client(params) as (read, write), ClientSession(read, write, read_timeout_seconds=900) as session:
            await session.initialize()
            result = await session.call_tool(
                "ask", {"question": "Which R function builds data sets with time-dependent covariates?"},
                progress_callback=on_progress,
            )
            assert not result.is_error, result.content
            return result.structured_content

    answer = anyio.run(main)
    assert answer["answer"].strip() and answer["sentences"]
    listed = {c["marker"] for c in answer["citations"]}
    assert {int(m) for m in re.findall(r"\[(\d+)\]", answer["answer"])} <= listed
    assert all(c["doc_id"] in ("tmerge", "folate") for c in answer["citations"])
    assert messages and messages[-1].startswith("answer ready"), messages
