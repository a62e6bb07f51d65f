"""Evidence retrieval inside long documents, scored by answer-in-context recall.

Each method gets a question and the one long document it is about, and returns
evidence texts best first; the texts are cut to the same token budget for every
method, then scored by how much of the gold answer they contain (NaviRAG's
"Recall"; for a multiple-choice question the text of the right option). Methods:

- ``bm25``: the document's segments ranked by BM25 against the question;
- ``dense``: the segments ranked by cosine similarity of their embeddings;
- ``passages``: what ``ask`` quotes by default: the document's passages (sentence-aligned,
  ``ingest.passage_words``) scored by BM25 and ordered by the shipped reranker
  (``rerank.backend``), the best taken up to the budget and quoted in document order;
- ``section``: ``passages``' ranking with a share of the budget (``navigate.widen_share``) given to
  the best passage's section, nearest neighbours first (:mod:`navicite.navigate.widen`; no model);
- ``auto``: what ``ask --mode auto`` reads: ``section`` when the best passage sits under a heading
  (:func:`navicite.navigate.widen.sectioned`), else ``passages``;
- ``navi`` / ``navi-memory``: the navigation agent's evidence in the document's
  knowledge tree (built on first use into the run's cache, with its cost recorded; here
  every document gets one, also those below ``navigate.min_document_words``), topped up
  to the budget with BM25's best passages the walk did not take (``-s
  navigate.fill_tokens=0`` scores navigation's picks alone).

With ``answer``, the model then answers each question from each method's evidence
(eval/reading.py): multiple-choice accuracy, or EM/F1 of a short answer.

Records are appended to ``evidence.jsonl`` (and ``answers.jsonl``) in the output folder
as they finish, and a later run with the same folder and budget skips them, so a slow
model run resumes.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

from navicite.config import Settings
from navicite.documents import Document, Passage, Segment
from navicite.errors import UserInputError
from navicite.eval.datasets import EvalDataset, EvalQuestion
from navicite.eval.metrics import answer_in_context_recall
from navicite.eval.reading import EvidenceReader, ReadingRecord, summarise_reading
from navicite.generate.sources import truncate_to_tokens
from navicite.lexical import LocalBM25
from navicite.llm.base import LLM
from navicite.stages import StageRecorder
from navicite.text.tokens import estimate_tokens
from navicite.text.segments import segment

RECORDS_FILE = "evidence.jsonl"
ANSWERS_FILE = "answers.jsonl"
METHODS: tuple[str, ...] = ("bm25", "dense", "passages", "navi", "navi-memory", "section", "auto")

#: Tokens the " …" ending of a cut text costs.
_ELLIPSIS_TOKENS = 2
#: Called with (method, questions done, questions total).
Progress = Callable[[str, int, int], None]
_Saved = TypeVar("_Saved", "EvidenceRecord", ReadingRecord)


@dataclass
class EvidenceRecord:
    """One method's evidence for one question, cut to the budget, with its score and cost."""

    method: str
    question_id: str
    doc_id: str
    budget: int
    evidence: list[str]
    recall: float
    tokens: int
    seconds: float
    llm_calls: int = 0
    paths: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def gold_texts(question: EvalQuestion) -> tuple[str, ...]:
    """What the evidence has to contain: the right option's text for multiple choice, else the answers."""
    letter = question.metadata.get("gold_choice")
    if letter:
        return (question.metadata.get("choices", {}).get(letter, ""),)
    return question.answers


def first_per_document(questions: list[EvalQuestion], n: int) -> list[EvalQuestion]:
    """The first ``n`` questions about each document, in data set order."""
    counts: dict[str, int] = {}
    kept = []
    for question in questions:
        key = ",".join(sorted(question.gold))
        counts[key] = counts.get(key, 0) + 1
        if counts[key] <= n:
            kept.append(question)
    return kept


def within_budget(texts: list[str], budget: int) -> list[str]:
    """``texts`` in order until ``budget`` tokens are spent; the one that overflows is cut to fit, and is the last."""
    out: list[str] = []
    left = budget
    for text in texts:
        if left <= 0:
            break
        cut, was_cut = truncate_to_tokens(text.strip(), left)
        if was_cut:  # a cut text ends with " …", which the cut does not count: leave room for it
            cut, _ = truncate_to_tokens(text.strip(), left - _ELLIPSIS_TOKENS)
        if cut.strip() and estimate_tokens(cut) <= left:
            out.append(cut)
            left -= estimate_tokens(cut)
        if was_cut:
            break
    return out


class EvidenceMethod(Protocol):
    """Finds evidence for a question inside one document."""

    name: str

    def run(self, question: EvalQuestion, document: Document) -> tuple[list[str], dict[str, Any]]:
        """Evidence texts best first, and extras for the record (``llm_calls``, ``paths``)."""
        ...


