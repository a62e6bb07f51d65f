"""Questions over the user's own documents, asked the way a user asks them (``navicite eval qa --docs``).

The documents are ingested once into a scratch data directory; every method is an
:class:`~navicite.pipeline.Engine` over that directory with its own settings overrides,
and every question goes through ``Engine.ask``, the path ``navicite ask`` takes. The
scratch directory's ``cache`` folder is a link to a fixed one (the real home's by
default), so a second run replays the model's answers instead of paying for them again.

A questions file has one JSON object a line::

    {"file": "timedep.pdf", "question": "...", "answer": "tmerge", "all_of": [["tmerge"]]}

An answer is correct when, for every group of ``all_of``, its text contains one of the
group's strings (case-insensitive); it is page-correct when the same holds for the text of
the pages its citations name (PDF documents record where each page starts).
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from navicite.config import CONFIG_FILE_NAME, Settings, load_settings
from navicite.documents import Document
from navicite.errors import UserInputError
from navicite.eval.datasets import DatasetError, read_jsonl, require_field
from navicite.eval.report import PER_QUESTION_FILE, SUMMARY_FILE, TABLE_FILE, markdown_report
from navicite.eval.runner import percentile
from navicite.generate.answer import Answer
from navicite.llm.base import LLM, LLMOutputError
from navicite.llm.deadline import DeadlineExceeded
from navicite.text.passages import page_text

#: Built-in methods: name -> settings overrides. ``default`` is navicite as configured.
BUILTIN_METHODS: dict[str, tuple[str, ...]] = {
    "document": ("generate.evidence=document",),
    "flat": ("retrieve.method=flat", "rerank.backend=none"),
    "default": (),
}
#: What runs when no method is named: the two baselines, then navicite itself.
DEFAULT_METHODS: tuple[str, ...] = ("document", "flat", "default")

#: Settings every method must share, because the documents are ingested once for all of them.
SHARED_SECTIONS: tuple[str, ...] = ("ingest",)

_MARKER = re.compile(r"\[\d+(?:\s*[,;]\s*\d+)*\]")
# A comma starts the next override only where a ``section.key=`` follows, so a TOML list
# value such as ``retrieve.noise_terms=["a","b"]`` stays in one piece.
_OVERRIDE_SPLIT = re.compile(r",(?=\s*[A-Za-z_][\w-]*\.[\w.-]+\s*=)")
_METHOD_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*$")

#: Called after each answer with (record, questions done for its method, questions in all).
Progress = Callable[["DocQARecord", int, int], None]
#: Called with a one-line message for a person (the scratch collection, ingest failures).
Notify = Callable[[str], None]
#: Builds the chat model for a method's settings (``navicite.llm.create`` unless a test gives one).
LLMFactory = Callable[[Settings], LLM]


# --------------------------------------------------------------------------- questions


@dataclass(frozen=True)
class DocQuestion:
    """One line of the questions file."""

    line: int
    question: str
    answer: str
    all_of: tuple[tuple[str, ...], ...]
    file: str | None = None


def load_questions(path: Path) -> list[DocQuestion]:
    """The questions of a JSONL file; without ``all_of`` the reference ``answer`` is the one string to find.

    Raises:
        DatasetError: the file is missing or empty, a line is not a JSON object, or a field is
            missing or of the wrong type (the message names file and line).
    """
    if not path.is_file():
        raise DatasetError(f"{path}: no such questions file (one JSON object a line: question, answer, all_of)")
    questions = []
    for number, record in read_jsonl(path):
        where = f"{path}:{number}"
        question = require_field(record, "question", where).strip()
        if not question:
            raise DatasetError(f"{where}: field 'question' is empty")
        answer = record.get("answer", "")
        if not isinstance(answer, str):
            raise DatasetError(f"{where}: field 'answer' should be str, found {type(answer).__name__}")
        groups = _all_of(record, answer, where)
        file = record.get("file")
        if file is not None and not isinstance(file, str):
            raise DatasetError(f"{where}: field 'file' should be str, found {type(file).__name__}")
        questions.append(DocQuestion(number, question, answer, groups, file or None))
    if not questions:
        raise DatasetError(f"{path}: no questions in the file")
    return questions


def _all_of(record: dict[str, Any], answer: str, where: str) -> tuple[tuple[str, ...], ...]:
    raw = record.get("all_of")
    if raw is None:
        if not answer.strip():
            raise DatasetError(f"{where}: give 'all_of' (groups of strings the answer must contain) or 'answer'")
        return ((answer.strip(),),)
    shape = f"{where}: field 'all_of' should be a list of non-empty lists of strings, e.g. [[\"tmerge\"]]"
    if not isinstance(raw, list) or not raw:
        raise DatasetError(shape)
    groups = []
    for group in raw:
        if not isinstance(group, list) or not group or not all(isinstance(s, str) and s.strip() for s in group):
            raise DatasetError(shape)
        groups.append(tuple(s.strip() for s in group))
    return tuple(groups)


# --------------------------------------------------------------------------- scoring


def _folded(text: str) -> str:
    # Case and line breaks do not matter: PDF text breaks lines inside the phrases we look for.
    return " ".join(text.casefold().split())


def answer_text(answer: Answer) -> str:
    """The answer without its ``[n]`` markers, which could split a phrase the reference looks for."""
    return _MARKER.sub("", answer.answer)


def holds_all_of(texts: str | Iterable[str], all_of: Sequence[Sequence[str]]) -> bool:
    """True when every group has a string occurring in one of ``texts`` (case- and spacing-insensitive).

    Each text is searched on its own, so a phrase does not count when it only appears
    across the join of two pages.
    """
    folded = [_folded(texts)] if isinstance(texts, str) else [_folded(t) for t in texts]
    return bool(all_of) and all(any(_folded(s) in t for s in group for t in folded) for group in all_of)


def cited_pages(citations: Iterable[Any]) -> list[tuple[str, int]]:
    """The (document id, page) pairs the citations name, first mention first."""
    seen: dict[tuple[str, int], None] = {}
    for citation in citations:
        for page in getattr(citation, "pages", None) or []:
            seen.setdefault((citation.doc_id, int(page)), None)
    return list(seen)


def pages_hold_answer(
    citations: Iterable[Any], all_of: Sequence[Sequence[str]], lookup: Callable[[str], Document | None]
) -> bool:
    """True when the pages the citations name hold the reference (every ``all_of`` group on some page)."""
    texts = []
    for doc_id, page in cited_pages(citations):
        doc = lookup(doc_id)
        if doc is not None:
            texts.append(page_text(doc, page))
    return holds_all_of([t for t in texts if t], all_of)


# --------------------------------------------------------------------------- methods


@dataclass(frozen=True)
class EvalMethod:
    """A name and the settings overrides (``section.key=value``) that make it."""

    name: str
    overrides: tuple[str, ...] = ()


def parse_method(spec: str) -> EvalMethod:
    """``NAME`` (a built-in) or ``NAME=section.key=value,section.key=value`` (a method of one's own).

    Raises:
        UserInputError: an unknown built-in, a bad name, or an override not of the form ``section.key=value``.
    """
    name, sep, rest = spec.partition("=")
    name = name.strip()
    if not _METHOD_NAME.match(name):
        raise UserInputError(f"--method {spec!r}: give NAME or NAME=section.key=value,... (NAME of letters, digits, . _ -)")
    if not sep:
        if name not in BUILTIN_METHODS:
            raise UserInputError(f"--method {name!r} is not built in ({', '.join(BUILTIN_METHODS)}); "
                                 f"define it with -m {name}=section.key=value,...")
        return EvalMethod(name, BUILTIN_METHODS[name])
    overrides = tuple(part.strip() for part in _OVERRIDE_SPLIT.split(rest) if part.strip())
    for override in overrides:
        key, eq, _ = override.partition("=")
        if not eq or "." not in key:
            raise UserInputError(f"--method {spec!r}: {override!r} is not section.key=value")
        if key.strip().split(".")[0] in SHARED_SECTIONS:
            raise UserInputError(f"--method {spec!r}: {key.strip()} applies when the documents are ingested, which every "
                                 f"method shares; set it for the whole run with -s {override}")
    return EvalMethod(name, overrides)


def parse_methods(specs: Sequence[str] | None) -> list[EvalMethod]:
    """The methods of the ``-m`` options, in order; the built-in baselines and ``default`` when none is given."""
    methods = [parse_method(s) for s in (specs or DEFAULT_METHODS)]
    names = [m.name for m in methods]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise UserInputError(f"--method {', '.join(repeated)} is named more than once")
    return methods


# --------------------------------------------------------------------------- records and report


@dataclass
class DocQARecord:
    """One method's answer to one question, with what it was scored on."""

    method: str
    line: int
    file: str | None
    question: str
    reference: str
    answer: str
    correct: bool
    cited: bool
    page_correct: bool | None
    seconds: float
    usage: dict[str, int]
    citations: list[dict[str, Any]] = field(default_factory=list)
    sentences: list[dict[str, Any]] = field(default_factory=list)
    stages: dict[str, float] = field(default_factory=dict)
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "line": self.line,
            "file": self.file,
            "question": self.question,
            "reference": self.reference,
            "answer": self.answer,
            "correct": self.correct,
            "cited": self.cited,
            "page_correct": self.page_correct,
            "seconds": round(self.seconds, 3),
            "usage": self.usage,
            "stages": self.stages,
            "citations": self.citations,
            "sentences": self.sentences,
            "error": self.error,
        }


