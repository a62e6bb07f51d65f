"""``navicite eval``: measure retrieval, answers, citations and the entailment judge."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from navicite.cli import app
from navicite.cli.common import err_console, out_console, print_json, settings, state
from navicite.config import Settings
from navicite.errors import UserInputError

eval_app = typer.Typer(help="Evaluate navicite and its baselines on benchmark data sets.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")

DatasetOption = Annotated[str, typer.Option("--dataset", "-d", help="KIND:PATH, KIND one of beir, hotpotqa, musique, leval, korquad, jsonl.")]
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
JudgeOption = Annotated[str, typer.Option("--judge", help="Entailment judge: llm (the verifier's model), cascade (the verifier's rules, then that model), embedding or lexical.")]


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
    dataset: Annotated[Optional[str], typer.Option("--dataset", "-d", help="Saved answers: KIND:PATH of their data set (beir, hotpotqa, musique, leval, korquad, jsonl).")] = None,
    answers: Annotated[Optional[Path], typer.Option("--answers", "-a", help="Saved answers, one JSON object per line.")] = None,
    split: Annotated[Optional[str], typer.Option("--split", help="BEIR qrels split (default test).")] = None,
    docs: Annotated[Optional[list[Path]], typer.Option("--docs", help="Your documents: a file or folder to ask over (repeatable; more paths may follow it).")] = None,
    questions: Annotated[Optional[Path], typer.Option("--questions", "-q", help="With --docs: JSONL of question, answer, all_of (and file).")] = None,
    method: Annotated[Optional[list[str]], typer.Option("--method", "-m", help="With --docs: NAME (document, flat, default) or NAME=section.key=value,... (repeatable); default all three built-ins.")] = None,
    cache_home: Annotated[Optional[Path], typer.Option("--cache-home", help="With --docs: data directory whose cache the run shares (default --home).")] = None,
    limit: LimitOption = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="With --docs: folder for per_question.jsonl (every answer, its citations and pages), summary.json and report.md; replaced each run.")] = None,
    json_out: JsonOption = False,
    more_docs: Annotated[Optional[list[Path]], typer.Argument(help="Further document paths (after --docs).", metavar="PATH", show_default=False)] = None,
) -> None:
    """Score answers: saved ones against a data set (--dataset, --answers), or new ones asked over your documents.

    With --docs and --questions the documents are ingested once into a scratch collection and every
    question is asked the way navicite ask asks it, once per method; the table shows accuracy, the
    share of cited answers, page accuracy and the LLM cost per answer.
    """
    paths = [*(docs or []), *(more_docs or [])]
    if paths or questions is not None:
        if dataset or answers:
            raise UserInputError("--dataset/--answers score saved answers, --docs/--questions ask new ones; use one pair")
        if questions is None:
            raise UserInputError("--docs needs --questions FILE.jsonl (question, answer, all_of a line)")
        _docs_qa(ctx, paths, questions, method, cache_home, limit, out, json_out)
        return
    if not dataset or not answers:
        raise UserInputError("eval qa needs --dataset and --answers (score saved answers) or --docs and --questions (ask over documents)")
    for name, given in (("--method", method), ("--cache-home", cache_home), ("--out", out), ("--limit", limit)):
        if given:
            raise UserInputError(f"{name} goes with --docs and --questions")
    from navicite.eval.answers import read_answers, score_qa
    from navicite.eval.datasets import load_dataset

    data = load_dataset(dataset, split)
    results = score_qa(read_answers(answers), data.questions)
    _print_methods(f"Answers: {data.name}", {"dataset": data.name, **results} if json_out else results, json_out)


def _docs_qa(
    ctx: typer.Context,
    paths: list[Path],
    questions_file: Path,
    method: list[str] | None,
    cache_home: Path | None,
    limit: int | None,
    out: Path | None,
    json_out: bool,
) -> None:
    """``eval qa --docs``: every input checked before the scratch collection or ``--out`` is touched."""
    from navicite.eval.docqa import DocQARecord, DocQARunner, RecordWriter, load_questions, markdown, parse_methods

    questions = load_questions(questions_file)
    questions = questions[:limit] if limit else questions
    methods = parse_methods(method)
    if out is not None and out.exists() and not out.is_dir():
        raise UserInputError(f"--out {out}: a file is there; give a folder")
    current = state(ctx)
    home = settings(ctx).home

    def progress(record: DocQARecord, done: int, total: int) -> None:
        verdict = "error: " + record.error if record.error else ", ".join([
            "correct" if record.correct else "wrong",
            "cited" if record.cited else "uncited",
            *([] if record.page_correct is None else ["page ok" if record.page_correct else "page wrong"]),
        ])
        err_console.print(f"{record.method} {done}/{total} {record.file or '-'}: {verdict} "
                          f"({record.seconds:.1f} s, {record.usage.get('calls', 0)} LLM calls)", markup=False, highlight=False)

    runner = DocQARunner(home, current.overrides, cache_home, progress=progress,
                         notify=lambda message: err_console.print(message, markup=False, highlight=False))
    writer = RecordWriter(out)
    report = runner.run(paths, questions, methods, questions_file, writer)
    for path in writer.finish(report):
        err_console.print(f"wrote {path}", markup=False, highlight=False)
    if json_out:
        print_json(report.to_dict())
    else:
        out_console.print(markdown(report), markup=False, highlight=False, soft_wrap=True)


@eval_app.command("citations")
def citations(
    ctx: typer.Context,
    answers: AnswersOption,
    judge: JudgeOption = "llm",
    limit: LimitOption = None,
    labelled: Annotated[Optional[int], typer.Option("--labelled", help="Pairs of the labelled support set's held-out part the judge is first checked on (hash order; default all; 0: skip). Model judges take seconds per pair.")] = None,
    json_out: JsonOption = False,
) -> None:
    """The judge's precision and recall against human labels first, then ALCE citation recall and
    precision, uncited-fact and broken-marker rates of saved answers."""
    from navicite.eval.answers import read_answers, score_citations
    from navicite.eval.citations import CitationScorer
    from navicite.eval.support_set import held_out, judge_note, load_support_set, measure_judge

    saved = read_answers(answers, need_sources=True)
    saved = saved[:limit] if limit else saved
    entailment = _judge(ctx, judge)
    scorer = CitationScorer(entailment)
    pairs = [p for p in load_support_set() if held_out(p)]
    pairs = pairs if labelled is None else pairs[: max(0, labelled)]
    with _progress() as bar:
        task = bar.add_task("judging labelled pairs", total=len(pairs))
        against_labels = measure_judge(entailment, pairs, progress=lambda done, total: bar.update(task, completed=done)) if pairs else None
        task = bar.add_task("judging answers", total=len(saved))
        results = score_citations(saved, scorer, progress=lambda done, total: bar.update(task, completed=done))
    note = judge_note(judge, settings(ctx))
    if json_out:
        print_json({"judge": note, "labelled_held_out": against_labels, "answers": results})
        return
    if against_labels:
        err_console.print(f"Judge against human labels (labelled support set, held-out part, {against_labels['pairs']} pairs): "
                          f"precision={against_labels['precision']:.4f}, recall={against_labels['recall']:.4f} "
                          f"({against_labels['accepted']} accepted, {against_labels['supported']} labelled supported)",
                          markup=False, highlight=False)
    _print_methods(f"Citations ({note})", results, json_out)


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
    method: Annotated[Optional[list[str]], typer.Option("--method", "-m", help="bm25, dense, passages, section, auto, navi or navi-memory (repeatable); default bm25 and dense.")] = None,
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
