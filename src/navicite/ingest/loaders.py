"""One entry point for every format: ``load(path, fmt, mapping)`` streams documents, failures and empty records."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from navicite.ingest.base import Failure, LoadStream, one_line
from navicite.ingest.pdf import load_pdf
from navicite.ingest.records import (
    FieldMapping,
    RecordStream,
    load_beir,
    load_json,
    load_jsonl,
    load_title_corpus,
)
from navicite.ingest.text_files import load_html, load_markdown, load_text

_RECORD_LOADERS: dict[str, Callable[[Path, FieldMapping], RecordStream]] = {
    "jsonl": load_jsonl,
    "json": load_json,
    "beir": load_beir,
    "hotpotqa": load_title_corpus,
}
_FILE_LOADERS: dict[str, Callable[[Path], LoadStream]] = {
    "md": load_markdown,
    "txt": load_text,
    "html": load_html,
    "pdf": load_pdf,
}


def load(path: Path, fmt: str, mapping: FieldMapping | None = None) -> RecordStream:
    """Documents (and failures) from one file or BEIR folder in the given format.

    Never raises for a bad file: whatever goes wrong while reading becomes a
    :class:`Failure` naming the file, and documents read before it stand. Records
    with nothing to index come as :class:`~navicite.ingest.records.EmptyRecord`;
    whole files with no text are failures of their loader, since a file the user
    named that reads as empty is worth an error (a scanned PDF, say).
    """
    mapping = mapping or FieldMapping()
    try:
        if fmt in _RECORD_LOADERS:
            yield from _RECORD_LOADERS[fmt](path, mapping)
        elif fmt in _FILE_LOADERS:
            yield from _FILE_LOADERS[fmt](path)
        else:
            yield Failure(str(path), "unknown file format (pass --format to say which it is)")
    except OSError as exc:
        yield Failure(str(path), f"cannot read ({exc.strerror or one_line(exc)})")
    except Exception as exc:  # one broken file must not end the run; its reason is reported
        yield Failure(str(path), f"cannot read ({type(exc).__name__}: {one_line(exc)})")
