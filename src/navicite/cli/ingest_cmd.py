"""``navicite ingest``: read files and folders into the collection."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from navicite.cli import app
from navicite.cli.common import err_console, print_json, settings, shown, terminal_safe
from navicite.cli.tree_cmd import build_trees, report_trees
from navicite.errors import UserInputError
from navicite.ingest import FORMATS, Failure, FieldMapping, IngestProgress, IngestSummary, sample_documents

if TYPE_CHECKING:
    from navicite.ingest.vectors import EmbedReport

#: Failures listed one per line before the rest are only counted.
MAX_LISTED_FAILURES = 50


@app.command("ingest")
def ingest_command(
    ctx: typer.Context,
    paths: Annotated[Optional[list[Path]], typer.Argument(help="Files and folders (read recursively).", show_default=False)] = None,
    fmt: Annotated[str, typer.Option("--format", help=f"One of: {', '.join(FORMATS)}.")] = "auto",
    id_field: Annotated[Optional[str], typer.Option("--id-field", help="Record field with the document id.", metavar="NAME")] = None,
    title_field: Annotated[Optional[str], typer.Option("--title-field", help="Record field with the title.", metavar="NAME")] = None,
    text_field: Annotated[Optional[str], typer.Option("--text-field", help="Record field with the text.", metavar="NAME")] = None,
    abstract_field: Annotated[Optional[str], typer.Option("--abstract-field", help="Record field with the abstract.", metavar="NAME")] = None,
    link_field: Annotated[Optional[str], typer.Option("--link-field", help="Record field with the link.", metavar="NAME")] = None,
    sample: Annotated[bool, typer.Option("--sample", help="Also ingest the sample collection bundled with navicite.")] = False,
    embed: Annotated[bool, typer.Option("--embed", help="Also embed the collection for re-ranking now, instead of during the first questions.")] = False,
    trees: Annotated[bool, typer.Option("--trees", help="Also build knowledge trees (--mode navi, hybrid) of long documents from their "
                                        "headings now, without the model (as tree build --no-model).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON on stdout.")] = False,
) -> None:
    """Add files, folders and record collections to the index; unchanged documents are skipped.

    Formats: JSONL/JSON records (map fields with --*-field; dotted paths like
    titles.0.title work), BEIR corpus folders, HotpotQA-style title->sentences
    corpora, Markdown, plain text, HTML and PDF. Records with no title, abstract
    or text are skipped with a warning. Exit code 1 if any file or record
    failed, 2 for a path that does not exist.
    """
    targets = list(paths or [])
    if sample:
        targets.extend(sample_documents())
    if not targets:
        raise UserInputError("nothing to ingest: give one or more files or folders, or --sample")
    mapping = FieldMapping(id=id_field, title=title_field, text=text_field, abstract=abstract_field, link=link_field)
    summary = _run_with_progress(targets, ctx, fmt, mapping)
    extra: dict[str, Any] = {"embedded": _embed_with_progress(ctx).embedded} if embed else {}
    built = build_trees(settings(ctx), None, no_model=True) if trees else []
    if trees:
        extra["trees"] = [o.to_dict() for o in built]
    _print_summary(summary, as_json, extra)
    if trees and not as_json:
        report_trees(built, as_json=False)
    if summary.failed:
        raise typer.Exit(1)


def _embed_with_progress(ctx: typer.Context) -> EmbedReport:
    from navicite import embed
    from navicite.collection import CollectionStore
    from navicite.ingest.vectors import embed_collection
    from navicite.vectors import open_store

    cfg = settings(ctx)
    bar = Progress(TextColumn("[bold]embed[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=err_console, transient=True)
    task = bar.add_task("", total=None)
    collection = CollectionStore(cfg)
    store = open_store(cfg.home, cfg.embed.model)
    try:
        with bar:  # passages are what retrieval ranks, so they are what gets a vector
            report = embed_collection(collection.passages, store, embed.create(cfg),
                                      progress=lambda done, total: bar.update(task, completed=done, total=total))
    finally:
        store.close()
        collection.close()
    err_console.print(f"embedded {report.embedded:,} of {report.documents:,} passages for re-ranking", highlight=False)
    if cfg.index.backend == "opensearch":  # portfolio D searches the cluster's copy
        from navicite.index.opensearch_dense import ClusterDense

        with open_store(cfg.home, cfg.embed.model) as store:
            published = ClusterDense(cfg).publish(*store.document_vectors())
        err_console.print(f"published {published:,} passage vectors to the cluster's k-NN index", highlight=False)
    return report


def _run_with_progress(targets: list[Path], ctx: typer.Context, fmt: str, mapping: FieldMapping) -> IngestSummary:
    bar = Progress(
        TextColumn("[bold]ingest[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("files  {task.fields[documents]} docs  {task.fields[failed]} failed  {task.description}"),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    )
    task = bar.add_task("", total=None, documents=0, failed=0)

    def update(event: IngestProgress) -> None:
        name = Path(event.current).name
        # With a single file the file count says nothing until the end: pulse and count documents instead.
        total = event.files_total if event.files_total > 1 or event.files_done == event.files_total else None
        bar.update(task, total=total, completed=event.files_done, documents=event.documents,
                   failed=event.failed, description=name[-40:])

    from navicite.collection import CollectionStore

    with bar:
        return CollectionStore(settings(ctx)).ingest(targets, fmt=fmt, mapping=mapping, progress=update)


_RECORD_SUFFIX = re.compile(r"^(?P<file>.+?)(?P<where>:\d+|#\d+|#'.*'|#\".*\")$")


def failure_lines(failures: list[Failure]) -> list[str]:
    """One line per failed file and reason; records of one file failing alike share a line."""
    groups: list[tuple[str, str, list[str]]] = []
    for failure in failures:
        match = _RECORD_SUFFIX.match(failure.path)
        file, where = (match["file"], match["where"]) if match else (failure.path, "")
        if where and groups and groups[-1][0] == file and groups[-1][1] == failure.reason:
            groups[-1][2].append(where)
        else:
            groups.append((file, failure.reason, [where] if where else []))
    lines = []
    for file, reason, places in groups:
        if len(places) <= 1:
            lines.append(f"{file}{''.join(places)}: {reason}")
        else:
            shown = ", ".join(places[:5]) + (", ..." if len(places) > 5 else "")
            lines.append(f"{file}: {reason} ({len(places)} records: {shown})")
    return lines


def _print_summary(summary: IngestSummary, as_json: bool, extra: dict[str, Any] | None = None) -> None:
    lines = failure_lines(summary.failed)
    for line in lines[:MAX_LISTED_FAILURES]:
        err_console.print(f"[red]failed:[/] {shown(line)}", highlight=False, soft_wrap=True)
    if len(lines) > MAX_LISTED_FAILURES:
        err_console.print(f"... and {len(lines) - MAX_LISTED_FAILURES} more (see --json)")
    if summary.duplicates:
        shown_ids = ", ".join(summary.duplicates[:5]) + (" ..." if len(summary.duplicates) > 5 else "")
        err_console.print(f"note: {len(summary.duplicates)} ids occurred more than once; the last occurrence was kept "
                          f"({terminal_safe(shown_ids)})",
                          highlight=False, markup=False)
    if summary.skipped:
        err_console.print(f"note: skipped {len(summary.skipped)} files of no known format", highlight=False)
    if summary.repeated:
        folders = ", ".join(summary.repeated[:5]) + (" ..." if len(summary.repeated) > 5 else "")
        err_console.print(f"note: skipped {len(summary.repeated)} folder(s) reached again through a symbolic link "
                          f"(read once): {terminal_safe(folders)}", highlight=False, markup=False, soft_wrap=True)
    for record in summary.empty[:MAX_LISTED_FAILURES]:
        err_console.print(f"warning: {terminal_safe(str(record))}", highlight=False, markup=False, soft_wrap=True)
    if len(summary.empty) > MAX_LISTED_FAILURES:
        err_console.print(f"... and {len(summary.empty) - MAX_LISTED_FAILURES} more empty records", highlight=False)
    if as_json:
        print_json({**summary.to_dict(), **(extra or {})})
        return
    empty = f", empty {len(summary.empty):,}" if summary.empty else ""
    err_console.print(
        f"added {summary.added:,}, replaced {summary.replaced:,}, unchanged {summary.unchanged:,}, "
        f"failed {len(summary.failed):,}{empty} — {summary.documents:,} documents in {summary.seconds:.1f} s "
        f"({summary.docs_per_second:,.0f} docs/s)",
        highlight=False,
        soft_wrap=True,
    )