class _Segments:
    """The document's segments, as every flat method cuts them."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._cache: dict[str, list[Segment]] = {}

    def of(self, document: Document) -> list[Segment]:
        if document.id not in self._cache:
            ingest = self.settings.ingest
            self._cache[document.id] = segment(document, ingest.segment_words, ingest.segment_overlap)
        return self._cache[document.id]


class BM25Segments:
    """Flat chunk retrieval: the document's segments ranked by BM25 (bm25s, English stemming)."""

    name = "bm25"

    def __init__(self, settings: Settings) -> None:
        self.segments = _Segments(settings)

    def run(self, question: EvalQuestion, document: Document) -> tuple[list[str], dict[str, Any]]:
        texts = [s.text for s in self.segments.of(document)]
        return [texts[i] for i in LocalBM25(texts).ranking(question.text)], {}


class DenseSegments:
    """Flat chunk retrieval: the document's segments ranked by cosine similarity to the question."""

    name = "dense"

    def __init__(self, settings: Settings, cache_dir: Path) -> None:
        from navicite import embed

        self.segments = _Segments(settings)
        self.embedder = embed.create(settings)
        self.cache_dir = cache_dir

    def run(self, question: EvalQuestion, document: Document) -> tuple[list[str], dict[str, Any]]:
        from navicite.embed import embed_cached

        texts = [s.text for s in self.segments.of(document)]
        if not texts:
            return [], {}
        vectors = _unit(embed_cached(self.embedder, texts, self.cache_dir))
        probe = _unit(self.embedder.embed([question.text], query=True))[0]
        order = np.argsort(-(vectors @ probe), kind="stable")
        return [texts[int(i)] for i in order], {}


class RankedPassages:
    """The default evidence of ``ask``: reranked passages, the best up to the budget, in document order."""

    name = "passages"

    def __init__(self, settings: Settings, budget: int) -> None:
        from navicite import rerank

        self.words = settings.ingest.passage_words
        self.reranker = rerank.create(settings)
        self.budget = budget
        self._passages: dict[str, list[Passage]] = {}

    def ranking(self, question: EvalQuestion, document: Document) -> list[Passage]:
        """The document's passages, best first by BM25 then the reranker."""
        from navicite.rerank.base import RerankItem

        passages = self.passages(document)
        if not passages:
            return []
        bm25 = LocalBM25([p.text for p in passages]).scores(question.text)
        items = [RerankItem(str(i), f"{document.title}\n{p.text}", {"bm25": float(bm25[i])}) for i, p in enumerate(passages)]
        return [passages[int(scored.doc_id)] for scored in self.reranker.rerank(question.text, items, len(items))]

    def passages(self, document: Document) -> list[Passage]:
        """The document's passages in order (cut once per document)."""
        from navicite.text.passages import cut_passages

        if document.id not in self._passages:
            self._passages[document.id] = cut_passages(document, self.words)
        return self._passages[document.id]

    def run(self, question: EvalQuestion, document: Document) -> tuple[list[str], dict[str, Any]]:
        return in_reading_order(self.ranking(question, document), self.budget), {}


def in_reading_order(ranked: list[Passage], budget: int) -> list[str]:
    """The best passages up to ``budget`` in document order; the next best, cut to what is left, last."""
    chosen: list[Passage] = []
    left = budget
    overflow: list[Passage] = []
    for passage in ranked:
        cost = estimate_tokens(passage.text)
        if cost > left:
            overflow = [passage]
            break
        chosen.append(passage)
        left -= cost
    return [p.text for p in [*sorted(chosen, key=lambda p: p.number), *overflow]]


class SectionPassages:
    """``passages`` widened: a share of the budget goes to the best passage's section (``auto``: only
    when it sits under a heading; a document without headings widens to the neighbours otherwise)."""

    def __init__(self, settings: Settings, budget: int, auto: bool = False) -> None:
        self.name = "auto" if auto else "section"
        self.flat = RankedPassages(settings, budget)
        self.share = settings.navigate.widen_share
        self.budget = budget
        self.auto = auto

    def run(self, question: EvalQuestion, document: Document) -> tuple[list[str], dict[str, Any]]:
        from navicite.navigate.widen import asks_for_summary, opening, sectioned, widen

        if self.auto and asks_for_summary(question.text):
            return [p.text for p in opening(self.flat.passages(document), self.budget)], {"paths": ["opening"]}
        ranked = self.flat.ranking(question, document)
        if self.auto and not sectioned(ranked):
            return in_reading_order(ranked, self.budget), {"paths": ["flat"]}
        widened = widen(ranked, lambda _doc: self.flat.passages(document), self.budget, self.share)
        label = " > ".join(widened.section) or "(neighbours)"
        return in_reading_order(widened.passages, self.budget), {"paths": [f"section: {label} (+{widened.added})"]}


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


