"""Evaluation data sets: questions with gold documents and answers, plus the corpus.

A data set is named ``KIND:PATH`` on the command line:

- ``beir:DIR`` -- ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/SPLIT.tsv`` (BEIR layout).
- ``hotpotqa:FILE`` -- HotpotQA questions. If a corpus file sits beside it
  (``hipporag-train-100.json`` -> ``hipporag-train-corpus.json``, title -> sentences) every
  question is asked against that one shared corpus; otherwise each question is ranked
  within its own ``context`` paragraphs (the distractor setting). Gold = the supporting
  paragraphs, by title (a paragraph's id derives from its title, as ``navicite ingest`` makes it).
- ``musique:FILE`` -- MuSiQue questions; shared corpus beside it as for HotpotQA, else each
  question's own ``paragraphs``. Gold = the paragraphs marked ``is_supporting``.
- ``leval:FILE`` -- an L-Eval file: one long document per line with its questions.
- ``korquad:FILE`` -- KorQuAD 1.0 (or any SQuAD-format file): every paragraph is a document
  (id ``TITLE#N``, the article title as its title and parent), each question's gold is its paragraph
  and its answers are the answer texts. Paragraphs with identical text are one document.
- ``jsonl:FILE`` -- your own: one question per line (``question``, ``answers``,
  ``gold_ids``), with the corpus in ``corpus.jsonl`` beside it.

Corpus documents are read by the loaders ``navicite ingest`` uses (:mod:`navicite.ingest.records`:
BEIR and JSONL records, title -> sentences corpora), so a document has the same id and fields
here as in a collection the user ingested; a record ingest would skip as empty is skipped here too.

Any problem with a file is a :class:`DatasetError` naming the file and line (exit 2).
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from navicite.documents import PARENT_KEY, Document
from navicite.errors import UserInputError
from navicite.ingest import records
from navicite.ingest.base import Failure
from navicite.ingest.records import EmptyRecord, FieldMapping, MalformedJSON, RecordStream
from navicite.text.sections import plain_text_sections

#: Bumped when a loader changes how it builds documents, so cached indexes are rebuilt.
#: 2: corpora read by the ingest loaders (BEIR text in ``text``, HotpotQA ids from the title).
#: 3: L-Eval documents carry their heading lines as sections.
LOADER_VERSION = "3"


class DatasetError(UserInputError):
    """A data set path or file that cannot be used; names the file (and line) and the fix."""


@dataclass(frozen=True)
class EvalQuestion:
    """One question of a data set.

    ``gold`` maps relevant document ids to their relevance grade (> 0 is relevant).
    ``candidates``, when set, restricts the ranking to those documents (HotpotQA's
    distractor setting: each question comes with its own ten paragraphs).
    """

    id: str
    text: str
    gold: dict[str, int]
    answers: tuple[str, ...] = ()
    candidates: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class EvalDataset:
    """Questions plus the corpus they are asked against."""

    name: str
    kind: str
    questions: list[EvalQuestion]
    corpus: list[Document]
    #: Files whose bytes define the corpus; their hash keys the cached index.
    corpus_files: tuple[Path, ...]
    notes: list[str] = field(default_factory=list)

    def corpus_key(self) -> str:
        """A short hash of the corpus files and the loader version, for cache folders."""
        digest = hashlib.sha256(f"{self.kind}\x1f{LOADER_VERSION}".encode())
        for path in self.corpus_files:
            with path.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
        return f"{self.kind}-{digest.hexdigest()[:16]}"


# --------------------------------------------------------------------------- file reading


def _require_file(path: Path, what: str) -> Path:
    if not path.is_file():
        raise DatasetError(f"{path}: {what} not found; check the data set path")
    return path


def _json_error(where: str, error: ValueError) -> DatasetError:
    """A JSON line or file that does not parse; ``where`` is ``file:line``."""
    if isinstance(error, json.JSONDecodeError):
        return DatasetError(f"{where}: not valid JSON ({error.msg} at column {error.colno})")
    if isinstance(error, UnicodeDecodeError):
        return DatasetError(f"{where}: not UTF-8 text ({error.reason})")
    return DatasetError(f"{where}: {error}")


def read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, object)`` for each non-blank line; bad JSON names file and line."""
    _require_file(path, "file")
    for number, value, error in records.json_lines(path):
        if error is not None:
            raise _json_error(f"{path}:{number}", error) from error
        if not isinstance(value, dict):
            raise DatasetError(f"{path}:{number}: expected a JSON object, found {type(value).__name__}")
        yield number, value


