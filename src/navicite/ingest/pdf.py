"""PDF files via pypdf: the text of every page, title from the metadata or the first line."""

from __future__ import annotations

import logging
from pathlib import Path

from navicite.documents import Document
from navicite.ingest.base import Failure, LoadStream, file_id, file_link, one_line

#: Metadata titles that word processors write by default and that say nothing.
_PLACEHOLDER_TITLES = ("untitled", "microsoft word", "title", "document", "slide 1")


def _usable_title(title: str | None) -> str:
    title = " ".join((title or "").split())
    if not title or title.lower().startswith(_PLACEHOLDER_TITLES) or title.lower().endswith((".doc", ".docx", ".tex", ".dvi")):
        return ""
    return title


def load_pdf(path: Path) -> LoadStream:
    """One document per PDF; ``metadata['page_starts']`` holds the word offset where each page begins."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    # pypdf logs every malformed object it recovers from; the failure record says enough.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(path)
        if reader.is_encrypted and not reader.decrypt(""):
            yield Failure(str(path), "encrypted PDF (remove the password and try again)")
            return
        pages = [page.extract_text() or "" for page in reader.pages]
        meta_title = reader.metadata.title if reader.metadata else None
    except (PyPdfError, OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        yield Failure(str(path), f"cannot read PDF ({one_line(exc)})")
        return
    page_starts: list[int] = []
    words = 0
    for text in pages:
        page_starts.append(words)
        words += len(text.split())
    body = "\n\n".join(text.strip() for text in pages).strip()
    if not body:
        yield Failure(str(path), "PDF has no extractable text (a scan? run OCR on it first)")
        return
    first_line = next((line.strip() for line in body.splitlines() if line.strip()), "")
    title = _usable_title(meta_title) or first_line[:200]
    yield Document(
        id=file_id(path),
        title=title,
        text=body,
        link=file_link(path),
        metadata={"source": str(path), "format": "pdf", "pages": len(pages), "page_starts": page_starts},
    )
