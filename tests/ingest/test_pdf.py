"""PDF files through the extractor behind `extract_pages` (pdfium) and the text repair."""

from __future__ import annotations

from collections.abc import Callable

from pathlib import Path


from navicite.documents import Document
from navicite.ingest.base import Failure
from navicite.ingest.pdf import load_pdf


def test_pdf_pages_and_metadata_title(tmp_path: Path, write_pdf: Callable[..., Path]) -> None:
    path = write_pdf(tmp_path / "paper.pdf", [["Graphene transistors", "switch very fast."], ["Page two (final) words"]],
                     title="A Study of Graphene")
    [doc] = list(load_pdf(path))
    assert isinstance(doc, Document)
    assert doc.title == "A Study of Graphene"
    assert "switch very fast." in doc.text and "Page two (final) words" in doc.text
    assert doc.metadata["pages"] == 2
    words = doc.text.split()
    assert words[doc.metadata["page_starts"][1]] == "Page"


def test_pdf_title_falls_back_to_first_line(tmp_path: Path, write_pdf: Callable[..., Path]) -> None:
    path = write_pdf(tmp_path / "untitled.pdf", [["Coral Reef Survey 2024", "Body text here."]], title="Microsoft Word - draft.docx")
    [doc] = list(load_pdf(path))
    assert doc.title == "Coral Reef Survey 2024"


def test_broken_and_empty_pdfs_fail_with_reason(tmp_path: Path, write_pdf: Callable[..., Path]) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\nthis is not really a pdf\n")
    empty = write_pdf(tmp_path / "blank.pdf", [[]])
    for path, reason in ((broken, "cannot read PDF"), (empty, "no extractable text")):
        items = list(load_pdf(path))
        assert len(items) == 1 and isinstance(items[0], Failure), items
        assert items[0].path == str(path) and reason in items[0].reason
