"""What every loader yields: documents, or failures that name the place and the reason."""

from __future__ import annotations

import codecs
import os
import re
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


#: UTF-32 before UTF-16: the UTF-32 little-endian mark begins with the UTF-16 one.
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
#: Share of control characters above which decoded bytes are taken for binary content: text has
#: next to none, a log full of colour codes about 5%, random bytes about 22%.
BINARY_CONTROL_SHARE = 0.15
#: Control characters (Unicode category Cc) other than tab, line breaks and form feed.
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f]")


def decode_legacy(raw: bytes) -> str:
    """Bytes as text: UTF-8 when they are, else Windows-1252, else Latin-1 (which maps every byte)."""
    for encoding in ("utf-8", "cp1252"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    return raw.decode("latin-1")


def bom_encoding(raw: bytes) -> str | None:
    """The UTF-16 or UTF-32 encoding that ``raw``'s byte-order mark names, or None."""
    return next((encoding for bom, encoding in _BOMS if raw.startswith(bom)), None)


def decode_text(raw: bytes) -> str:
    """Text of a file's bytes: by its byte-order mark (UTF-8, UTF-16, UTF-32), else UTF-8, else line by line.

    A file that is not UTF-8 as a whole is decoded one line at a time (:func:`decode_legacy`),
    so a UTF-8 file with a few Windows-1252 lines pasted in keeps its UTF-8 lines right.

    Raises:
        ValueError: the bytes are binary content rather than text.
    """
    encoding = bom_encoding(raw)
    if encoding is not None:
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError as exc:
            raise ValueError(f"binary content, not text (a {encoding} mark, then {exc.reason})") from None
    if b"\x00" in raw[:8192]:
        raise ValueError("binary content, not text")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = "".join(decode_legacy(line) for line in raw.splitlines(keepends=True))
    controls = len(_CONTROL.findall(text))
    if text and controls > BINARY_CONTROL_SHARE * len(text):
        raise ValueError(f"binary content, not text ({controls / len(text):.0%} control characters)")
    return text


def read_text_file(path: Path) -> str:
    """Text of a file (see :func:`decode_text`).

    Raises:
        ValueError: the file is binary rather than text.
        OSError: the file cannot be read.
    """
    return decode_text(path.read_bytes())


def path_text(path: Path | str) -> str:
    """A path as valid text: bytes of a file name that are not UTF-8 decoded as :func:`decode_legacy` does.

    Python keeps such bytes as lone surrogates, which no index, JSON writer or terminal takes.
    """
    text = str(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return decode_legacy(os.fsencode(text))
    return text


def file_link(path: Path) -> str:
    """A ``file://`` link to a local file, so a citation can point at it."""
    return path.resolve().as_uri()


def file_id(path: Path) -> str:
    """Stable id of a document read from a whole file.

    Derived from the resolved path rather than the content, so an edited file
    replaces its earlier version instead of leaving a stale copy behind.
    """
    return content_id("file", path_text(path.resolve().as_posix()))
