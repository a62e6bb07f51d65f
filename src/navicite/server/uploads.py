"""Uploaded files and JSON records into the collection, without trusting the client.

An uploaded file's name never becomes a path: each file is written under a fresh
temporary folder with a generated name that keeps only an allowed extension, and
the ingest runner reads it from there. Documents read from a whole file (Markdown,
text, HTML, PDF) would otherwise take their id, title and link from that
generated path, so they are given an id derived from the client's file name
(re-uploading a file of the same name replaces it), a title from that name and
no local link, before they reach the collection (``Collection.add_read``); the collection keeps
a copy of each uploaded PDF for the page's viewer. JSON
records go to the collection as they are, without a file.
"""

from __future__ import annotations

import re
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import replace
from itertools import chain
from pathlib import Path
from typing import Any, BinaryIO

from navicite.api import Collection
from navicite.config import Settings
from navicite.documents import Document, content_id
from navicite.errors import UserInputError
from navicite.ingest.base import Failure, file_id, file_link
from navicite.ingest.detect import EXTENSIONS, plan_paths
from navicite.ingest.loaders import load
from navicite.ingest.records import EmptyRecord, FieldMapping, record_to_document

#: File name endings the API accepts (the ingest formats that are single files).
ALLOWED_SUFFIXES: tuple[str, ...] = tuple(sorted({s for endings in EXTENSIONS.values() for s in endings}))
_CHUNK = 1 << 16
_UNSAFE = re.compile(r"[\x00-\x1f\x7f]")


class UploadTooLarge(UserInputError):
    """The request is bigger than ``server.max_upload_mb``."""


class UnsupportedUpload(UserInputError):
    """A file of a type the API does not ingest."""


def display_name(filename: str | None) -> str:
    """The client's file name reduced to a harmless label: last path part, no control characters."""
    name = re.split(r"[\\/]", filename or "")[-1]
    name = _UNSAFE.sub("", name).strip()[:200]
    return name or "upload"


def allowed_suffix(filename: str | None) -> str:
    """The (lower-case) extension of an acceptable file name.

    Raises:
        UnsupportedUpload: the name has no extension the ingest formats read.
    """
    suffix = Path(display_name(filename)).suffix.lower()
    if suffix not in ALLOWED_SUFFIXES:
        raise UnsupportedUpload(
            f"cannot ingest {display_name(filename)!r}: unsupported file type; "
            f"upload one of {', '.join(ALLOWED_SUFFIXES)}"
        )
    return suffix


def _as_uploaded(doc: Document, path: Path, name: str) -> Document:
    """A document read from the saved file ``path``, with the identity of the client's file ``name``."""
    if doc.id != file_id(path):
        return doc  # a record of an uploaded JSON/JSONL file keeps its own id
    title = Path(name).stem.replace("_", " ").strip() if doc.title == path.stem else doc.title
    link = "" if doc.link == file_link(path) else doc.link
    metadata = {k: name if v == str(path) else v for k, v in doc.metadata.items()}
    return replace(doc, id=content_id("upload", name), title=title or name, link=link, metadata=metadata)


class UploadBatch:
    """One request's files, saved under a private temporary folder until ingested."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.limit = settings.server.max_upload_mb * 1024 * 1024
        self._dir = tempfile.TemporaryDirectory(prefix="navicite-upload-")
        self.names: dict[Path, str] = {}
        self.records: list[dict[str, Any]] = []
        #: Ids of the documents read so far, in order (repeats included).
        self.ids: list[str] = []
        #: Document id -> the saved PDF it was read from (the collection keeps a copy for the viewer).
        self.originals: dict[str, Path] = {}
        self._written = 0

    def __enter__(self) -> UploadBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self._dir.cleanup()

    def _new_path(self, suffix: str) -> Path:
        return Path(self._dir.name) / f"{uuid.uuid4().hex}{suffix}"

    def add_file(self, filename: str | None, stream: BinaryIO) -> None:
        """Copy one uploaded file, counting its bytes against the request's limit.

        Raises:
            UnsupportedUpload: the file type is not accepted.
            UploadTooLarge: the files together exceed ``server.max_upload_mb``.
        """
        path = self._new_path(allowed_suffix(filename))
        with path.open("wb") as out:
            while chunk := stream.read(_CHUNK):
                self._count(len(chunk))
                out.write(chunk)
        self.names[path] = display_name(filename)

    def add_records(self, records: list[dict[str, Any]]) -> None:
        """Keep JSON records (``id``, ``title``, ``abstract``, ``text``, ``link``, ...) to ingest with the files."""
        self.records.extend(records)

    def _count(self, size: int) -> None:
        self._written += size
        if self._written > self.limit:
            raise UploadTooLarge(
                f"upload larger than {self.settings.server.max_upload_mb} MB; send fewer or smaller files "
                "or raise server.max_upload_mb"
            )

    def documents(self) -> Iterator[Document | Failure | EmptyRecord]:
        """What the request holds, read: each file's documents under its client name, then the records."""
        plan = plan_paths(list(self.names))
        yield from plan.failures
        records = (record_to_document(r, FieldMapping(), f"records:{n}") for n, r in enumerate(self.records, start=1))
        for item in chain(self._read(plan.items), records):
            if isinstance(item, Document):
                self.ids.append(item.id)
            yield item

    def _read(self, items: list[tuple[Path, str]]) -> Iterator[Document | Failure | EmptyRecord]:
        for path, fmt in items:
            for item in load(path, fmt):
                if isinstance(item, Document):
                    item = _as_uploaded(item, path, self.names[path])
                    if fmt == "pdf":
                        self.originals[item.id] = path
                yield item

    def ingest(self, collection: Collection) -> dict[str, Any]:
        """Add everything received to ``collection``; the summary names files by their client names."""
        if not self.names and not self.records:
            raise UserInputError("nothing to ingest: send files (multipart field 'files') or JSON {\"records\": [...]}")
        summary = collection.add_read(self.documents(), self.originals)
        out = summary.to_dict()
        out["failed"] = [
            {"file": self._client_name(f.path), "reason": f.reason.replace(self._dir.name, "")} for f in summary.failed
        ]
        out["skipped"] = []
        out["ids"] = list(dict.fromkeys(self.ids))
        return out

    def _client_name(self, where: str) -> str:
        if where.startswith("records:"):
            return where  # a JSON record: its place in the request's list
        for path, name in self.names.items():
            if where.startswith(str(path)):
                return name + where[len(str(path)):]  # keeps ':line' / '#n' of a record failure
        return "upload"
