"""Collection commands: ``search``, ``docs list|show|delete`` and ``stats``.

Results go to stdout (a table, or JSON with ``--json``); hints and messages go
to stderr.
"""

from __future__ import annotations

import re
from typing import Annotated

import typer
from rich.table import Table

from navicite.cli import app
from navicite.cli.common import err_console, out_console, print_json, settings, shown
from navicite.collection import CollectionStore
from navicite.documents import Document, place_label
from navicite.errors import DocumentNotFound
from navicite.index import LexicalIndex, create
from navicite.index.base import HIGHLIGHT_END, HIGHLIGHT_START

EMPTY_HINT = "no documents yet: run navicite ingest PATH (or navicite ingest --sample)"

docs_app = typer.Typer(help="List, show and delete documents of the collection.", no_args_is_help=True)
app.add_typer(docs_app, name="docs")

_HIGHLIGHT = re.compile(re.escape(HIGHLIGHT_START) + "(.+?)" + re.escape(HIGHLIGHT_END))


def _index(ctx: typer.Context) -> LexicalIndex:
    return create(settings(ctx))


def _collection(ctx: typer.Context) -> CollectionStore:
    return CollectionStore(settings(ctx))


def _hint_if_empty(documents: int) -> bool:
    """Print the ingest hint on stderr when the collection has no ``documents``; True if so."""
    if documents == 0:
        err_console.print(EMPTY_HINT, highlight=False)
        return True
    return False


def _rich_snippet(snippet: str) -> str:
    """Snippet highlight marks as rich markup, with the text itself escaped."""
    parts, last = [], 0
    for match in _HIGHLIGHT.finditer(snippet):
        parts.append(shown(snippet[last : match.start()]))
        parts.append(f"[bold yellow]{shown(match.group(1))}[/]")
        last = match.end()
    parts.append(shown(snippet[last:]))
    return "".join(parts)


@app.command("search")
def search_command(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="Words to look for, or a Boolean query with --boolean.")],
    boolean: Annotated[
        bool, typer.Option("--boolean", "-b", help='Boolean syntax: (a OR "b c") AND d* NOT e, title:word, word^2.')
    ] = False,
    k: Annotated[int, typer.Option("-k", "--top", min=1, max=1000, help="Number of results.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON on stdout.")] = False,
    mpr: Annotated[
        bool,
        typer.Option("--mpr", help="Treat QUERY as a question: keywords, Q/S/F/G portfolios, pooling and reranking."),
    ] = False,
) -> None:
    """Search the collection (BM25). Free text never fails; --boolean reports syntax errors with their position."""
    if mpr:
        _search_mpr(ctx, query, k, as_json)
        return
    from navicite.api import Collection

    papers = Collection(settings=settings(ctx))
    empty = _hint_if_empty(len(papers))
    hits = [] if empty else papers.search(query, k=k, boolean=boolean)
    if as_json:
        print_json([hit.to_dict() for hit in hits])
        return
    if empty:
        return
    if not hits:
        err_console.print("no matching documents", highlight=False)
        return
    table = Table("#", "id", "title", "where", "score", "snippet", show_lines=True)
    for rank, hit in enumerate(hits, 1):
        table.add_row(str(rank), shown(hit.doc_id), shown(hit.title), shown(hit.place), f"{hit.score:.2f}",
                      _rich_snippet(hit.snippet))
    out_console.print(table)


def _place(pages: list[int], section: list[str]) -> str:
    return place_label(pages, section[-1] if section else "")


def _search_mpr(ctx: typer.Context, question: str, k: int, as_json: bool) -> None:
    from navicite.pipeline import Engine
    from navicite.retrieve.render import render_mpr

    engine = Engine(settings(ctx))
    ctx.call_on_close(engine.close)  # the retriever's vector stores
    if _hint_if_empty(engine.index.count()):
        if as_json:
            print_json({})
        return
    with err_console.status("analysing the question and running the portfolios…"):
        result = engine.retrieve(question)
    if as_json:
        print_json(result.to_dict())
    else:
        render_mpr(result, out_console, limit=k)


@docs_app.command("list")
def list_command(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option("--limit", "-n", min=0, help="Most documents to list (0: all).")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
) -> None:
    """List documents: id, title and number of words."""
    index = _index(ctx)
    empty = _hint_if_empty(index.count())
    rows = []
    for doc_id in index.ids():
        if limit and len(rows) >= limit:
            break
        doc = index.get(doc_id)
        if doc is not None:
            rows.append({"id": doc.id, "title": doc.title, "words": doc.word_count, "link": doc.link})
    if as_json:
        print_json(rows)
        return
    if empty:
        return
    table = Table("id", "title", "words", title=f"{len(rows)} of {index.count()} documents")
    for row in rows:
        table.add_row(shown(row["id"]), shown(row["title"]), str(row["words"]))
    out_console.print(table)


