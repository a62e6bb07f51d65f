"""``navicite ask``: the main job — a cited answer to a question over the collection."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer
from rich.console import Group
from rich.live import Live
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

from navicite.cli import app
from navicite.cli.common import err_console, out_console, print_json, settings
from navicite.documents import place_label
from navicite.generate.render import render_answer
from navicite.api import Collection


@app.command("ask")
def ask(
    ctx: typer.Context,
    question: Annotated[str, typer.Argument(help="The question, in any language the model speaks.")],
    mode: Annotated[
        str,
        typer.Option("--mode", help="How evidence is found: mpr (retrieval), navi (knowledge trees of --doc or all), "
                     "hybrid (retrieval, then navigation of retrieved documents with a tree), auto (retrieval, widened to "
                     "the best passage's section where it has one; a summary request reads the document's opening)."),
    ] = "mpr",
    doc: Annotated[
        Optional[list[str]], typer.Option("--doc", help="Mode navi: a document to navigate (repeatable; default: all with a tree).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the answer object as JSON on stdout.")] = False,
    timing: Annotated[bool, typer.Option("--timing", help="Show time and LLM cost per stage.")] = False,
) -> None:
    """Answer QUESTION from the collection; every factual sentence cites its sources."""
    papers = Collection(settings=settings(ctx))
    ctx.call_on_close(papers.close)  # the retriever's vector stores
    if len(papers) == 0:
        err_console.print("no documents yet: run [bold]navicite ingest PATH[/] (or [bold]navicite ingest --sample[/]) first")
        raise typer.Exit(2)
    answer = None
    draft = Text()
    # One live region: the sources, then the draft as it is written; the cited answer replaces it.
    live = Live(Group(), console=err_console, transient=True, refresh_per_second=8)
    shown: list[Any] = []
    waiting = "navigating the knowledge trees…" if mode == "navi" else "finding sources…"
    status = Spinner("dots", text=waiting)
    with live:
        live.update(Group(status))
        for event in papers.ask_stream(question, mode, doc):  # type: ignore[arg-type]
            if event.kind == "stage":
                status.update(text=stage_line(event.data, mode))
            elif event.kind == "sources" and not as_json:
                if event.data.get("preliminary"):
                    shown = [sources_table(event.data["sources"], "first matches (BM25), while the question is analysed")]
                else:
                    shown = [sources_table(event.data["sources"])]
                    status.update(text=f"reading {len(event.data['sources'])} sources and writing the answer…")
            elif event.kind == "token" and not as_json:
                draft.append(event.data["text"])
            elif event.kind == "reset" and not as_json:
                draft = Text()
                status.update(text="rewriting the draft in the question's language…")
            elif event.kind == "answer":
                answer = event.data["answer"]
                continue
            live.update(Group(*shown, draft, status))
    assert answer is not None
    if as_json:
        print_json(answer.to_dict())
    else:
        render_answer(answer, out_console, show_timing=timing)


def sources_table(sources: list[dict[str, Any]], title: str = "sources") -> Table:
    """The sources the draft reads (or the first matches), shown while the answer is being made."""
    table = Table(title=title, title_justify="left", show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    table.add_column(style="green")
    for s in sources:
        table.add_row(f"{s['number']}", s.get("title") or s["doc_id"], place_label(s.get("pages") or [], s.get("section") or ""))
    return table


def stage_line(data: dict[str, Any], mode: str) -> str:
    """What a finished stage found, for the status line."""
    seconds = f"{data['seconds']:.1f}s"
    if data.get("name") == "navigate":
        paths = "; ".join(" > ".join(p) for p in data.get("paths", [])[:3])
        return f"navigated {data['documents']} tree(s) in {seconds}: {data['evidence']} pieces of evidence ({paths}); writing the answer…"
    if data.get("name") == "widen":
        return f"{data['reason']}; writing the answer…"
    then = "navigating the trees of the best documents…" if mode == "hybrid" else "writing the answer…"
    searched = [r["sub_question"] for r in data.get("rounds", []) if r.get("queries")]
    rounds = f" over {len(searched) + 1} rounds (then: {'; '.join(searched)})" if searched else ""
    return f"found {data['ranked']} sources in {seconds}{rounds}; {then}"
