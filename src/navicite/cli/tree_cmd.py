"""``navicite tree build|show|check``: knowledge trees of long documents."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from navicite import index as index_layer
from navicite import llm as llm_layer
from navicite.cli import app
from navicite.cli.common import err_console, out_console, print_json, settings
from navicite.config import Settings
from navicite.errors import DocumentNotFound, UserInputError
from navicite.navigate.build import BuildOutcome, TreeBuilder
from navicite.navigate.organise import BuildProgress
from navicite.navigate.outline import outline_lines
from navicite.navigate.store import TreeStore
from navicite.navigate.validate import problems

StoreOption = typer.Option("--store", help="A trees.sqlite to read instead of the home's (e.g. one `navicite eval evidence` built).")

tree_app = typer.Typer(help="Knowledge trees of long documents (NaviRAG).", no_args_is_help=True)
app.add_typer(tree_app, name="tree")


@tree_app.command("build")
def build_command(
    ctx: typer.Context,
    doc_ids: Annotated[Optional[list[str]], typer.Argument(help="Document ids (default: every document).", show_default=False)] = None,
    force: Annotated[bool, typer.Option("--force", help="Rebuild trees that are up to date.")] = False,
    no_model: Annotated[bool, typer.Option("--no-model", help="Only from outlines and headings, each node summarised by its "
                                           "opening sentences: no model call, seconds for a pile; documents without headings are left.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the outcomes as JSON on stdout.")] = False,
) -> None:
    """Build the trees of documents longer than navigate.min_document_words; up-to-date trees are kept.

    Without ids, every document of the collection is considered and trees of removed
    documents are deleted. Exit code 1 if a tree could not be built, 2 for an unknown id.
    """
    outcomes = build_trees(settings(ctx), doc_ids, force=force, no_model=no_model)
    report_trees(outcomes, as_json)
    if any(o.status == "failed" for o in outcomes):
        raise typer.Exit(1)


def build_trees(cfg: Settings, doc_ids: list[str] | None, force: bool = False, no_model: bool = False) -> list[BuildOutcome]:
    """Build the trees of ``doc_ids`` (default: all) with a progress bar; ``no_model``: from headings alone,
    extractive summaries (``navigate.summaries=extractive``), documents without headings left."""
    if no_model:
        cfg = cfg.model_copy(update={"navigate": cfg.navigate.model_copy(update={"summaries": "extractive"})})
    bar = Progress(
        TextColumn("[bold]tree[/] {task.fields[doc]}"),
        BarColumn(),
        TextColumn("{task.fields[phase]} {task.completed}/{task.total}  {task.fields[calls]} calls  {task.fields[tokens]:,} tokens"),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    )
    tasks: dict[str, int] = {}

    def update(event: BuildProgress) -> None:
        if event.doc_id not in tasks:
            tasks[event.doc_id] = bar.add_task("", doc=escape(event.doc_id[-30:]), phase="", calls=0, tokens=0)
        bar.update(tasks[event.doc_id], total=event.total, completed=event.done, phase=event.phase,
                   calls=event.calls, tokens=event.tokens)

    llm = llm_layer.NoLLM(cfg) if no_model else llm_layer.create(cfg)
    builder = TreeBuilder(cfg, llm, progress=update, structure_only=no_model)
    with bar:
        return builder.build_collection(index_layer.create(cfg), doc_ids, force=force)


def report_trees(outcomes: list[BuildOutcome], as_json: bool) -> None:
    if as_json:
        print_json([o.to_dict() for o in outcomes])
        return
    for o in outcomes:
        if o.status == "built" and o.cost:
            c = o.cost
            units = "segments" if o.source == "llm" else "passages"
            err_console.print(
                f"built {escape(o.doc_id)} {_path(o)}: {o.nodes} nodes, {c.segments} {units}, {c.calls} calls "
                f"({c.calls_per_segment:.2f} per {units[:-1]}, {c.calls_per_1k_tokens:.2f} per 1,000 document tokens), "
                f"{c.prompt_tokens + c.completion_tokens:,} tokens ({c.tokens_per_1k_tokens:,.0f} per 1,000), {c.seconds:.1f} s"
                + (f"; {c.declined_calls} optional calls left out to keep the call goal" if c.declined_calls else ""),
                highlight=False,
            )
        elif o.status == "failed":
            err_console.print(f"[red]failed:[/] {escape(o.doc_id)} {_path(o)}: {escape(o.error or '')}", highlight=False)
    counts = {s: sum(o.status == s for o in outcomes) for s in ("built", "current", "short", "failed", "left")}
    left = (f", left {counts['left']} without headings (the model organises them: navicite tree build)"
            if counts["left"] else "")
    err_console.print(
        f"built {counts['built']}, up to date {counts['current']}, too short {counts['short']}, failed {counts['failed']}{left}",
        highlight=False,
    )


def _path(outcome: BuildOutcome) -> str:
    """Which path the document took: its outline, its headings, or the model (and why)."""
    if outcome.source in ("outline", "headings"):
        return f"from its {outcome.source}"
    why = f"; {outcome.fallback}" if outcome.fallback else ""
    return escape(f"(organised by the model{why})")


@tree_app.command("show")
def show_command(
    ctx: typer.Context,
    doc_id: Annotated[str, typer.Argument(help="Document id.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole tree as JSON on stdout.")] = False,
    store: Annotated[Optional[Path], StoreOption] = None,
) -> None:
    """Print a document's tree as an outline: node sizes in tokens and the segments each draws on."""
    tree = _store(ctx, store).get(doc_id)
    if tree is None:
        raise DocumentNotFound(f"no tree for {doc_id!r}; build it with `navicite tree build {doc_id}`")
    if as_json:
        print_json({**tree.to_dict(), "problems": problems(tree)})
        return
    for line in outline_lines(tree):
        out_console.print(line, highlight=False, markup=False, soft_wrap=True)
    found = problems(tree)
    err_console.print("valid" if not found else f"[red]invalid:[/] {escape('; '.join(found))}", highlight=False)
    if store is not None:
        return  # an evaluation's store: its documents are not in the collection
    document = index_layer.create(settings(ctx)).get(doc_id)
    if document is None or document.fingerprint != tree.fingerprint:
        why = "is no longer in the collection" if document is None else "has changed since"
        err_console.print(f"note: the document {why} this tree was built; run `navicite tree build`", highlight=False)


