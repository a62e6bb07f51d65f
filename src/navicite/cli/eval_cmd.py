"""``navicite eval``: measure retrieval, answers, citations and the entailment judge."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from navicite.cli import app
from navicite.cli.common import err_console, print_json, settings
from navicite.config import Settings
from navicite.errors import UserInputError

eval_app = typer.Typer(help="Evaluate navicite and its baselines on benchmark data sets.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")

DatasetOption = Annotated[str, typer.Option("--dataset", "-d", help="KIND:PATH, KIND one of beir, hotpotqa, musique, leval, jsonl.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]
LimitOption = Annotated[Optional[int], typer.Option("--limit", "-n", min=1, help="Use only the first N questions.")]


def parse_ks(text: str) -> list[int]:
    """``"10,50,100"`` -> ``[10, 50, 100]``; anything else is a user error."""
    try:
        ks = [int(part) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise UserInputError(f"--k {text!r}: give comma-separated whole numbers, e.g. 10,50,100") from exc
    if not ks or any(k <= 0 for k in ks):
        raise UserInputError(f"--k {text!r}: cut-offs must be positive")
    return sorted(set(ks))


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err_console, transient=True
    )


def _task_updater(bar: Progress) -> Callable[[str, int, int], None]:
    """A progress callback ``(what, done, total)`` keeping one bar per ``what``."""
    tasks: dict[str, int] = {}

    def update(what: str, done: int, total: int) -> None:
        if what not in tasks:
            tasks[what] = bar.add_task(what, total=total)
        bar.update(tasks[what], completed=done, total=total)

    return update


def _warn_if_trained_on(cfg: Settings, data_name: str, split: str | None, count: int) -> None:
    """Say so when the navicite cross-encoder would be scored on SciFact claims it was trained on."""
    if cfg.rerank.backend != "navicite" or data_name != "beir:scifact" or split != "train":
        return
    from navicite.rerank.navicite_ce import scifact_claims_held_out

    held = scifact_claims_held_out([cfg.rerank.model])
    if held is not None and count > held:
        err_console.print(
            f"warning: the navicite cross-encoder trained on SciFact train claims past the first {held}; "
            f"figures over {count} questions include its training data (use --limit {held})",
            highlight=False,
        )


@eval_app.command("retrieval")
def retrieval(
    ctx: typer.Context,
    dataset: DatasetOption,
    split: Annotated[Optional[str], typer.Option("--split", help="BEIR qrels split (default test).")] = None,
    method: Annotated[Optional[list[str]], typer.Option("--method", "-m", help="Method to run (repeatable); default bm25.")] = None,
    limit: LimitOption = None,
    k: Annotated[str, typer.Option("--k", help="Cut-offs for recall@k and all-gold@k.")] = "10,50,100",
    json_out: JsonOption = False,
    out: Annotated[Optional[Path], typer.Option("--out", help="Folder for report.md, per-question JSONL and a plot; resumes a run.")] = None,
) -> None:
    """Rank each question's documents with each method and score the rankings."""
    from navicite.eval.datasets import load_dataset
    from navicite.eval.report import markdown_table, write_report
    from navicite.eval.resources import EvalResources
    from navicite.eval.runner import RetrievalRunner

    ks = parse_ks(k)
    data = load_dataset(dataset, split)
    questions = data.questions[:limit] if limit else data.questions
    cfg = settings(ctx)
    _warn_if_trained_on(cfg, data.name, split, len(questions))
    with _progress() as bar:
        update = _task_updater(bar)
        resources = EvalResources(data, cfg, progress=update)
        runner = RetrievalRunner(resources, method or ["bm25"], ks, out_dir=out, progress=update)
        report = runner.run(questions, split=split)
    if out is not None:
        for path in write_report(report, out):
            err_console.print(f"wrote {path}")
    if json_out:
        print_json(report.to_dict())
    else:
        err_console.print(markdown_table(report), markup=False, highlight=False)


AnswersOption = Annotated[Path, typer.Option("--answers", "-a", help="Saved answers, one JSON object per line.")]
JudgeOption = Annotated[str, typer.Option("--judge", help="Entailment judge: llm, embedding or lexical.")]


def _judge(ctx: typer.Context, kind: str):  # noqa: ANN202 -- returns an EntailmentJudge
    from navicite import embed, llm
    from navicite.eval.judge import create_judge

    current = settings(ctx)
    return create_judge(kind, llm=lambda: llm.create(current), embedder=lambda: embed.create(current))


def _print_methods(title: str, results: dict, json_out: bool) -> None:
    if json_out:
        print_json(results)
        return
    err_console.print(title, markup=False, highlight=False)
    for method, result in results.items():
        figures = ", ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in result["metrics"].items())
        err_console.print(f"  {method}: {figures}", markup=False, highlight=False)


@eval_app.command("qa")
def qa(
    ctx: typer.Context,
    dataset: DatasetOption,
    answers: AnswersOption,
    split: Annotated[Optional[str], typer.Option("--split", help="BEIR qrels split (default test).")] = None,
    json_out: JsonOption = False,
) -> None:
    """Score saved answers: EM/F1, multiple-choice accuracy, language match, answer-in-context recall."""
    from navicite.eval.answers import read_answers, score_qa
    from navicite.eval.datasets import load_dataset

    data = load_dataset(dataset, split)
    results = score_qa(read_answers(answers), data.questions)
    _print_methods(f"Answers: {data.name}", {"dataset": data.name, **results} if json_out else results, json_out)