@dataclass
class MethodFigures:
    """One method's figures over the run's questions; token, call and second figures are per answer."""

    method: str
    overrides: list[str]
    questions: int
    accuracy: float
    cited: float
    page_accuracy: float | None
    prompt_tokens: float
    completion_tokens: float
    calls: float
    seconds: float
    seconds_p95: float
    cache_hits: int
    errors: int

    @classmethod
    def of(cls, method: EvalMethod, records: Sequence[DocQARecord], pages_known: bool) -> MethodFigures:
        """Means over ``records``; page accuracy only where the collection has page numbers to cite."""
        n = max(1, len(records))

        def mean(values: Iterable[float]) -> float:
            return sum(values) / n

        return cls(
            method=method.name,
            overrides=list(method.overrides),
            questions=len(records),
            accuracy=mean(r.correct for r in records),
            cited=mean(r.cited for r in records),
            page_accuracy=mean(bool(r.page_correct) for r in records) if pages_known else None,
            prompt_tokens=mean(r.usage.get("prompt_tokens", 0) for r in records),
            completion_tokens=mean(r.usage.get("completion_tokens", 0) for r in records),
            calls=mean(r.usage.get("calls", 0) for r in records),
            seconds=mean(r.seconds for r in records),
            seconds_p95=percentile([r.seconds for r in records], 0.95),
            cache_hits=sum(r.usage.get("cache_hits", 0) for r in records),
            errors=sum(r.error is not None for r in records),
        )

    def to_dict(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if key != "method"}