@tree_app.command("check")
def check_command(
    ctx: typer.Context,
    store: Annotated[Optional[Path], StoreOption] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print every tree's problems as JSON on stdout.")] = False,
) -> None:
    """Run the tree validator over every stored tree. Exit code 1 if any tree is invalid."""
    trees = TreeStore.existing(settings(ctx)) if store is None else _store(ctx, store)
    found = {} if trees is None else {doc_id: _checked(trees, doc_id) for doc_id in trees.doc_ids()}
    if as_json:
        print_json({doc_id: {"nodes": nodes, "problems": issues} for doc_id, (nodes, issues) in found.items()})
    else:
        for doc_id, (nodes, issues) in found.items():
            verdict = "valid" if not issues else "invalid: " + "; ".join(issues)
            out_console.print(f"{doc_id}: {nodes} nodes, {verdict}", highlight=False, markup=False)
        err_console.print(f"{sum(not issues for _, issues in found.values())} of {len(found)} trees valid", highlight=False)
    if any(issues for _, issues in found.values()):
        raise typer.Exit(1)


def _store(ctx: typer.Context, path: Path | None) -> TreeStore:
    """The home's tree store, or the file ``--store`` names (which must exist: nothing is created)."""
    if path is None:
        return TreeStore.open(settings(ctx))
    if not path.is_file():
        raise UserInputError(f"--store {path}: no such file; eval trees are in <home>/cache/eval/<corpus>/trees.sqlite")
    return TreeStore(path)


def _checked(trees: TreeStore, doc_id: str) -> tuple[int, list[str]]:
    tree = trees.get(doc_id)
    if tree is None:  # removed between listing and reading
        return 0, ["not readable"]
    return sum(1 for _ in tree.nodes()), problems(tree)
