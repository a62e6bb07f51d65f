"""Structured records: JSONL, JSON arrays, BEIR corpora and HotpotQA-style corpora.

A :class:`FieldMapping` says which record field feeds which part of a
:class:`~navicite.documents.Document`; fields it leaves unset are looked up
among common names (``_id``/``id``/``doi``, ``title``, ``text``/``body``/``contents``,
``abstract``, ``url``/``link``). Every other field goes to the metadata.

A record whose title, abstract and text are all blank (BEIR corpora such as
Cranfield hold a few) becomes an :class:`EmptyRecord`: there is nothing to index,
but nothing is wrong with the file either, so the run skips it instead of failing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, NamedTuple, Union

from navicite.documents import Document, content_id
from navicite.ingest.base import Failure, one_line

#: Names tried, in order and ignoring case, when the mapping leaves a part unset.
DEFAULT_NAMES: dict[str, tuple[str, ...]] = {
    "id": ("_id", "id", "doc_id", "docid", "doi", "control_number", "controlnumber", "recid", "uid"),
    "title": ("title", "titles", "name", "headline"),
    "text": ("text", "body", "contents", "content", "full_text", "fulltext", "paragraph_text", "sentences"),
    "abstract": ("abstract", "abstracts", "summary", "description"),
    "link": ("url", "link", "href", "uri", "links"),
}

#: Keys that carry the value inside nested objects (INSPIRE-style ``{"value": ...}``).
_VALUE_KEYS = ("value", "title", "text", "abstract", "url", "href", "source")

#: The parts of a document that are indexed; a record needs at least one of them.
CONTENT_PARTS = ("title", "abstract", "text")

_MISSING = object()


class EmptyRecord(NamedTuple):
    """A record whose title, abstract and text are all blank, so it is skipped.

    ``where`` names the file and place as a :class:`Failure` does; ``id`` is the
    record's own id, or ``""`` when it has none.
    """

    where: str
    id: str

    def __str__(self) -> str:
        name = f"record {self.id}" if self.id else "record"
        return f"{self.where}: {name} has no title, abstract or text; skipped"


#: What a record loader yields.
RecordStream = Iterator[Union[Document, Failure, EmptyRecord]]


@dataclass(frozen=True)
class FieldMapping:
    """Record field names (dotted paths like ``titles.0.title`` allowed) for each document part."""

    id: str | None = None
    title: str | None = None
    text: str | None = None
    abstract: str | None = None
    link: str | None = None

    def resolve(self, record: dict[str, Any]) -> dict[str, str | None]:
        """The record key or path used for each part; None where the record has none."""
        lowered = {key.lower(): key for key in record}
        chosen: dict[str, str | None] = {}
        for part in (f.name for f in fields(self)):
            given = getattr(self, part)
            if given is not None:
                chosen[part] = given
                continue
            chosen[part] = next((lowered[n] for n in DEFAULT_NAMES[part] if n in lowered), None)
        return chosen


def _lookup(record: dict[str, Any], path: str) -> Any:
    """The value at ``path``, or ``_MISSING`` when the record has no such field (a null value is not missing)."""
    if path in record:
        return record[path]
    node: Any = record
    for step in path.split("."):
        if isinstance(node, dict) and step in node:
            node = node[step]
        elif isinstance(node, list) and step.isdigit() and int(step) < len(node):
            node = node[int(step)]
        else:
            return _MISSING
    return node


def _flatten_value(value: Any, first_only: bool) -> str:
    """A record value as text: strings as they are, lists joined (or their first item), objects by value key."""
    if value is None or isinstance(value, bool):
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, dict):
        for key in _VALUE_KEYS:
            if key in value:
                return _flatten_value(value[key], first_only)
        return ""
    if isinstance(value, list):
        parts = [text for text in (_flatten_value(item, first_only) for item in value) if text]
        if first_only:
            return parts[0] if parts else ""
        return " ".join(parts)
    return ""


def nothing_to_index(title: str, abstract: str, text: str) -> bool:
    """True when a record's indexed parts are all blank: the one test of every record format."""
    return not (title.strip() or abstract.strip() or text.strip())


