"""Evaluation reports: a Markdown table, per-question JSONL and a recall@k plot."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from navicite.eval.runner import RetrievalReport

PER_QUESTION_FILE = "per_question.jsonl"
TABLE_FILE = "report.md"
PLOT_FILE = "recall_at_k.png"
SUMMARY_FILE = "summary.json"


def _columns(report: RetrievalReport) -> list[str]:
    names = ["ndcg@10", "mrr@10"]
    names += [f"recall@{k}" for k in report.ks]
    names += [f"all_gold@{k}" for k in report.ks]
    return names


def markdown_report(title: str, header: Sequence[str], rows: Iterable[Sequence[str]], notes: Iterable[str] = ()) -> str:
    """A Markdown report: ``# title``, one table row per entry of ``rows``, then a line per note."""
    lines = [f"# {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    for note in notes:
        lines += ["", f"Note: {note}"]
    return "\n".join(lines) + "\n"


def markdown_table(report: RetrievalReport) -> str:
    """One row per method: metrics, questions, LLM calls per question, p50/p95 seconds per question."""
    columns = _columns(report)
    header = ["method", "n", *columns, "LLM calls/q", "s/q p50", "s/q p95"]
    rows = []
    for s in report.summaries:
        total = s.seconds.get("total", {"p50": 0.0, "p95": 0.0})
        cells = [s.method, str(s.questions), *(f"{s.metrics.get(c, 0.0):.4f}" for c in columns)]
        cells += [f"{s.llm['calls_per_question']:.2f}", f"{total['p50']:.3f}", f"{total['p95']:.3f}"]
        rows.append(cells)
    title = f"Retrieval: {report.dataset}" + (f" ({report.split})" if report.split else "")
    return markdown_report(title, header, rows, report.notes)


def plot_recall(report: RetrievalReport, path: Path) -> None:
    """A line per method of recall@k against k (PNG)."""
    import matplotlib

    matplotlib.use("Agg")  # files only; never open a window
    from matplotlib import pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4))
    for s in report.summaries:
        axes.plot(report.ks, [s.metrics.get(f"recall@{k}", 0.0) for k in report.ks], marker="o", label=s.method)
    axes.set_xlabel("k")
    axes.set_ylabel("recall@k")
    axes.set_ylim(0, 1)
    if len(report.ks) > 1 and max(report.ks) / min(report.ks) >= 10:
        axes.set_xscale("log")
        axes.minorticks_off()  # log-scale minor labels ("3x10^0") would crowd the axis
    axes.set_xticks(report.ks, [str(k) for k in report.ks])
    axes.set_title(report.dataset)
    axes.grid(alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def write_report(report: RetrievalReport, folder: Path) -> list[Path]:
    """Write the summary, table, per-question scores and plot into ``folder``; returns the paths."""
    folder.mkdir(parents=True, exist_ok=True)
    summary = folder / SUMMARY_FILE
    summary.write_text(json.dumps(report.to_dict(), indent=2, ensure_ascii=False), encoding="utf-8")
    table = folder / TABLE_FILE
    table.write_text(markdown_table(report), encoding="utf-8")
    per_question = folder / PER_QUESTION_FILE
    with per_question.open("w", encoding="utf-8") as handle:
        for record in report.records:
            handle.write(json.dumps(record.to_dict(), ensure_ascii=False) + "\n")
    plot = folder / PLOT_FILE
    plot_recall(report, plot)
    return [summary, table, per_question, plot]