def read_json(path: Path) -> Any:
    """Load a whole JSON file; a syntax error names file and line."""
    _require_file(path, "file")
    try:
        return records.read_json(path)
    except json.JSONDecodeError as exc:
        raise _json_error(f"{path}:{exc.lineno}", exc) from exc
    except (UnicodeDecodeError, records.TooDeeplyNested) as exc:
        raise _json_error(str(path), exc) from exc


def corpus_documents(stream: RecordStream) -> list[Document]:
    """The documents an ingest loader yields; its first failure is a :class:`DatasetError`.

    Records with nothing to index are skipped, as ``navicite ingest`` skips them.
    """
    documents = []
    for item in stream:
        if isinstance(item, Document):
            documents.append(item)
        elif isinstance(item, MalformedJSON):
            # A JSONL failure names its line already; a whole file's names the file alone.
            line = getattr(item.error, "lineno", None)
            whole_file = Path(item.path).is_file()
            raise _json_error(f"{item.path}:{line}" if whole_file and line else item.path, item.error) from item.error
        elif isinstance(item, Failure):
            raise DatasetError(f"{item.path}: {item.reason}; fix the record or leave it out of the corpus")
        elif not isinstance(item, EmptyRecord):
            raise TypeError(f"unexpected loader item {item!r}")
    return documents


def beir_corpus(path: Path) -> list[Document]:
    """A BEIR ``corpus.jsonl`` (or its folder), read as ``navicite ingest --format beir`` reads it."""
    _require_file(path / "corpus.jsonl" if path.is_dir() else path, "corpus file")
    return corpus_documents(records.load_beir(path, FieldMapping()))


def title_corpus(path: Path) -> list[Document]:
    """A title -> sentences corpus (or MuSiQue's list of ``{title, text}``), as ``--format hotpotqa`` reads it."""
    _require_file(path, "corpus file")
    return corpus_documents(records.load_title_corpus(path, FieldMapping()))


def require_field(record: dict[str, Any], key: str, where: str, kind: type | tuple[type, ...] = str) -> Any:
    """A required field of a record, type-checked; ``where`` is ``file:line`` or ``file record #n``."""
    if key not in record:
        raise DatasetError(f"{where}: missing field {key!r}")
    value = record[key]
    if not isinstance(value, kind):
        raise DatasetError(f"{where}: field {key!r} should be {_type_name(kind)}, found {type(value).__name__}")
    return value


def _type_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)


def _json_list(path: Path) -> list[Any]:
    data = read_json(path)
    if not isinstance(data, list):
        raise DatasetError(f"{path}: expected a JSON list of questions, found {type(data).__name__}")
    return data


def _record(data: Any, path: Path, index: int) -> tuple[dict[str, Any], str]:
    where = f"{path} record #{index + 1}"
    if not isinstance(data, dict):
        raise DatasetError(f"{where}: expected a JSON object, found {type(data).__name__}")
    return data, where


def _sibling_corpus(path: Path) -> Path | None:
    """``name-100.json`` -> ``name-corpus.json`` beside it, if that file exists."""
    stem = re.sub(r"-\d+$", "", path.stem)
    candidate = path.with_name(f"{stem}-corpus{path.suffix}")
    return candidate if candidate.is_file() and candidate != path else None


# --------------------------------------------------------------------------- BEIR


