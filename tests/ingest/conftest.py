"""Real files for the ingest tests, written into temporary folders.

The writers are offered as fixtures (``write_pdf``, ``write_jsonl``, ``write_beir``)
rather than imported, so the tests work under any pytest import mode.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest


def _pdf_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _write_pdf(path: Path, pages: list[list[str]], title: str | None = None) -> Path:
    """A valid PDF with one Helvetica text line per entry of each page, and an optional metadata title."""
    objects: list[str] = []
    page_ids = [3 + 2 * i for i in range(len(pages))]
    font_id = 3 + 2 * len(pages)
    info_id = font_id + 1
    objects.append("<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{' '.join(f'{i} 0 R' for i in page_ids)}] /Count {len(pages)} >>")
    for page_id, lines in zip(page_ids, pages):
        ops = ["BT", "/F1 12 Tf", "14 TL", "72 720 Td"]
        for line in lines:
            ops.append(f"({_pdf_string(line)}) Tj T*")
        ops.append("ET")
        stream = "\n".join(ops)
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {page_id + 1} 0 R "
            f"/Resources << /Font << /F1 {font_id} 0 R >> >> >>"
        )
        objects.append(f"<< /Length {len(stream.encode('latin-1'))} >>\nstream\n{stream}\nendstream")
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    objects.append(f"<< /Title ({_pdf_string(title)}) >>" if title else "<< >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info {info_id} 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))
    return path


def _write_jsonl(path: Path, records: list[dict | str]) -> Path:
    """One line per record; strings are written as they are (for malformed lines)."""
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _write_beir(folder: Path, records: list[dict]) -> Path:
    """A BEIR corpus folder with queries and qrels beside the corpus, as BEIR ships them."""
    folder.mkdir(parents=True, exist_ok=True)
    _write_jsonl(folder / "corpus.jsonl", records)
    _write_jsonl(folder / "queries.jsonl", [{"_id": "q1", "text": "a question, not a document"}])
    (folder / "qrels").mkdir(exist_ok=True)
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n", encoding="utf-8")
    return folder


@pytest.fixture
def write_pdf() -> Callable[..., Path]:
    return _write_pdf


@pytest.fixture
def write_jsonl() -> Callable[..., Path]:
    return _write_jsonl


@pytest.fixture
def write_beir() -> Callable[..., Path]:
    return _write_beir