@dataclass
class DocQAReport:
    """Everything one run produced."""

    questions_file: str
    documents: list[dict[str, Any]]
    methods: list[MethodFigures]
    records: list[DocQARecord]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "questions_file": self.questions_file,
            "questions": self.methods[0].questions if self.methods else 0,
            "documents": self.documents,
            "methods": {m.method: m.to_dict() for m in self.methods},
            "notes": self.notes,
        }


def markdown(report: DocQAReport) -> str:
    """One table row per method: accuracy, cited and page accuracy, then per-answer cost."""
    header = ["method", "n", "accuracy", "cited", "page acc.", "prompt tok/q", "compl. tok/q", "LLM calls/q", "s/q", "s/q p95"]
    rows = [
        [
            m.method, str(m.questions), f"{m.accuracy:.3f}", f"{m.cited:.3f}",
            "n/a" if m.page_accuracy is None else f"{m.page_accuracy:.3f}",
            f"{m.prompt_tokens:,.0f}", f"{m.completion_tokens:,.0f}", f"{m.calls:.1f}", f"{m.seconds:.1f}", f"{m.seconds_p95:.1f}",
        ]
        for m in report.methods
    ]
    title = f"Questions over documents: {Path(report.questions_file).name}, {len(report.documents)} documents"
    return markdown_report(title, header, rows, report.notes)