def load_beir(path: Path, split: str | None) -> EvalDataset:
    """A BEIR folder; only queries with judgements in ``qrels/<split>.tsv`` are kept."""
    if not path.is_dir():
        raise DatasetError(f"{path}: not a folder; a BEIR data set is a folder with corpus.jsonl, queries.jsonl and qrels/")
    split = split or "test"
    qrels_path = path / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        available = sorted(p.stem for p in (path / "qrels").glob("*.tsv")) if (path / "qrels").is_dir() else []
        raise DatasetError(f"{qrels_path}: no such split; available splits: {', '.join(available) or 'none'} (use --split)")
    corpus_path = _require_file(path / "corpus.jsonl", "corpus.jsonl")
    corpus = beir_corpus(corpus_path)
    qrels = _read_qrels(qrels_path)
    queries: dict[str, str] = {}
    queries_path = _require_file(path / "queries.jsonl", "queries.jsonl")
    for number, rec in read_jsonl(queries_path):
        where = f"{queries_path}:{number}"
        queries[str(require_field(rec, "_id", where, (str, int)))] = require_field(rec, "text", where)
    missing = [qid for qid in qrels if qid not in queries]
    if missing:
        raise DatasetError(f"{qrels_path}: query ids not in queries.jsonl, e.g. {missing[0]!r}")
    questions = [EvalQuestion(id=qid, text=queries[qid], gold=gold) for qid, gold in qrels.items()]
    return EvalDataset(f"beir:{path.name}", "beir", questions, corpus, (corpus_path,))


def _read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.reader(handle, delimiter="\t"), start=1):
            if not row or (number == 1 and row[0] == "query-id"):
                continue
            if len(row) != 3:
                raise DatasetError(f"{path}:{number}: expected 3 tab-separated columns (query-id, corpus-id, score), found {len(row)}")
            try:
                score = int(float(row[2]))
            except ValueError as exc:
                raise DatasetError(f"{path}:{number}: score {row[2]!r} is not a number") from exc
            qrels.setdefault(row[0], {})[row[1]] = score
    return qrels


# --------------------------------------------------------------------------- HotpotQA


def _columns_to_rows(value: Any, first: str, second: str) -> Any:
    """The Hugging Face layout stores pairs as two columns ({"title": [...], "sent_id": [...]}); make rows."""
    if isinstance(value, dict) and isinstance(value.get(first), list) and isinstance(value.get(second), list):
        return [list(pair) for pair in zip(value[first], value[second])]
    return value


def _hotpot_context(rec: dict[str, Any], where: str) -> list[Document]:
    """A distractor-setting question's own paragraphs, built as a shared corpus's entries are."""
    docs = []
    rows = _columns_to_rows(rec.get("context"), "title", "sentences")
    if not isinstance(rows, list):
        raise DatasetError(f"{where}: field 'context' should be a list of [title, [sentences]]")
    for item in rows:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) and isinstance(item[1], list)
                and all(isinstance(s, str) for s in item[1])):
            raise DatasetError(f"{where}: each context entry should be [title, [sentences]]")
        document = records.title_document(item[0], item[1])
        if document is not None:
            docs.append(document)
    return docs