@docs_app.command("show")
def show_command(
    ctx: typer.Context,
    doc_id: Annotated[str, typer.Argument(help="Document id.", metavar="ID")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
    passages: Annotated[
        bool, typer.Option("--passages", "-p", help="List the document's passages (what answers cite) with page and section.")
    ] = False,
) -> None:
    """Print one document with all its fields, or (--passages) the passages it is cut into."""
    collection = _collection(ctx)
    doc = collection.get(doc_id)
    if doc is None:
        raise DocumentNotFound(f"no document with id {doc_id!r}; list ids with: navicite docs list")
    if passages:
        _show_passages(collection, doc, as_json)
        return
    if as_json:
        print_json(doc.to_dict())
        return
    out_console.print(f"[bold]{shown(doc.title) or '(no title)'}[/]  [dim]{shown(doc.id)}[/]")
    if doc.link:
        out_console.print(shown(doc.link), highlight=False)
    for label, text in (("abstract", doc.abstract), ("text", doc.text)):
        if text:
            out_console.print(f"\n[bold]{label}[/]\n{shown(text)}", highlight=False)
    if doc.metadata:
        out_console.print("\n[bold]metadata[/]")
        for key, value in doc.metadata.items():
            out_console.print(f"  {shown(str(key))}: {shown(str(value))}", highlight=False)


def _show_passages(collection: CollectionStore, doc: Document, as_json: bool) -> None:
    cut = collection.passages_of(doc)
    if as_json:
        print_json([{"passage_id": p.id, "number": p.number, "pages": list(p.pages), "section": list(p.section),
                     "field": p.field, "start": p.start, "end": p.end, "text": p.text} for p in cut])
        return
    table = Table("passage", "where", "words", "text", title=f"{shown(doc.title or doc.id)}: {len(cut)} passages",
                  show_lines=True)
    for p in cut:
        preview = " ".join(p.text.split()[:40]) + (" …" if p.end - p.start > 40 else "")
        table.add_row(shown(p.id), shown(_place(list(p.pages), list(p.section))), str(p.end - p.start), shown(preview))
    out_console.print(table)


@docs_app.command("delete")
def delete_command(
    ctx: typer.Context,
    doc_ids: Annotated[list[str], typer.Argument(help="Ids of the documents to delete.", metavar="ID...")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the deleted ids as JSON on stdout.")] = False,
) -> None:
    """Delete documents by id. If any id is unknown, nothing is deleted."""
    collection = _collection(ctx)
    index = collection.documents
    wanted = list(dict.fromkeys(doc_ids))
    unknown = [doc_id for doc_id in wanted if index.get(doc_id) is None]
    if unknown:
        listed = ", ".join(repr(u) for u in unknown[:20]) + (" ..." if len(unknown) > 20 else "")
        raise DocumentNotFound(
            f"{len(unknown)} unknown id(s): {listed}; nothing was deleted. Check the ids with: navicite docs list"
        )
    deleted = collection.delete(wanted)  # with their passages and trees
    collection.close()
    if as_json:
        print_json({"deleted": deleted, "documents": index.count()})
        return
    err_console.print(f"deleted {len(deleted)}: {shown(', '.join(deleted))}; {index.count()} documents left", highlight=False)


@app.command("stats")
def stats_command(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
) -> None:
    """Number of documents, their languages and the size of the index."""
    index = _index(ctx)
    empty = _hint_if_empty(index.count())
    stats = index.stats()
    data = {
        "documents": stats.documents,
        "languages": dict(sorted(stats.languages.items(), key=lambda kv: -kv[1])),
        "size_bytes": stats.size_bytes,
        "index_dir": str(settings(ctx).index_dir),
    }
    if as_json:
        print_json(data)
        return
    if empty:
        return
    table = Table("", "value", title="collection")
    table.add_row("documents", f"{stats.documents:,}")
    table.add_row("languages", ", ".join(f"{lang} {n:,}" for lang, n in data["languages"].items()) or "-")
    table.add_row("size", f"{stats.size_bytes / 1e6:.1f} MB")
    table.add_row("index", shown(data["index_dir"]))
    out_console.print(table)