@eval_app.command("citations")
def citations(
    ctx: typer.Context,
    answers: AnswersOption,
    judge: JudgeOption = "llm",
    limit: LimitOption = None,
    json_out: JsonOption = False,
) -> None:
    """ALCE citation recall and precision, uncited-fact and broken-marker rates of saved answers."""
    from navicite.eval.answers import read_answers, score_citations
    from navicite.eval.citations import CitationScorer

    saved = read_answers(answers, need_sources=True)
    saved = saved[:limit] if limit else saved
    scorer = CitationScorer(_judge(ctx, judge))
    with _progress() as bar:
        task = bar.add_task("judging", total=len(saved))
        results = score_citations(saved, scorer, progress=lambda done, total: bar.update(task, completed=done))
    _print_methods(f"Citations (judge: {judge})", results, json_out)


@eval_app.command("judge")
def judge_agreement(
    ctx: typer.Context,
    dataset: Annotated[str, typer.Option("--dataset", "-d", help="expertqa:PATH (ExpertQA JSONL with human support labels).")],
    judge: JudgeOption = "llm",
    limit: LimitOption = None,
    json_out: JsonOption = False,
) -> None:
    """How often the entailment judge agrees with ExpertQA's human support labels."""
    import time

    from navicite.eval.expertqa import load_claims, sample_claims
    from navicite.eval.judge import Agreement

    kind, sep, raw = dataset.partition(":")
    if kind != "expertqa" or not sep or not raw:
        raise UserInputError(f"--dataset {dataset!r}: use expertqa:PATH")
    claims = sample_claims(load_claims(Path(raw).expanduser()), limit)
    entailment = _judge(ctx, judge)
    pairs = []
    started = time.perf_counter()
    with _progress() as bar:
        task = bar.add_task(f"judging ({judge})", total=len(claims))
        for claim in claims:
            pairs.append((entailment.entails(claim.evidence, claim.claim), claim.supported))
            bar.advance(task)
    figures = Agreement.count(pairs).figures()
    figures["seconds_per_claim"] = (time.perf_counter() - started) / max(1, len(claims))
    figures["judge_failures"] = getattr(entailment, "failures", 0)
    result = {"dataset": dataset, "judge": judge, "label_mapping": "Complete=supported; Partial, Incomplete=not; Missing, N/A left out", **figures}
    if json_out:
        print_json(result)
    else:
        for key, value in result.items():
            err_console.print(f"{key}: {value:.4f}" if isinstance(value, float) else f"{key}: {value}", markup=False, highlight=False)


@eval_app.command("evidence")
def evidence(
    ctx: typer.Context,
    dataset: DatasetOption,
    method: Annotated[Optional[list[str]], typer.Option("--method", "-m", help="bm25, dense, navi or navi-memory (repeatable); default bm25 and dense.")] = None,
    budget: Annotated[int, typer.Option("--budget", min=1, help="Evidence tokens every method may hand over.")] = 1500,
    doc: Annotated[Optional[list[str]], typer.Option("--doc", help="Only questions about this document (repeatable).")] = None,
    per_doc: Annotated[Optional[int], typer.Option("--per-doc", min=1, help="Use only the first N questions of each document.")] = None,
    limit: LimitOption = None,
    json_out: JsonOption = False,
    out: Annotated[Optional[Path], typer.Option("--out", help="Folder for per-question records (evidence.jsonl, answers.jsonl); resumes a run.")] = None,
    answer: Annotated[bool, typer.Option("--answer", help="Also let the model answer from each method's evidence: multiple-choice accuracy or short-answer EM/F1.")] = False,
) -> None:
    """Answer-in-context recall of the evidence each method finds inside long documents (same token budget).

    With --answer the same model answers every question from every method's evidence.
    """
    from navicite.eval.datasets import load_dataset
    from navicite.eval.evidence import EvidenceRunner, first_per_document

    data = load_dataset(dataset)
    questions = [q for q in data.questions if not doc or set(q.gold) & set(doc)]
    if doc and not questions:
        raise UserInputError(f"--doc: no question is about {', '.join(doc)}; ids look like {data.corpus[0].id}")
    if per_doc:
        questions = first_per_document(questions, per_doc)
    questions = questions[:limit] if limit else questions
    with _progress() as bar:
        update = _task_updater(bar)
        report = EvidenceRunner(data, settings(ctx), method or ["bm25", "dense"], budget, out_dir=out, progress=update,
                                answer=answer).run(questions)
    if json_out:
        print_json(report.to_dict())
        return
    err_console.print(f"Evidence {'recall and answers' if answer else 'recall'}: {data.name}, budget {budget} tokens, "
                      f"{len(questions)} questions", markup=False, highlight=False)
    for name, figures in report.methods.items():
        shown = ", ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in figures.items())
        err_console.print(f"  {name}: {shown}", markup=False, highlight=False)
    for doc_id, build in report.builds.items():
        err_console.print(f"  tree {doc_id}: {build['calls']} calls, {build['prompt_tokens'] + build['completion_tokens']:,} tokens, "
                          f"{build['calls_per_1k_tokens']:.2f} calls per 1,000 document tokens, {build['seconds']:.0f} s",
                          markup=False, highlight=False)