def load_hotpotqa(path: Path, split: str | None = None) -> EvalDataset:
    """HotpotQA questions, against the shared corpus beside the file if there is one."""
    items = _json_list(path)
    corpus_path = _sibling_corpus(path)
    shared: list[Document] = []
    if corpus_path is not None:
        raw = read_json(corpus_path)
        if not isinstance(raw, dict):
            raise DatasetError(f"{corpus_path}: expected a JSON object mapping title -> list of sentences")
        for title, sentences in raw.items():
            if not isinstance(sentences, list) or not all(isinstance(s, str) for s in sentences):
                raise DatasetError(f"{corpus_path}: entry {title!r} should be a list of sentences")
        shared = corpus_documents(records.title_corpus_documents(raw, corpus_path))
    pooled: dict[str, Document] = {}
    questions = []
    for index, data in enumerate(items):
        rec, where = _record(data, path, index)
        facts = _columns_to_rows(rec.get("supporting_facts"), "title", "sent_id")
        if not isinstance(facts, list) or not all(isinstance(f, list) and f and isinstance(f[0], str) for f in facts):
            raise DatasetError(f"{where}: supporting_facts should be [[title, sentence index], ...]")
        # A supporting fact names its paragraph by title; the document's id derives from it.
        gold = {records.title_document_id(f[0]): 1 for f in facts}
        candidates: tuple[str, ...] = ()
        if corpus_path is None:
            context = _hotpot_context(rec, where)
            for doc in context:
                pooled.setdefault(doc.id, doc)
            candidates = tuple(doc.id for doc in context)
        qid = str(rec.get("_id") or rec.get("id") or index)
        questions.append(
            EvalQuestion(
                id=qid,
                text=require_field(rec, "question", where),
                gold=gold,
                answers=(str(require_field(rec, "answer", where)),),
                candidates=candidates,
                metadata={"type": rec.get("type"), "level": rec.get("level"), "supporting_facts": facts},
            )
        )
    corpus = shared if corpus_path is not None else list(pooled.values())
    files = (corpus_path,) if corpus_path is not None else (path,)
    dataset = EvalDataset(f"hotpotqa:{path.stem}", "hotpotqa", questions, corpus, files)
    _note_missing_gold(dataset)
    return dataset


def _note_missing_gold(dataset: EvalDataset) -> None:
    ids = {doc.id for doc in dataset.corpus}
    missing = sum(1 for q in dataset.questions for g in q.gold if g not in ids)
    if missing:
        dataset.notes.append(f"{missing} gold documents are not in the corpus; recall cannot reach 1")


# --------------------------------------------------------------------------- MuSiQue


def _musique_paragraph(para: dict[str, Any], where: str) -> Document:
    """A question's paragraph as the corpus record ``{title, text}`` it copies (so the ids agree).

    Titles repeat in MuSiQue (several paragraphs of one article), so ids come from content.
    """
    title, text = require_field(para, "title", where), require_field(para, "paragraph_text", where)
    document = records.record_to_document({"title": title, "text": text}, FieldMapping(), where)
    if not isinstance(document, Document):
        raise DatasetError(f"{where}: a paragraph has no title and no text")
    return document


def load_musique(path: Path, split: str | None = None) -> EvalDataset:
    """MuSiQue questions, against the shared corpus beside the file if there is one."""
    items = _json_list(path)
    corpus_path = _sibling_corpus(path)
    corpus: dict[str, Document] = {}
    if corpus_path is not None:
        paragraphs = _json_list(corpus_path)
        for document in corpus_documents(records.json_documents(paragraphs, corpus_path, FieldMapping())):
            corpus.setdefault(document.id, document)
    questions = []
    for index, data in enumerate(items):
        rec, where = _record(data, path, index)
        gold: dict[str, int] = {}
        own: list[str] = []
        for para in require_field(rec, "paragraphs", where, list):
            if not isinstance(para, dict):
                raise DatasetError(f"{where}: each paragraph should be an object with title and paragraph_text")
            document = _musique_paragraph(para, where)
            doc_id = document.id
            own.append(doc_id)
            if corpus_path is None:
                corpus.setdefault(doc_id, document)
            if para.get("is_supporting"):
                gold[doc_id] = 1
        aliases = rec.get("answer_aliases") or []
        questions.append(
            EvalQuestion(
                id=str(rec.get("id") or index),
                text=require_field(rec, "question", where),
                gold=gold,
                answers=(str(require_field(rec, "answer", where)), *map(str, aliases)),
                candidates=() if corpus_path is not None else tuple(own),
                metadata={"answerable": rec.get("answerable", True)},
            )
        )
    files = (corpus_path,) if corpus_path is not None else (path,)
    dataset = EvalDataset(f"musique:{path.stem}", "musique", questions, list(corpus.values()), files)
    _note_missing_gold(dataset)
    return dataset


