"""``navicite mcp`` over stdio, driven by the real MCP SDK client as a desktop assistant drives it.

The server runs as a subprocess (``python -c LAUNCHER --home HOME ... mcp``) over a small
real collection: Markdown and JSONL records, and a shared PDF for pages when it is there.
The subprocess answers with the scripted backend of ``tests/mcp_scripted_backend.py``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install -e '.[mcp]')")

import anyio  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from navicite import Collection, Document  # noqa: E402
from navicite.generate.answer import Answer, Citation, SentenceRecord  # noqa: E402
from navicite.mcp_server import AskProgress, ask_result, doc_uri, document_url  # noqa: E402
from navicite.pipeline import Event  # noqa: E402

TESTS = Path(__file__).resolve().parent
SHARED_PDF = TESTS.parent.parent / "shared" / "data" / "pdf" / "timedep.pdf"
LAUNCHER = "import mcp_scripted_backend; from navicite.cli import main; main()"
#: What every server of these tests runs with: the scripted model, no reranker model to load.
SERVER_SETTINGS = ["-s", "llm.backend=scripted", "-s", "generate.verifier=lexical", "-s", "rerank.backend=none"]

#: Long enough (over 300 words) to be cut into passages, each under its heading.
NOTES = "# Survival notes\n\n## Time-dependent covariates\n\n" + "".join(
    f"Subject {i} has follow-up split into intervals at the times the covariate changes. " for i in range(40)
) + "The tmerge function of the survival package builds data sets with time-dependent covariates.\n\n" \
    "## Competing risks\n\n" + "".join(f"Patient {i} may die of another cause before the event. " for i in range(40))

RECORDS = [
    {"id": "rec-1", "title": "Folic acid and homocysteine",
     "abstract": "Folic acid supplementation lowers blood homocysteine levels in healthy adults."},
    {"id": "rec-2", "title": "Vitamin D and fractures",
     "abstract": "Vitamin D supplements did not reduce hip fractures in older women."},
]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A collection of a Markdown file, two JSONL records, a note and (if present) the shared PDF."""
    root = tmp_path_factory.mktemp("mcp")
    (root / "files").mkdir()
    (root / "files" / "notes.md").write_text(NOTES, encoding="utf-8")
    (root / "files" / "records.jsonl").write_text("\n".join(json.dumps(r) for r in RECORDS) + "\n", encoding="utf-8")
    items: list[Any] = [root / "files", Document(id="note", title="A note", text="tmerge is part of the survival package.")]
    if SHARED_PDF.is_file():
        items.append(SHARED_PDF)
    with Collection(root / "home", ["llm.backend=none"]) as papers:
        summary = papers.add(items)
        assert summary.added == (5 if SHARED_PDF.is_file() else 4), summary
    return root / "home"