class NaviEvidence:
    """NaviRAG: the navigation agent's evidence in the document's tree (built on first use)."""

    def __init__(self, settings: Settings, tree_file: Path, memory: bool, llm: LLM | None = None, budget: int | None = None) -> None:
        from navicite import llm as llm_layer
        from navicite.navigate import Navigator, TreeBuilder, TreeStore

        self.name = "navi-memory" if memory else "navi"
        self.llm = llm or llm_layer.create(settings)
        # Every evaluated document gets a tree, however short: the comparison is per question,
        # and a question the navigator could not take would leave a hole in every table.
        whole = settings.model_copy(update={"navigate": settings.navigate.model_copy(update={"min_document_words": 0})})
        self.builder = TreeBuilder(whole, self.llm, TreeStore(tree_file))
        self.navigator = Navigator(self.llm, settings, memory=memory)
        # The fill tops up to the evaluated budget rather than the setting's own target (0 stays off).
        self.fill_tokens = budget if budget and settings.navigate.fill_tokens else settings.navigate.fill_tokens

    def run(self, question: EvalQuestion, document: Document) -> tuple[list[str], dict[str, Any]]:
        # build() keeps a tree of this document version and build parameters, and rebuilds any other.
        outcome = self.builder.build(document)
        tree = self.builder.store.get(document.id)
        if tree is None or outcome.status == "failed":
            raise UserInputError(f"no tree for {document.id}: {outcome.status} {outcome.error or ''}".strip())
        recorder = StageRecorder()  # this navigation's calls, not those of others sharing the model
        with recorder.stage("navigate"):
            navigation = self.navigator.run(question.text, tree, self.fill_tokens)
        paths = list(dict.fromkeys(e.path_label + (" [fill]" if e.via == "fill" else "") for e in navigation.evidence))
        return [e.text for e in navigation.evidence], {"llm_calls": recorder.usage()["calls"], "paths": paths}


def create_evidence_method(name: str, settings: Settings, folder: Path, llm: LLM | None = None, budget: int | None = None) -> EvidenceMethod:
    """Build a method by name; ``folder`` holds its caches (embeddings, trees); ``llm`` defaults to the
    configured model; ``budget`` is the evidence budget (navigation fills up to it)."""
    if name == "bm25":
        return BM25Segments(settings)
    if name == "dense":
        return DenseSegments(settings, folder / "embeddings")
    if name == "passages":
        return RankedPassages(settings, budget or 1500)
    if name in ("section", "auto"):
        return SectionPassages(settings, budget or 1500, auto=name == "auto")
    if name in ("navi", "navi-memory"):
        return NaviEvidence(settings, folder / "trees.sqlite", memory=name == "navi-memory", llm=llm, budget=budget)
    raise UserInputError(f"unknown evidence method {name!r}; available: {', '.join(METHODS)}")


@dataclass
class EvidenceReport:
    """Per method: questions scored, mean recall, mean evidence tokens, LLM calls (and answer
    scores when answering); tree builds."""

    dataset: str
    budget: int
    methods: dict[str, dict[str, float]]
    builds: dict[str, dict[str, Any]]
    records: list[EvidenceRecord]
    readings: list[ReadingRecord] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "budget_tokens": self.budget, "methods": self.methods, "tree_builds": self.builds}


