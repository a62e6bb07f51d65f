"""Uploaded files and JSON records into the collection, without trusting the client.

An uploaded file's name never becomes a path: each file is written under a fresh
temporary folder with a generated name that keeps only an allowed extension, and
the ingest runner reads it from there. Documents read from a whole file (Markdown,
text, HTML, PDF) would otherwise take their id, title and link from that
generated path, so they are given an id derived from the client's file name
(re-uploading a file of the same name replaces it), a title from that name and
no local link.
"""

from __future__ import annotations

import json
import re
import tempfile
import uuid
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO

from navicite.config import Settings
from navicite.documents import Document, content_id
from navicite.errors import UserInputError
from navicite.index.base import UpsertReport
from navicite.ingest import ingest
from navicite.ingest.runner import DocumentSink
from navicite.ingest.base import file_id, file_link
from navicite.ingest.detect import EXTENSIONS

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


class _Renaming:
    """Index adapter for the ingest runner: fixes the identity of documents read from temp files."""

    def __init__(self, index: DocumentSink, names: dict[Path, str]) -> None:
        self._index = index
        self._by_id = {file_id(path): (path, name) for path, name in names.items()}
        self.ids: list[str] = []

    def _fix(self, doc: Document) -> Document:
        origin = self._by_id.get(doc.id)
        if origin is None:
            return doc  # a record from a JSON/JSONL upload keeps its own id
        path, name = origin
        title = Path(name).stem.replace("_", " ").strip() if doc.title == path.stem else doc.title
        link = "" if doc.link == file_link(path) else doc.link
        metadata = {k: name if v == str(path) else v for k, v in doc.metadata.items()}
        return replace(doc, id=content_id("upload", name), title=title or name, link=link, metadata=metadata)

    def upsert(self, documents: Iterable[Document]) -> UpsertReport:
        fixed = [self._fix(d) for d in documents]
        self.ids.extend(d.id for d in fixed)
        return self._index.upsert(fixed)


class UploadBatch:
    """One request's files, saved under a private temporary folder until ingested."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.limit = settings.server.max_upload_mb * 1024 * 1024
        self._dir = tempfile.TemporaryDirectory(prefix="navicite-upload-")
        self.names: dict[Path, str] = {}
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
        """Write JSON records (``id``, ``title``, ``abstract``, ``text``, ``link``, ...) as one JSONL file."""
        path = self._new_path(".jsonl")
        with path.open("w", encoding="utf-8") as out:
            for record in records:
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.names[path] = "records"

    def _count(self, size: int) -> None:
        self._written += size
        if self._written > self.limit:
            raise UploadTooLarge(
                f"upload larger than {self.settings.server.max_upload_mb} MB; send fewer or smaller files "
                "or raise server.max_upload_mb"
            )

    def ingest(self, index: DocumentSink) -> dict[str, Any]:
        """Ingest every saved file into ``index`` (the collection); the summary names files by their client names."""
        if not self.names:
            raise UserInputError("nothing to ingest: send files (multipart field 'files') or JSON {\"records\": [...]}")
        adapter = _Renaming(index, self.names)
        summary = ingest(list(self.names), self.settings, index=adapter)
        out = summary.to_dict()
        out["failed"] = [
            {"file": self._client_name(f.path), "reason": f.reason.replace(self._dir.name, "")} for f in summary.failed
        ]
        out["skipped"] = []
        out["ids"] = list(dict.fromkeys(adapter.ids))
        return out

    def _client_name(self, where: str) -> str:
        for path, name in self.names.items():
            if where.startswith(str(path)):
                return name + where[len(str(path)):]  # keeps ':line' / '#n' of a record failure
        return "upload"