@asynccontextmanager
async def stdio_session(home: Path, *extra: str) -> AsyncIterator[ClientSession]:
    """An initialised client session of ``navicite --home HOME ... mcp`` started as a subprocess."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", LAUNCHER, "--home", str(home), *SERVER_SETTINGS, *extra, "mcp"],
        env={"PYTHONPATH": str(TESTS)},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write, read_timeout_seconds=120) as session:
        await session.initialize()
        yield session


def text_of(result: Any) -> str:
    return "\n".join(part.text for part in result.content if getattr(part, "type", "") == "text")


def test_search_fetch_resources_and_errors_over_stdio(home: Path) -> None:
    async def main() -> None:
        async with stdio_session(home) as session:
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert set(tools) == {"search", "fetch", "ask", "list_documents"}
            assert tools["search"].output_schema and "results" in tools["search"].output_schema["properties"]
            assert tools["search"].annotations.read_only_hint
            assert tools["ask"].input_schema["properties"]["mode"]["default"] == "mpr"
            templates = (await session.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["navicite://doc/{id}"]

            found = await session.call_tool("search", {"query": "tmerge survival package", "k": 10})
            assert not found.is_error, text_of(found)
            results = found.structured_content["results"]
            assert results and {"id", "title", "url", "snippet", "doc_id", "pages", "section"} <= set(results[0])
            assert json.loads(text_of(found))["results"][0]["id"] == results[0]["id"]  # text clients read the same
            by_doc = {r["doc_id"]: r for r in results}
            assert by_doc["note"]["url"] == "navicite://doc/note" and by_doc["note"]["id"] == "note"  # a whole record

            markdown = next(r for r in results if r["title"] == "Survival notes")
            assert markdown["url"].startswith("file://") and markdown["id"].startswith(markdown["doc_id"] + "#p")
            assert markdown["section"] == ["Survival notes", "Time-dependent covariates"]
            passage = (await session.call_tool("fetch", {"id": markdown["id"]})).structured_content
            assert "tmerge" in passage["text"] and "Patient 3" not in passage["text"]
            assert passage["metadata"]["doc_id"] == markdown["doc_id"] and passage["metadata"]["section"] == markdown["section"]
            whole = (await session.call_tool("fetch", {"id": markdown["doc_id"]})).structured_content
            assert whole["id"] == markdown["doc_id"] and "tmerge" in whole["text"] and "Patient 39" in whole["text"]
            assert whole["metadata"]["words"] > 300

            if SHARED_PDF.is_file():
                pdf_hits = (await session.call_tool("search", {"query": "tmerge tdc cumtdc", "k": 3})).structured_content
                top = pdf_hits["results"][0]
                assert top["pages"] and top["url"].endswith(f".pdf#page={top['pages'][0]}") and top["section"]
                pdf_passage = (await session.call_tool("fetch", {"id": top["id"]})).structured_content
                assert pdf_passage["metadata"]["pages"] == top["pages"] and pdf_passage["url"] == top["url"]
                pdf_doc = (await session.call_tool("fetch", {"id": top["doc_id"]})).structured_content
                assert pdf_doc["metadata"]["format"] == "pdf" and pdf_doc["metadata"]["pages"] > 10
                assert "page_starts" not in pdf_doc["metadata"]

            listed = (await session.call_tool("list_documents", {"limit": 2})).structured_content
            assert len(listed["documents"]) == 2 and listed["total"] >= 4
            assert all(d["uri"] == doc_uri(d["id"]) and d["words"] > 0 for d in listed["documents"])
            record = (await session.read_resource("navicite://doc/rec-1")).contents[0]
            assert record.text.startswith("Folic acid and homocysteine") and "homocysteine levels" in record.text
            with pytest.raises(MCPError, match="no document with id 'nope'"):
                await session.read_resource("navicite://doc/nope")

            # navicite's own errors are tool errors with the CLI's message; the server keeps answering.
            missing = await session.call_tool("fetch", {"id": "no-such-id"})
            assert missing.is_error and text_of(missing).startswith("no passage or document with id 'no-such-id'")
            empty = await session.call_tool("ask", {"question": "   "})
            assert empty.is_error and text_of(empty).startswith("the question is empty")
            bad_k = await session.call_tool("search", {"query": "tmerge", "k": 0})
            assert bad_k.is_error
            again = await session.call_tool("search", {"query": "homocysteine"})
            assert not again.is_error and again.structured_content["results"][0]["doc_id"] == "rec-1"

    anyio.run(main)


def test_ask_over_stdio_returns_the_cited_answer_and_reports_progress(home: Path) -> None:
    notes: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        notes.append((progress, total, message))

    async def main() -> dict[str, Any]:
        async with stdio_session(home) as session:
            result = await session.call_tool(
                "ask", {"question": "Which function builds data sets with time-dependent covariates?"},
                progress_callback=on_progress,
            )
            assert not result.is_error, text_of(result)
            return result.structured_content

    answer = anyio.run(main)
    # the draft's words are the scripted backend's; its sentence, marked by navicite, is what comes back
    assert "[1]" in answer["answer"] and answer["answer"].replace(" [1]", "").strip() == answer["sentences"][0]["text"]
    assert answer["citations"] and answer["text"].startswith(answer["answer"].strip())
    first = answer["citations"][0]
    assert {"marker", "doc_id", "title", "pages", "section", "passage_id", "quote", "url"} <= set(first)
    assert f"[{first['marker']}] {first['title']}" in answer["text"]
    assert answer["sentences"][0]["kind"] == "cited" and answer["sentences"][0]["markers"] == [first["marker"]]
    # progress: first matches, retrieval, chosen sources, ..., the answer; always increasing, out of 5
    assert len(notes) >= 4, notes
    values = [n[0] for n in notes]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert notes[0][2].startswith("first matches") and notes[-1][0] == notes[-1][1] == AskProgress.TOTAL
    assert any(m and m.startswith("reading ") for _, _, m in notes) and notes[-1][2].startswith("answer ready")


# -- the pieces, without a protocol -------------------------------------------------------------------


def test_progress_always_increases_and_ends_at_the_total() -> None:
    progress = AskProgress()
    answer = Answer("q", "A [1].", [], [], "en")
    events = [
        Event("sources", {"sources": [{"title": "T", "doc_id": "d"}], "preliminary": True}),
        Event("stage", {"name": "retrieve", "ranked": 3, "pool_size": 9, "seconds": 0.1}),
        Event("stage", {"name": "widen", "choice": "section", "reason": "widened the best passage to its section 'S'", "seconds": 0.0}),
        Event("sources", {"sources": [{"title": "T", "doc_id": "d"}] * 5}),
        Event("token", {"text": "A few words"}), Event("reset"), Event("token", {"text": "more words"}),
        Event("answer", {"answer": answer}),
    ]
    values = []
    for number, event in enumerate(events):
        values.append(progress.step(event)[0])
        if number == 1:
            values.append(progress.heartbeat(12)[0])
    assert values == sorted(values) and len(set(values)) == len(values) and values[-1] == AskProgress.TOTAL
    assert progress.step(events[2])[1] == "widened the best passage to its section 'S'"
    assert progress.step(events[3])[1] == "reading 5 sources (T; T; T and 2 more) and writing the answer"


def test_urls_point_at_the_pdf_page_or_the_navicite_uri() -> None:
    assert document_url("d1", "file:///p/a.pdf", [12, 13]) == "file:///p/a.pdf#page=12"
    assert document_url("d1", "file:///p/a.pdf#page=3", [5]) == "file:///p/a.pdf#page=5"
    assert document_url("d1", "https://x.org/paper", [5], pdf=True) == "https://x.org/paper#page=5"
    assert document_url("d1", "https://x.org/page.html", [5]) == "https://x.org/page.html"
    assert document_url("10.1/x y", "") == "navicite://doc/10.1%2Fx%20y"


def test_the_answer_text_reads_alone_with_its_citation_block_and_unsupported_claims() -> None:
    citation = Citation(1, "d1", "Paper", "file:///a.pdf", "passage", "d1#p2", [12], "3.3 Heart", "quote")
    answer = Answer("q?", "tmerge builds them [1]. It is 40 years old.", [citation], [
        SentenceRecord("tmerge builds them [1].", "cited", [1]), SentenceRecord("It is 40 years old.", "unsupported"),
    ], "en")
    result = ask_result(answer)
    assert result.text.splitlines()[2] == "[1] Paper — p. 12, §3.3 Heart — file:///a.pdf#page=12"
    assert result.text.endswith("⚠ It is 40 years old.") and result.unsupported == 1
    assert result.citations[0].url == "file:///a.pdf#page=12" and result.citations[0].passage_id == "d1#p2"