# --------------------------------------------------------------------------- L-Eval

_CHOICE = re.compile(r"^\s*\(([A-H])\)\s*(.*?)\s*$", re.MULTILINE)


def parse_choices(instruction: str) -> tuple[str, dict[str, str]]:
    """Split a multiple-choice instruction into its question and ``{letter: option}``."""
    matches = list(_CHOICE.finditer(instruction))
    if not matches:
        return instruction.strip(), {}
    return instruction[: matches[0].start()].strip(), {m.group(1): m.group(2) for m in matches}


def load_leval(path: Path, split: str | None = None) -> EvalDataset:
    """One long document per line with its questions; multiple choice where options are given."""
    corpus = []
    questions = []
    for number, rec in read_jsonl(path):
        where = f"{path}:{number}"
        text = require_field(rec, "input", where)
        asked = require_field(rec, "instructions", where, list)
        answers = require_field(rec, "outputs", where, list)
        if len(asked) != len(answers):
            raise DatasetError(f"{where}: {len(asked)} instructions but {len(answers)} outputs")
        doc_id = f"{path.stem}-{number}"
        first_line = next((line.strip() for line in text.splitlines() if line.strip()), "")
        sections = plain_text_sections(text)
        corpus.append(Document(id=doc_id, title=" ".join(first_line.split())[:120], text=text,
                               metadata={"sections": sections} if sections else {}))
        for j, (instruction, answer) in enumerate(zip(asked, answers)):
            stem, choices = parse_choices(str(instruction))
            metadata: dict[str, Any] = {"evaluation": rec.get("evaluation")}
            if choices:
                letter = re.match(r"\s*\(([A-H])\)", str(answer))
                metadata.update(choices=choices, gold_choice=letter.group(1) if letter else None)
            questions.append(
                EvalQuestion(
                    id=f"{doc_id}-{j}",
                    text=str(instruction) if not choices else stem,
                    gold={doc_id: 1},
                    answers=(str(answer),),
                    metadata=metadata,
                )
            )
    return EvalDataset(f"leval:{path.stem}", "leval", questions, corpus, (path,))


# --------------------------------------------------------------------------- KorQuAD / SQuAD


def squad_paragraph_id(title: str, number: int) -> str:
    """A paragraph's document id: the article title and the paragraph's place in it (from 0)."""
    return f"{title}#{number}"


def load_korquad(path: Path, split: str | None = None) -> EvalDataset:
    """SQuAD-format questions (KorQuAD 1.0): ``{"data": [{"title", "paragraphs": [{"context", "qas"}]}]}``."""
    data = read_json(path)
    articles = data.get("data") if isinstance(data, dict) else None
    if not isinstance(articles, list):
        raise DatasetError(f"{path}: expected a SQuAD-format object with a list under 'data'")
    corpus: dict[str, Document] = {}
    by_text: dict[str, str] = {}
    questions = []
    for a_index, item in enumerate(articles):
        article, where = _record(item, path, a_index)
        title = require_field(article, "title", where)
        for p_index, para in enumerate(require_field(article, "paragraphs", where, list)):
            para_where = f"{where} paragraph #{p_index + 1}"
            if not isinstance(para, dict):
                raise DatasetError(f"{para_where}: expected an object with context and qas")
            context = require_field(para, "context", para_where)
            # The same paragraph twice (KorQuAD repeats a few) is one document, so its
            # questions are not scored against an indistinguishable twin.
            doc_id = by_text.setdefault(context, squad_paragraph_id(title, p_index))
            # Paragraphs are passages of their article (its title as parent): the MPR pool merges
            # whole records by title, and would fold an article's paragraphs into one candidate.
            meta = {PARENT_KEY: title}
            corpus.setdefault(doc_id, Document(id=doc_id, title=title.replace("_", " "), text=context, metadata=meta))
            for qa in require_field(para, "qas", para_where, list):
                if not isinstance(qa, dict):
                    raise DatasetError(f"{para_where}: each entry of qas should be an object with id, question and answers")
                answers = require_field(qa, "answers", para_where, list)
                texts = [a["text"] for a in answers if isinstance(a, dict) and isinstance(a.get("text"), str)]
                questions.append(
                    EvalQuestion(
                        id=str(require_field(qa, "id", para_where, (str, int))),
                        text=require_field(qa, "question", para_where),
                        gold={doc_id: 1},
                        answers=tuple(dict.fromkeys(texts)),
                        metadata={"title": title},
                    )
                )
    dataset = EvalDataset(f"korquad:{path.stem}", "korquad", questions, list(corpus.values()), (path,))
    repeated = sum(len(a.get("paragraphs") or []) for a in articles if isinstance(a, dict)) - len(corpus)
    if repeated:
        dataset.notes.append(f"{repeated} paragraph(s) repeating an earlier one word for word share its document")
    return dataset