class EvidenceRunner:
    """Stage: each method finds evidence for each question in its document; score and summarise."""

    def __init__(
        self,
        dataset: EvalDataset,
        settings: Settings,
        methods: list[str],
        budget: int,
        out_dir: Path | None = None,
        progress: Progress | None = None,
        llm: LLM | None = None,
        answer: bool = False,
    ) -> None:
        unknown = [m for m in methods if m not in METHODS]
        if unknown or not methods:
            raise UserInputError(f"--method: choose from {', '.join(METHODS)} (got {', '.join(unknown) or 'none'})")
        if budget <= 0:
            raise UserInputError("--budget must be a positive number of tokens")
        self.dataset = dataset
        self.settings = settings
        self.methods = list(dict.fromkeys(methods))
        self.budget = budget
        self.out_dir = out_dir
        self.progress = progress or (lambda method, done, total: None)
        self._llm = llm
        self.answer = answer
        self.folder = settings.cache_dir / "eval" / dataset.corpus_key()

    @property
    def llm(self) -> LLM:
        """The model shared by navigation and answering, loaded on first use."""
        if self._llm is None:
            from navicite import llm as llm_layer

            self._llm = llm_layer.create(self.settings)
        return self._llm

    def run(self, questions: list[EvalQuestion]) -> EvidenceReport:
        """Find, cut, score (and answer); records already in the output folder (same budget) are reused."""
        documents = {d.id: d for d in self.dataset.corpus}
        done = self._load(RECORDS_FILE, EvidenceRecord)
        answered = self._load(ANSWERS_FILE, ReadingRecord) if self.answer else {}
        records: list[EvidenceRecord] = []
        readings: list[ReadingRecord] = []
        summary: dict[str, dict[str, float]] = {}
        for name in self.methods:
            method: EvidenceMethod | None = None
            mine = []
            read = []
            for count, question in enumerate(questions, start=1):
                record = done.get((name, question.id))
                if record is None:
                    needs_llm = name.startswith("navi")
                    method = method or create_evidence_method(
                        name, self.settings, self.folder, self.llm if needs_llm else None, self.budget
                    )
                    record = self._one(method, question, documents)
                    self._save(RECORDS_FILE, record)
                mine.append(record)
                if self.answer:
                    read.append(answered.get((name, question.id)) or self._read(record, question))
                self.progress(name, count, len(questions))
            records.extend(mine)
            readings.extend(read)
            summary[name] = {**_summarise(mine), **(summarise_reading(read) if self.answer else {})}
        navigated = sorted({r.doc_id for r in records if r.method.startswith("navi")})
        return EvidenceReport(self.dataset.name, self.budget, summary, self._tree_costs(navigated), records, readings)

    def _read(self, record: EvidenceRecord, question: EvalQuestion) -> ReadingRecord:
        reading = EvidenceReader(self.llm).run(record.method, question, record.evidence, self.budget)
        self._save(ANSWERS_FILE, reading)
        return reading

    def _tree_costs(self, doc_ids: list[str]) -> dict[str, dict[str, Any]]:
        """Build cost of each navigated document's stored tree (read back, so a resumed run reports it too)."""
        from navicite.navigate import TreeStore

        path = self.folder / "trees.sqlite"
        if not doc_ids or not path.is_file():
            return {}
        store = TreeStore(path)
        trees = {doc_id: store.get(doc_id) for doc_id in doc_ids}
        return {doc_id: tree.cost.to_dict() for doc_id, tree in trees.items() if tree is not None}

    def _one(self, method: EvidenceMethod, question: EvalQuestion, documents: dict[str, Document]) -> EvidenceRecord:
        doc_id = next(iter(question.gold), None)
        document = documents.get(doc_id or "")
        if document is None:
            raise UserInputError(f"question {question.id} names no document of the data set; evidence needs one per question")
        started = time.perf_counter()
        texts, extra = method.run(question, document)
        seconds = time.perf_counter() - started
        evidence = within_budget(texts, self.budget)
        return EvidenceRecord(
            method=method.name,
            question_id=question.id,
            doc_id=document.id,
            budget=self.budget,
            evidence=evidence,
            recall=answer_in_context_recall(gold_texts(question), evidence),
            tokens=sum(estimate_tokens(t) for t in evidence),
            seconds=round(seconds, 3),
            llm_calls=int(extra.get("llm_calls", 0)),
            paths=list(extra.get("paths", [])),
        )

    def _load(self, name: str, kind: type[_Saved]) -> dict[tuple[str, str], _Saved]:
        """Records of this budget in the output folder's file ``name``, by (method, question id)."""
        path = self.out_dir / name if self.out_dir else None
        found: dict[tuple[str, str], _Saved] = {}
        if path is None or not path.is_file():
            return found
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = kind(**json.loads(line))
            except (json.JSONDecodeError, TypeError):
                continue  # the last line of an interrupted run may be cut short
            if record.budget == self.budget:
                found[(record.method, record.question_id)] = record
        return found

    def _save(self, name: str, record: EvidenceRecord | ReadingRecord) -> None:
        if self.out_dir is None:
            return
        self.out_dir.mkdir(parents=True, exist_ok=True)
        with (self.out_dir / name).open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record.to_dict(), ensure_ascii=False) + "\n")


def _summarise(records: list[EvidenceRecord]) -> dict[str, float]:
    n = max(1, len(records))
    return {
        "questions": len(records),
        "documents": len({r.doc_id for r in records}),
        "answer_in_context_recall": sum(r.recall for r in records) / n,
        "evidence_tokens": sum(r.tokens for r in records) / n,
        "llm_calls_per_question": sum(r.llm_calls for r in records) / n,
        "seconds_per_question": sum(r.seconds for r in records) / n,
    }