def record_to_document(record: dict[str, Any], mapping: FieldMapping, where: str) -> Document | Failure | EmptyRecord:
    """Turn one parsed record into a Document, or a Failure or EmptyRecord naming ``where`` it came from.

    A record that has none of the content fields at all is a failure: across a file
    that usually means the field mapping is wrong, and skipping every record quietly
    would hide it. A record whose content fields are there but blank is an EmptyRecord.
    """
    if not isinstance(record, dict):
        return Failure(where, f"expected a JSON object, got {type(record).__name__}")
    keys = mapping.resolve(record)
    found = {part: _lookup(record, key) if key else _MISSING for part, key in keys.items()}
    values = {
        part: "" if value is _MISSING else _flatten_value(value, first_only=part in ("id", "title", "link"))
        for part, value in found.items()
    }
    if all(found[part] is _MISSING for part in CONTENT_PARTS):
        return Failure(where, "record has no title and no text")
    if nothing_to_index(values["title"], values["abstract"], values["text"]):
        return EmptyRecord(where, values["id"])
    # A dotted path consumes its top-level field, so the field is not repeated in the metadata.
    used = {key if key in record else key.split(".")[0] for key in keys.values() if key}
    metadata: dict[str, Any] = {}
    nested = record.get("metadata")
    if isinstance(nested, dict) and "metadata" not in used:
        metadata.update(nested)
        used.add("metadata")
    metadata.update({key: value for key, value in record.items() if key not in used})
    doc_id = values["id"] or content_id(values["title"], values["abstract"], values["text"])
    return Document(
        id=doc_id,
        title=values["title"],
        abstract=values["abstract"],
        text=values["text"],
        link=values["link"],
        metadata=metadata,
    )


def checked_record(record: Any, mapping: FieldMapping, where: str) -> Document | Failure | EmptyRecord:
    """:func:`record_to_document`, with anything it raises on a hostile record (a list nested
    thousands deep in a field, say) as a failure of that record alone."""
    try:
        return record_to_document(record, mapping, where)
    except RecursionError:
        return Failure(where, "record nested too deeply to read")
    except Exception as exc:  # one bad record must not cost the records after it
        return Failure(where, f"cannot read record ({type(exc).__name__}: {one_line(exc)})")


class MalformedJSON(Failure):
    """A JSON line or file that does not parse; ``error`` keeps the parser's exception.

    A :class:`Failure` like any other to ``navicite ingest``; a caller that stops at the
    first problem (evaluation) reads the line and column from ``error`` for its own message.
    """

    error: ValueError

    @classmethod
    def of(cls, where: str, error: ValueError) -> MalformedJSON:
        failure = cls(where, f"malformed JSON ({one_line(error)})")
        failure.error = error
        return failure


class TooDeeplyNested(ValueError):
    """JSON nested deeper than the parser can follow (Python's recursion limit)."""


def _parse(text: bytes) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        raise TooDeeplyNested("nested too deeply to read (arrays or objects inside each other)") from None


def json_lines(path: Path) -> Iterator[tuple[int, Any, ValueError | None]]:
    """The one JSON Lines reader: ``(line number, value, None)`` for each non-blank line.

    A line that does not parse (bad JSON, bytes that are not UTF-8, nesting too deep to
    follow) comes as ``(line number, None, error)``, so the caller decides whether to go on
    or stop; the lines after it are read either way.

    Raises:
        OSError: the file cannot be opened.
    """
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.strip()
            if not line:
                continue
            try:
                yield number, _parse(line), None
            except (json.JSONDecodeError, UnicodeDecodeError, TooDeeplyNested) as exc:
                yield number, None, exc


def read_json(path: Path) -> Any:
    """The one whole-file JSON reader.

    Raises:
        json.JSONDecodeError: the file is not valid JSON (its ``lineno`` names the line).
        UnicodeDecodeError: the file is not UTF-8 text.
        TooDeeplyNested: the file nests arrays or objects too deeply to read.
        OSError: the file cannot be opened.
    """
    with path.open("rb") as handle:
        return _parse(handle.read())


