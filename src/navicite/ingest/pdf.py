"""PDF files via pdfium: repaired page texts, title from the metadata or the first line, sections.

The extractor sits behind :func:`extract_pages` (and :func:`extract_outline` for the
bookmarks); ``bench/pdf_extract_bench.py`` is why it is pdfium and not pypdf. The text
repair is :mod:`navicite.ingest.pdf_text`, the heading structure :mod:`navicite.text.sections`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from navicite.documents import Document
from navicite.ingest.base import Failure, LoadStream, file_id, file_link, one_line, path_text
from navicite.ingest.pdf_text import DEFAULT_LANGUAGE, join_pages, repair_pages
from navicite.text.sections import OutlineEntry, numbered_headings, outline_sections
from navicite.text.language import UNKNOWN, detect_language

if TYPE_CHECKING:
    import pypdfium2

#: Metadata titles that word processors write by default and that say nothing.
_PLACEHOLDER_TITLES = ("untitled", "microsoft word", "title", "document", "slide 1")
#: Characters of the opening pages that decide the language of the word-based repairs.
_LANGUAGE_SAMPLE = 3000

# PDFium is not thread-safe, and the server can ingest while another request reads a PDF.
_PDFIUM_LOCK = threading.Lock()


class PdfError(Exception):
    """A PDF that cannot be read; the message says why."""


def _usable_title(title: str | None) -> str:
    title = " ".join((title or "").split())
    if not title or title.lower().startswith(_PLACEHOLDER_TITLES) or title.lower().endswith((".doc", ".docx", ".tex", ".dvi")):
        return ""
    return title


@contextmanager
def _open(path: Path) -> Iterator[pypdfium2.PdfDocument]:
    import pypdfium2

    with _PDFIUM_LOCK:
        try:
            pdf = pypdfium2.PdfDocument(str(path))
        except pypdfium2.PdfiumError as exc:
            if "password" in str(exc).lower():
                raise PdfError("encrypted PDF (remove the password and try again)") from exc
            raise PdfError(f"cannot read PDF ({one_line(exc)})") from exc
        try:
            yield pdf
        finally:
            pdf.close()


def _page_texts(pdf: pypdfium2.PdfDocument) -> list[str]:
    texts = []
    for index in range(len(pdf)):
        page = pdf[index]
        textpage = page.get_textpage()
        try:
            texts.append(textpage.get_text_range())
        finally:
            textpage.close()
            page.close()
    return texts


def _outline(pdf: pypdfium2.PdfDocument) -> list[OutlineEntry]:
    entries = []
    for bookmark in pdf.get_toc():
        dest = bookmark.get_dest()
        page = dest.get_index() if dest is not None else None
        title = " ".join((bookmark.get_title() or "").split())
        if title:
            entries.append(OutlineEntry(title=title, level=bookmark.level + 1, page=page))
    return entries


def extract_pages(path: Path) -> list[str]:
    """The raw text of each page of the PDF at ``path``, as the extractor gives it (no repair).

    Raises :class:`PdfError` for a file that is not a readable PDF.
    """
    with _open(path) as pdf:
        return _page_texts(pdf)


def extract_outline(path: Path) -> list[OutlineEntry]:
    """The PDF's bookmarks in document order, with 1-based levels and 0-based page numbers (``None`` if unknown)."""
    with _open(path) as pdf:
        return _outline(pdf)


def _read(path: Path) -> tuple[list[str], list[OutlineEntry], str | None]:
    with _open(path) as pdf:
        try:
            outline = _outline(pdf)
        except Exception:  # noqa: BLE001 - a broken outline must not cost the text
            outline = []
        title = pdf.get_metadata_dict(skip_empty=True).get("Title")
        return _page_texts(pdf), outline, title


def _language(pages: list[str]) -> str:
    sample = " ".join(" ".join(pages[:3])[:_LANGUAGE_SAMPLE].split())
    found = detect_language(sample)
    return found if found != UNKNOWN else DEFAULT_LANGUAGE


def load_pdf(path: Path) -> LoadStream:
    """One document per PDF, its text repaired (see :func:`navicite.ingest.pdf_text.repair_pages`).

    Metadata: ``pages``; ``page_starts``, the word offset into ``text`` where each page
    begins; ``sections`` (see :mod:`navicite.text.sections`) when the PDF has an outline
    or plausible numbered headings, and ``sections_from`` saying which ("outline" or
    "headings"; an outline whose bookmarks resolve to no page gives way to the headings).
    """
    try:
        raw, outline, meta_title = _read(path)
    except PdfError as exc:
        yield Failure(str(path), str(exc))
        return
    except (OSError, ValueError) as exc:
        yield Failure(str(path), f"cannot read PDF ({one_line(exc)})")
        return
    # A language wordfreq lacks gets no word-based repairs (repair_pages skips them).
    pages = repair_pages(raw, _language(raw))
    body, page_starts = join_pages(pages)
    if not body:
        yield Failure(str(path), "PDF has no extractable text (a scan? run OCR on it first)")
        return
    first_line = next((line.strip() for line in body.splitlines() if line.strip()), "")
    title = _usable_title(meta_title) or first_line[:200]
    metadata: dict[str, object] = {"source": path_text(path), "format": "pdf", "pages": len(pages), "page_starts": page_starts}
    sections = outline_sections(outline, body, page_starts) if outline else []
    if sections:
        metadata["sections"], metadata["sections_from"] = sections, "outline"
    elif sections := numbered_headings(body):
        metadata["sections"], metadata["sections_from"] = sections, "headings"
    yield Document(id=file_id(path), title=title, text=body, link=file_link(path), metadata=metadata)
