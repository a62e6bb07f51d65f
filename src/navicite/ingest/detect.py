"""Which files to read and in which format: folder walking and format detection."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from navicite.errors import UserInputError
from navicite.ingest.base import FORMATS, Failure, bom_encoding, one_line

#: File name endings of each format, used for ``auto`` and to pick files from folders.
EXTENSIONS: dict[str, tuple[str, ...]] = {
    "jsonl": (".jsonl", ".ndjson"),
    "json": (".json",),
    "hotpotqa": (".json",),
    "md": (".md", ".markdown"),
    "txt": (".txt", ".text"),
    "html": (".html", ".htm", ".xhtml"),
    "pdf": (".pdf",),
}
BEIR_CORPUS = "corpus.jsonl"


@dataclass
class Plan:
    """The files of one ingest, each with its format.

    ``skipped`` are files inside folders that are of no known format (or not of
    the requested one); ``failures`` are folders that could not be listed;
    ``repeated`` are folders reached again through a symbolic link (``self -> .``),
    left out so that a link loop cannot make the walk endless.
    """

    items: list[tuple[Path, str]] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    repeated: list[Path] = field(default_factory=list)
    _walked: set[Path] = field(default_factory=set, repr=False)


def format_by_extension(path: Path) -> str | None:
    """The format a file name suggests, or None."""
    suffix = path.suffix.lower()
    for fmt, endings in EXTENSIONS.items():
        if suffix in endings:
            return fmt
    return None


def sniff_format(path: Path) -> str | None:
    """Guess a file's format from its first bytes; None for binary content of no known kind."""
    try:
        with path.open("rb") as handle:
            head = handle.read(2048)
    except OSError:
        return None  # the loader reports why it cannot be read
    if head.startswith(b"%PDF-"):
        return "pdf"
    encoding = bom_encoding(head)
    if encoding is not None:  # UTF-16/32 text: look at it as UTF-8 (a cut last character is dropped)
        head = head.decode(encoding, errors="ignore").encode("utf-8")
    if b"\x00" in head:
        return None
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if start.startswith((b"<!doctype html", b"<html")):
        return "html"
    if start.startswith(b"{"):
        return "jsonl"
    if start.startswith(b"["):
        return "json"
    return "txt"


def _is_beir_folder(path: Path) -> bool:
    return (path / BEIR_CORPUS).is_file()


def _walk(folder: Path, fmt: str, plan: Plan) -> None:
    """Add a folder's files to the plan, recursively, in name order, skipping hidden entries.

    Each folder is walked once by its real path: a link back to a folder already walked
    (a loop, or a second way to the same place) is recorded in ``plan.repeated`` instead.
    """
    real = folder.resolve()
    if real in plan._walked:
        plan.repeated.append(folder)
        return
    plan._walked.add(real)
    if fmt in ("auto", "beir") and _is_beir_folder(folder):
        # A BEIR folder also holds queries and qrels, which are not documents.
        plan.items.append((folder, "beir"))
        return
    try:
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        plan.failures.append(Failure(str(folder), f"cannot list folder ({exc.strerror or one_line(exc)})"))
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            _walk(entry, fmt, plan)
            continue
        by_name = format_by_extension(entry)
        if fmt == "auto" and by_name:
            plan.items.append((entry, by_name))
        elif fmt not in ("auto", "beir") and entry.suffix.lower() in EXTENSIONS[fmt]:
            plan.items.append((entry, fmt))
        else:
            plan.skipped.append(entry)


def plan_paths(paths: Iterable[Path], fmt: str = "auto") -> Plan:
    """Resolve the paths given on the command line into files and formats.

    Folders are read recursively; a folder holding ``corpus.jsonl`` is a BEIR
    corpus. A file named explicitly is always read (its format detected from its
    name or content); unknown files inside folders are skipped.

    Raises:
        UserInputError: a path does not exist, or the format is unknown.
    """
    if fmt not in FORMATS:
        raise UserInputError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    paths = list(paths)
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise UserInputError(f"no such file or folder: {', '.join(missing)} (check the path and try again)")
    plan = Plan()
    for path in paths:
        if path.is_dir() and fmt == "beir" and not _is_beir_folder(path):
            plan.items.append((path, fmt))  # the BEIR loader reports the missing corpus.jsonl
        elif path.is_dir():
            _walk(path, fmt, plan)
        elif fmt == "auto":
            plan.items.append((path, format_by_extension(path) or sniff_format(path) or "unknown"))
        else:
            plan.items.append((path, fmt))
    plan.items = list(_unique(plan.items))
    return plan


def _unique(items: list[tuple[Path, str]]) -> Iterator[tuple[Path, str]]:
    seen: set[Path] = set()
    for path, fmt in items:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            yield path, fmt