def load_jsonl(path: Path, mapping: FieldMapping) -> RecordStream:
    """One document per line; a malformed line is a failure naming its line, the rest continue."""
    for number, record, error in json_lines(path):
        where = f"{path}:{number}"
        if error is not None:
            yield MalformedJSON.of(where, error)
            continue
        yield checked_record(record, mapping, where)


def _is_title_corpus(data: Any) -> bool:
    """A HotpotQA/HippoRAG corpus: an object mapping each title to its list of sentences."""
    return (
        isinstance(data, dict)
        and bool(data)
        and all(isinstance(v, list) and all(isinstance(s, str) for s in v) for v in data.values())
    )


def title_document_id(title: str) -> str:
    """The id of a title -> sentences entry: derived from the title alone, so it survives text edits.

    A HotpotQA supporting fact names its paragraph by title; this is the document it means.
    """
    return content_id("title", title)


def title_document(title: str, sentences: list[str]) -> Document | None:
    """One title -> sentences entry as a document (sentences joined by a space); None when blank."""
    text = " ".join(s.strip() for s in sentences if s.strip())
    if nothing_to_index(title, "", text):
        return None
    return Document(id=title_document_id(title), title=title.strip(), text=text, metadata={"sentences": len(sentences)})


def title_corpus_documents(corpus: dict[str, list[str]], path: Path) -> RecordStream:
    """One document per title (see :func:`title_document`)."""
    for title, sentences in corpus.items():
        document = title_document(title, sentences)
        # A blank entry: the title is the id, and it is blank.
        yield document if document is not None else EmptyRecord(f"{path}#{title!r}", "")


def _read_json(path: Path) -> Any:
    """A whole JSON file, or a Failure naming it when it does not parse."""
    try:
        return read_json(path)
    except (json.JSONDecodeError, UnicodeDecodeError, TooDeeplyNested) as exc:
        return MalformedJSON.of(str(path), exc)


def json_documents(data: Any, path: Path, mapping: FieldMapping) -> RecordStream:
    """The documents of parsed JSON: an array of records, one record, or a title -> sentences corpus."""
    if isinstance(data, Failure):
        yield data
    elif isinstance(data, list):
        for index, record in enumerate(data):
            yield checked_record(record, mapping, f"{path}#{index}")
    elif _is_title_corpus(data):
        yield from title_corpus_documents(data, path)
    elif isinstance(data, dict):
        yield checked_record(data, mapping, str(path))
    else:
        yield Failure(str(path), f"expected a JSON array or object, got {type(data).__name__}")


def load_json(path: Path, mapping: FieldMapping) -> RecordStream:
    """A JSON file: an array of records, one record, or a title -> sentences corpus."""
    yield from json_documents(_read_json(path), path, mapping)


def load_title_corpus(path: Path, mapping: FieldMapping) -> RecordStream:
    """A HotpotQA/HippoRAG corpus; also accepts the MuSiQue shape (an array of {title, text})."""
    data = _read_json(path)
    if isinstance(data, dict) and not _is_title_corpus(data):
        yield Failure(str(path), "not a title -> sentences corpus (expected an object of string lists)")
        return
    yield from json_documents(data, path, mapping)


def beir_corpus_file(path: Path) -> Path:
    """The corpus file of a BEIR folder (or the file itself).

    Raises:
        FileNotFoundError: the folder has no corpus.jsonl.
    """
    if path.is_dir():
        corpus = path / "corpus.jsonl"
        if not corpus.is_file():
            raise FileNotFoundError(f"{path} has no corpus.jsonl, so it is not a BEIR corpus folder")
        return corpus
    return path


def load_beir(path: Path, mapping: FieldMapping) -> RecordStream:
    """A BEIR corpus (``_id``, ``title``, ``text``, ``metadata`` per line)."""
    try:
        corpus = beir_corpus_file(path)
    except FileNotFoundError as exc:
        yield Failure(str(path), str(exc))
        return
    yield from load_jsonl(corpus, mapping)
