"""Terminal view of an MPR run (``navicite search --mpr``): keywords, queries, pool, ranked list."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from navicite.retrieve.mpr import MPRResult
from navicite.retrieve.pool import Candidate


def _found_by(candidate: Candidate) -> str:
    """``Q#2 S#1 Q2#1`` style: each portfolio (with its round after the first) with its best rank."""
    return " ".join(f"{p}#{rank}" for p, rank in candidate.best_ranks().items())


def render_mpr(result: MPRResult, console: Console, limit: int = 20) -> None:
    """Print ``result`` for people: what was searched, how much each query found, what ranked first."""
    analysis = result.analysis
    how = "LLM" if analysis.path == "llm" else f"statistical fallback ({analysis.fallback_reason})"
    console.print(f"[bold]Question[/bold] ({analysis.language}): {result.question}")
    console.print(f"[bold]Keywords[/bold] by {how}")
    keywords = Table("kind", "#", "term", "synonyms", "reason", box=None, pad_edge=False)
    for kind, group in (("primary", analysis.primary), ("expanded", analysis.expanded)):
        for i, kw in enumerate(group, start=1):
            keywords.add_row(kind, str(i), kw.term, ", ".join(kw.synonyms), kw.reason)
    console.print(keywords)
    if analysis.dropped:
        console.print(f"dropped as generic: {', '.join(analysis.dropped)}")
    if result.translation is not None:
        tr = result.translation
        console.print(f"translated ({tr.language}): {', '.join(tr.primary)} | {', '.join(tr.expanded)}")
        if tr.question:
            console.print(f"question in {tr.language}: {tr.question}")

    queries = Table("portfolio", "query", "hits", "ms", title="Portfolio queries", title_justify="left")
    for r in result.results:
        queries.add_row(r.portfolio + (str(r.round) if r.round > 1 else ""), r.query + (f"  [red]error: {r.error}[/red]" if r.error else ""), str(len(r.hits)), f"{r.seconds * 1000:.0f}")
    console.print(queries)
    for name, reason in result.portfolios.skipped.items():
        console.print(f"portfolio {name} skipped: {reason}")
    for step in result.rounds:
        if step.gap is None or step.gap.enough:
            console.print(f"[bold]Round {step.number}[/bold]: {step.problem or 'enough, no further search'}")
            continue
        gap = step.gap
        console.print(f"[bold]Round {step.number}[/bold]: {gap.sub_question} (bridge: {gap.bridge or '-'}; "
                      f"keywords: {', '.join(gap.keywords) or '-'}); {len(step.queries)} queries, {len(step.new)} new passages")
    if result.rounds:
        console.print(f"rounds stopped: {result.stopped}")
    console.print(f"[bold]Pool[/bold]: {len(result.pool)} unique candidates; reranked by {result.reranker}, top {len(result.ranked)} kept")

    ranked = Table("#", "score", "id", "title", "found by", title="Ranked candidates", title_justify="left")
    for i, c in enumerate(result.ranked[:limit], start=1):
        ranked.add_row(str(i), f"{c.score:.4f}", c.doc_id, c.title, _found_by(c))
    console.print(ranked)
    timings = ", ".join(f"{stage} {seconds:.2f} s" for stage, seconds in result.timings.items())
    calls = sum(int(stage["calls"]) for stage in result.llm.values())
    console.print(f"time: {timings}; LLM calls: {calls}")
