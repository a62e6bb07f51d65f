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
    path.write_bytes(_pdf_file(objects, f"/Info {info_id} 0 R"))
    return path


def _pdf_file(objects: list[str], trailer: str = "") -> bytes:
    """The bytes of a PDF whose numbered objects are ``objects`` (1 is the catalog), with its xref table."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R {trailer}>>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


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


def _write_outlined_pdf(path: Path, pages: list[list[str]], outline: list[tuple[str, int, int]]) -> Path:
    """A PDF with one Helvetica line per entry of each page and bookmarks ``(title, level, page)`` in order.

    Levels start at 1; an entry's parent is the nearest earlier entry one level up.
    """
    n_pages = len(pages)
    page_ids = [3 + 2 * i for i in range(n_pages)]
    font_id = 3 + 2 * n_pages
    outlines_id = font_id + 1
    item_ids = [outlines_id + 1 + i for i in range(len(outline))]
    parent: list[int] = []
    stack: list[int] = []
    for i, (_, level, _) in enumerate(outline):
        del stack[level - 1:]
        parent.append(item_ids[stack[-1]] if stack else outlines_id)
        stack.append(i)
    children: dict[int, list[int]] = {}
    for i, p in enumerate(parent):
        children.setdefault(p, []).append(i)
    objects = [
        f"<< /Type /Catalog /Pages 2 0 R /Outlines {outlines_id} 0 R >>",
        f"<< /Type /Pages /Kids [{' '.join(f'{i} 0 R' for i in page_ids)}] /Count {n_pages} >>",
    ]
    for page_id, lines in zip(page_ids, pages):
        ops = ["BT", "/F1 12 Tf", "14 TL", "72 720 Td", *(f"({_pdf_string(line)}) Tj T*" for line in lines), "ET"]
        stream = "\n".join(ops)
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {page_id + 1} 0 R "
                       f"/Resources << /Font << /F1 {font_id} 0 R >> >> >>")
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    top = children.get(outlines_id, [])
    objects.append(f"<< /Type /Outlines /First {item_ids[top[0]]} 0 R /Last {item_ids[top[-1]]} 0 R /Count {len(outline)} >>")
    for i, (title, _, page) in enumerate(outline):
        siblings = children[parent[i]]
        at = siblings.index(i)
        fields = [f"/Title ({_pdf_string(title)})", f"/Parent {parent[i]} 0 R", f"/Dest [{page_ids[page]} 0 R /XYZ 0 792 0]"]
        if at > 0:
            fields.append(f"/Prev {item_ids[siblings[at - 1]]} 0 R")
        if at + 1 < len(siblings):
            fields.append(f"/Next {item_ids[siblings[at + 1]]} 0 R")
        if i in {parent_index for parent_index in range(len(outline)) if item_ids[parent_index] in children}:
            kids = children[item_ids[i]]
            fields += [f"/First {item_ids[kids[0]]} 0 R", f"/Last {item_ids[kids[-1]]} 0 R", f"/Count {len(kids)}"]
        objects.append(f"<< {' '.join(fields)} >>")
    path.write_bytes(_pdf_file(objects))
    return path


@pytest.fixture
def write_outlined_pdf() -> Callable[..., Path]:
    """Writes a PDF with bookmarks: ``(title, level, page index)`` per outline entry."""
    return _write_outlined_pdf