# --------------------------------------------------------------------------- user JSONL


def load_jsonl(path: Path, split: str | None = None) -> EvalDataset:
    """Your own questions; the corpus is ``corpus.jsonl`` beside the questions file.

    Question lines: ``{"id"?, "question", "answers"?: [..] | "..", "gold_ids": [..]}``
    (or ``"gold": {doc_id: grade}``). Corpus lines: records as ``navicite ingest`` reads a JSONL
    file (``{"_id" | "id", "title"?, "abstract"?, "text"?, ...}``; see :class:`~navicite.ingest.records.FieldMapping`).
    """
    corpus_path = path.with_name("corpus.jsonl")
    if not corpus_path.is_file() or corpus_path == path:
        raise DatasetError(f"{corpus_path}: no corpus beside {path.name}; put the documents there, one JSON object per line")
    questions = []
    for number, rec in read_jsonl(path):
        where = f"{path}:{number}"
        if "gold" in rec:
            gold_raw = require_field(rec, "gold", where, dict)
            gold = {str(k): int(v) for k, v in gold_raw.items()}
        else:
            gold = {str(g): 1 for g in require_field(rec, "gold_ids", where, list)}
        answers = rec.get("answers", [])
        answers = [answers] if isinstance(answers, str) else answers
        if not isinstance(answers, list):
            raise DatasetError(f"{where}: field 'answers' should be a list of strings or one string")
        questions.append(
            EvalQuestion(id=str(rec.get("id", number)), text=require_field(rec, "question", where), gold=gold, answers=tuple(map(str, answers)))
        )
    corpus = corpus_documents(records.load_jsonl(corpus_path, FieldMapping()))
    dataset = EvalDataset(f"jsonl:{path.stem}", "jsonl", questions, corpus, (corpus_path,))
    _note_missing_gold(dataset)
    return dataset


# --------------------------------------------------------------------------- entry point

Loader = Callable[[Path, "str | None"], EvalDataset]

LOADERS: dict[str, Loader] = {
    "beir": load_beir,
    "hotpotqa": load_hotpotqa,
    "musique": load_musique,
    "leval": load_leval,
    "korquad": load_korquad,
    "jsonl": load_jsonl,
}


def load_dataset(spec: str, split: str | None = None) -> EvalDataset:
    """Load ``KIND:PATH``; raises :class:`DatasetError` on a bad kind, path or file."""
    kind, sep, raw_path = spec.partition(":")
    if not sep or not raw_path:
        raise DatasetError(f"data set {spec!r} should be KIND:PATH with KIND one of {', '.join(LOADERS)}")
    loader = LOADERS.get(kind)
    if loader is None:
        raise DatasetError(f"unknown data set kind {kind!r}; use one of {', '.join(LOADERS)}")
    path = Path(raw_path).expanduser()
    if not path.exists():
        raise DatasetError(f"{path}: no such file or folder")
    dataset = loader(path, split)
    if not dataset.questions:
        raise DatasetError(f"{path}: no questions found")
    return dataset