class RecordWriter:
    """Per-question records appended to ``per_question.jsonl`` as they are made; the summary at the end."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._handle: IO[str] | None = None

    def open(self) -> None:
        """Start the folder's record file afresh (a new run's records must not mix with an old run's)."""
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._handle = (self.folder / PER_QUESTION_FILE).open("w", encoding="utf-8")

    def add(self, record: DocQARecord) -> None:
        if self._handle is not None:
            self._handle.write(json.dumps(record.to_dict(), ensure_ascii=False) + "\n")
            self._handle.flush()  # a person may read the answers while the run goes on

    def finish(self, report: DocQAReport) -> list[Path]:
        """Close the records and write summary and table; returns the paths written."""
        self.close()
        if self.folder is None:
            return []
        summary = self.folder / SUMMARY_FILE
        summary.write_text(json.dumps(report.to_dict(), indent=2, ensure_ascii=False), encoding="utf-8")
        table = self.folder / TABLE_FILE
        table.write_text(markdown(report), encoding="utf-8")
        return [self.folder / PER_QUESTION_FILE, summary, table]

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


# --------------------------------------------------------------------------- the run


def _llm_create(settings: Settings) -> LLM:
    from navicite import llm

    return llm.create(settings)


class DocQARunner:
    """Stage: ingest the documents into a scratch collection once, then ask every question with every method.

    Args:
        home: the user's data directory; its ``navicite.toml`` applies to the scratch collection too.
        overrides: ``section.key=value`` settings of the whole run (``-s``); a method's own come after them.
        cache_home: the data directory whose ``cache`` folder (LLM answers, embeddings) the run shares;
            default ``home``.
        llm_factory: builds the chat model; one model serves every method with the same ``llm`` settings.
    """

    def __init__(
        self,
        home: Path,
        overrides: Sequence[str] = (),
        cache_home: Path | None = None,
        llm_factory: LLMFactory | None = None,
        progress: Progress | None = None,
        notify: Notify | None = None,
    ) -> None:
        self.home = Path(home)
        self.overrides = list(overrides)
        self.cache_home = Path(cache_home) if cache_home is not None else self.home
        self.llm_factory = llm_factory or _llm_create
        self.progress = progress or (lambda record, done, total: None)
        self.notify = notify or (lambda message: None)

    def method_settings(self, method: EvalMethod, home: Path | None = None) -> Settings:
        """The effective settings of ``method`` over the collection in ``home`` (default: the user's home).

        Raises:
            ConfigError: an override names an unknown setting or a bad value.
        """
        return load_settings(home or self.home, [*self.overrides, *method.overrides])

    def check(self, docs: Sequence[Path], questions_file: Path, methods: Sequence[EvalMethod]) -> list[Path]:
        """Everything that can be wrong with the input, found before anything is written; the files to ingest.

        The questions file is left out when it lies inside a documents folder: its reference
        answers would otherwise become a document the answers could cite.
        """
        from navicite.ingest.detect import plan_paths

        if not methods:
            raise UserInputError("name at least one --method")
        for method in methods:
            try:
                self.method_settings(method)
            except UserInputError as exc:
                raise UserInputError(f"--method {method.name}: {exc}") from exc
        if not docs:
            raise UserInputError("give the documents to ask with --docs PATH (files or folders)")
        plan = plan_paths(list(docs))
        skip = questions_file.resolve()
        files = [path for path, _ in plan.items if path.resolve() != skip]
        if len(files) < len(plan.items):
            self.notify(f"left the questions file {questions_file} out of the documents")
        if not files:
            raise UserInputError(f"no document of a known format in {', '.join(str(d) for d in docs)}")
        return files

    def run(
        self,
        docs: Sequence[Path],
        questions: Sequence[DocQuestion],
        methods: Sequence[EvalMethod],
        questions_file: Path,
        out: RecordWriter | None = None,
    ) -> DocQAReport:
        """Ingest ``docs`` once, ask each question with each method, score and summarise.

        Raises:
            UserInputError: bad methods or paths (see :meth:`check`), or no document could be read.
        """
        files = self.check(docs, questions_file, methods)
        writer = out or RecordWriter(None)
        with self._scratch() as scratch:
            documents, notes = self._ingest(files, scratch)
            pages_known = any(d["pages"] for d in documents)
            known_files = {d["file"] for d in documents}
            unknown = sorted({q.file for q in questions if q.file and q.file not in known_files})
            if unknown:
                notes.append(f"questions name files that are not among the documents: {', '.join(unknown)}")
            if not pages_known:
                notes.append("no document has page numbers (only PDFs do), so page accuracy is n/a")
            writer.open()
            try:
                records: list[DocQARecord] = []
                figures = []
                models: dict[str, LLM] = {}
                for method in methods:
                    done = self._ask_all(method, questions, scratch, models, documents, writer, pages_known)
                    records.extend(done)
                    figures.append(MethodFigures.of(method, done, pages_known))
                hits = sum(f.cache_hits for f in figures)
                if hits:
                    calls = sum(r.usage.get("calls", 0) for r in records)
                    notes.append(f"{hits} of {calls} LLM calls were answered from the cache ({self._cache_dir()}); "
                                 "their seconds are not the model's")
                report = DocQAReport(str(questions_file), documents, figures, records, notes)
            finally:
                writer.close()
        return report

    # -- parts -----------------------------------------------------------------------------------

    def _cache_dir(self) -> Path:
        # Settings.cache_dir says where a home keeps its caches; asked of the cache home, not the scratch one.
        return load_settings(self.home, self.overrides).model_copy(update={"home": self.cache_home}).cache_dir

    @contextmanager
    def _scratch(self) -> Iterator[Path]:
        """A temporary data directory with the user's config file and a link to the shared cache folder."""
        with tempfile.TemporaryDirectory(prefix="navicite-eval-qa-") as folder:
            scratch = Path(folder) / "home"
            scratch.mkdir()
            config = self.home / CONFIG_FILE_NAME
            if config.is_file():
                shutil.copyfile(config, scratch / CONFIG_FILE_NAME)
            cache = self._cache_dir()
            cache.mkdir(parents=True, exist_ok=True)
            try:
                (scratch / "cache").symlink_to(cache.resolve(), target_is_directory=True)
                self.notify(f"scratch collection {scratch}; LLM cache {cache}")
            except OSError as exc:  # e.g. no symlinks on this file system: answers are paid for again
                self.notify(f"scratch collection {scratch}; cannot share the cache {cache} ({exc.strerror}), so it starts empty")
            yield scratch

    def _ingest(self, files: list[Path], scratch: Path) -> tuple[list[dict[str, Any]], list[str]]:
        """Ingest once for every method; the documents (id, file, title, pages) and notes on failures."""
        from navicite.collection import CollectionStore

        collection = CollectionStore(load_settings(scratch, self.overrides))
        index = collection.documents
        try:
            summary = collection.ingest(files)
            documents = []
            for doc_id in index.ids():
                doc = index.get(doc_id)
                if doc is not None:
                    source = str(doc.metadata.get("source") or "")
                    documents.append({"id": doc.id, "file": Path(source).name if source else "", "title": doc.title,
                                      "pages": len(doc.metadata.get("page_starts") or [])})
        finally:
            collection.close()
        notes = [f"could not read {f.path}: {f.reason}" for f in summary.failed]
        for note in notes:
            self.notify(note)
        if not documents:
            raise UserInputError("none of the documents could be read" + (f" ({notes[0]})" if notes else ""))
        self.notify(f"ingested {len(documents)} document(s) from {len(files)} file(s) in {summary.seconds:.1f} s")
        return sorted(documents, key=lambda d: (d["file"], d["id"])), notes

    def _ask_all(
        self,
        method: EvalMethod,
        questions: Sequence[DocQuestion],
        scratch: Path,
        models: dict[str, LLM],
        documents: list[dict[str, Any]],
        writer: RecordWriter,
        pages_known: bool,
    ) -> list[DocQARecord]:
        from navicite.pipeline import Engine

        settings = self.method_settings(method, scratch)
        key = settings.llm.model_dump_json()
        if key not in models:  # loading the embedded model once, not once per method
            models[key] = self.llm_factory(settings)
        engine = Engine(settings, llm=models[key])
        files = {d["id"]: d["file"] for d in documents}
        stored: dict[str, Document | None] = {}

        def lookup(doc_id: str) -> Document | None:
            if doc_id not in stored:
                stored[doc_id] = engine.index.get(doc_id)
            return stored[doc_id]

        records = []
        try:
            for done, question in enumerate(questions, start=1):
                record = self._ask(engine, method, question, lookup if pages_known else None, files)
                records.append(record)
                writer.add(record)
                self.progress(record, done, len(questions))
        finally:
            engine.close()
            engine.index.close()
        return records

    @staticmethod
    def _ask(
        engine: Any,
        method: EvalMethod,
        question: DocQuestion,
        lookup: Callable[[str], Document | None] | None,
        files: dict[str, str],
    ) -> DocQARecord:
        """Ask and score one question; ``lookup`` finds cited documents' pages (None: the collection has none)."""
        started = time.perf_counter()
        try:
            answer: Answer | None = engine.ask(question.question)
            error = None
        except (UserInputError, LLMOutputError, DeadlineExceeded) as exc:
            # Nothing found, a reply the model could not repair, an answer past llm.answer_timeout_s:
            # a wrong answer, not the end of the run.
            answer, error = None, str(exc)
        record = DocQARecord(
            method=method.name, line=question.line, file=question.file, question=question.question,
            reference=question.answer, answer="", correct=False, cited=False,
            page_correct=None if lookup is None else False, seconds=time.perf_counter() - started, usage={}, error=error,
        )
        if answer is None:
            return record
        llm = answer.llm
        record.usage = {
            "calls": int(llm.get("calls", 0)),
            "prompt_tokens": int(llm.get("prompt_tokens", 0)),
            "completion_tokens": int(llm.get("completion_tokens", 0)),
            "cache_hits": int(sum(s.get("cache_hits", 0) for s in llm.get("stages", {}).values())),
        }
        record.answer = answer.answer
        record.correct = holds_all_of(answer_text(answer), question.all_of)
        record.cited = bool(answer.citations)
        if lookup is not None:
            record.page_correct = pages_hold_answer(answer.citations, question.all_of, lookup)
        record.citations = [
            {**c.to_dict(), "file": files.get(c.doc_id, ""), "pages": list(getattr(c, "pages", None) or [])}
            for c in answer.citations
        ]
        record.sentences = [{"text": s.text, "kind": s.kind, "markers": list(s.markers)} for s in answer.sentences
                            if s.kind != "heading"]
        record.stages = {t.name: t.seconds for t in answer.trace}
        return record
