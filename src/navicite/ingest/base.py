"""What every loader yields: documents, or failures that name the place and the reason."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple, Union

from navicite.documents import Document, content_id

#: The formats ``--format`` accepts; ``auto`` picks one per file.
FORMATS = ("auto", "jsonl", "json", "beir", "hotpotqa", "md", "txt", "html", "pdf")


class Failure(NamedTuple):
    """A file or record that could not be read.

    ``path`` names the file, with ``:line`` for a JSONL line or ``#n`` for the
    n-th record of a JSON array, so the user can find the culprit.
    """

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


#: One item from a loader.
Loaded = Union[Document, Failure]

#: A loader's output: lazily read, so large corpora stream through in batches.
LoadStream = Iterator[Loaded]


def one_line(exc: BaseException) -> str:
    """An exception as a single line, for a failure reason."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def read_text_file(path: Path) -> str:
    """Text of a file: UTF-8 (with or without BOM), else Windows-1252, else Latin-1.

    Raises:
        ValueError: the file holds NUL bytes, so it is binary rather than text.
        OSError: the file cannot be read.
    """
    raw = path.read_bytes()
    if b"\x00" in raw[:8192]:
        raise ValueError("binary content, not text")
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    # Latin-1 maps every byte, so legacy files still load rather than fail.
    return raw.decode("latin-1")


def file_link(path: Path) -> str:
    """A ``file://`` link to a local file, so a citation can point at it."""
    return path.resolve().as_uri()


def file_id(path: Path) -> str:
    """Stable id of a document read from a whole file.

    Derived from the resolved path rather than the content, so an edited file
    replaces its earlier version instead of leaving a stale copy behind.
    """
    return content_id("file", path.resolve().as_posix())
