"""``/v1/library``, ``/v1/files/{id}`` and ``/v1/passages/{id}``: what the web page reads to check a citation.

A collection of its own per test (uploads and deletes change it), with a real PDF (the PDF
writer of pypdfium2 makes a small two-page one) and a Markdown file, read by the real loaders.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from navicite import Collection
from navicite.config import load_settings
from navicite.server import create_app

PAGE_TEXTS = [
    "Glaciers carry boulders far from the rock they broke from. Such boulders are called erratics.",
    "Moraines are ridges of debris that a glacier pushed or left behind when it melted back.",
]


def make_pdf(path: Path, pages: list[str]) -> Path:
    """A PDF with one line of text per page, written with pdfium."""
    import pypdfium2
    import pypdfium2.raw as raw

    pdf = pypdfium2.PdfDocument.new()
    font = raw.FPDFText_LoadStandardFont(pdf, b"Helvetica")
    for text in pages:
        page = pdf.new_page(612, 792)
        obj = raw.FPDFPageObj_CreateTextObj(pdf, font, 11.0)
        encoded = (text + "\x00").encode("utf-16-le")
        buffer = (raw.FPDF_WCHAR * (len(encoded) // 2)).from_buffer_copy(encoded)
        raw.FPDFText_SetText(obj, buffer)
        raw.FPDFPageObj_Transform(obj, 1, 0, 0, 1, 40, 700)
        raw.FPDFPage_InsertObject(page, obj)
        raw.FPDFPage_GenerateContent(page)
    pdf.save(str(path))
    return path


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    settings = load_settings(tmp_path / "home", ["llm.backend=none"])
    return TestClient(create_app(settings), base_url="http://localhost")


def _upload(client: TestClient, *files: tuple[str, bytes, str]) -> dict:
    reply = client.post("/v1/documents", files=[("files", f) for f in files])
    assert reply.status_code == 201, reply.text
    return reply.json()


def test_library_lists_kind_pages_passages_and_time_added(client: TestClient, tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "glaciers.pdf", PAGE_TEXTS)
    ids = _upload(client, ("glaciers.pdf", pdf.read_bytes(), "application/pdf"),
                  ("note.md", b"# Ice\n\nSea ice forms when ocean water freezes.\n", "text/markdown"))["ids"]
    listing = client.get("/v1/library").json()
    assert listing["total"] == 2
    entries = {e["id"]: e for e in listing["documents"]}
    assert set(entries) == set(ids)
    by_kind = {e["kind"]: e for e in entries.values()}
    assert by_kind["pdf"]["pages"] == 2 and by_kind["pdf"]["passages"] >= 1 and by_kind["pdf"]["has_file"] is True
    assert by_kind["md"]["pages"] == 0 and by_kind["md"]["has_file"] is False
    assert all(e["added"].endswith("+00:00") for e in entries.values())
    # One document's entry: what the viewer asks for a citation that is not a stored passage.
    for doc_id, listed in entries.items():
        assert client.get(f"/v1/library/{quote(doc_id, safe='')}").json() == listed
    unknown = client.get("/v1/library/no-such-doc")
    assert unknown.status_code == 404 and "no document with id 'no-such-doc'" in unknown.json()["detail"]


def test_the_original_pdf_is_served_as_uploaded_and_goes_with_its_document(client: TestClient, tmp_path: Path) -> None:
    data = make_pdf(tmp_path / "glaciers.pdf", PAGE_TEXTS).read_bytes()
    doc_id = _upload(client, ("glaciers.pdf", data, "application/pdf"))["ids"][0]
    served = client.get(f"/v1/files/{doc_id}")
    assert served.status_code == 200 and served.content == data
    assert served.headers["content-type"] == "application/pdf"
    assert served.headers["x-content-type-options"] == "nosniff" and served.headers["content-security-policy"] == "sandbox"
    assert client.delete(f"/v1/documents/{doc_id}").status_code == 200
    gone = client.get(f"/v1/files/{doc_id}")
    assert gone.status_code == 404 and "no original file" in gone.json()["detail"]
    assert not any((tmp_path / "home" / "files").iterdir())


def test_no_file_for_a_record_or_an_unknown_id(client: TestClient) -> None:
    client.post("/v1/documents", json={"records": [{"id": "rec", "title": "A record", "text": "Just text.",
                                                    "metadata": {"source": "/etc/passwd", "format": "pdf"}}]})
    for doc_id in ("rec", "nope", quote("../../etc/passwd", safe=""), quote("../library.sqlite", safe="")):
        refused = client.get(f"/v1/files/{doc_id}")
        assert refused.status_code == 404 and "no original file is kept" in refused.json()["detail"], doc_id


def test_a_pdf_ingested_from_the_command_line_keeps_its_original(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "glaciers.pdf", PAGE_TEXTS)
    with Collection(tmp_path / "home", ["llm.backend=none"]) as papers:
        assert papers.add(pdf).added == 1
        (entry,) = papers.library()[1]
        assert entry.kind == "pdf" and entry.has_file
        kept = papers.original(entry.doc_id)
        assert kept is not None and kept.read_bytes() == pdf.read_bytes()
        pdf.unlink()  # the kept copy does not depend on the file staying where it was
        assert papers.original(entry.doc_id).read_bytes() == kept.read_bytes()
        papers.delete(entry.doc_id)
        assert papers.original(entry.doc_id) is None and not kept.exists()


def test_a_passage_in_context(client: TestClient, tmp_path: Path) -> None:
    words = " ".join(f"Sentence {n} says that glacier number {n} moved slowly." for n in range(60))
    doc_id = _upload(client, ("long.md", f"# Glaciers\n\n{words}\n".encode(), "text/markdown"))["ids"][0]
    count = client.get("/v1/library").json()["documents"][0]["passages"]
    assert count >= 3
    middle = client.get(f"/v1/passages/{quote(f'{doc_id}#p1', safe='')}").json()
    assert middle["document"]["id"] == doc_id and middle["passage"]["id"] == f"{doc_id}#p1"
    assert [p["id"] for p in middle["before"]] == [f"{doc_id}#p0"]
    assert [p["id"] for p in middle["after"]] == [f"{doc_id}#p2"]
    assert middle["passage"]["text"] in words
    first = client.get(f"/v1/passages/{quote(f'{doc_id}#p0', safe='')}", params={"around": 2}).json()
    assert first["before"] == [] and len(first["after"]) == 2
    missing = client.get(f"/v1/passages/{quote('nope#p0', safe='')}")
    assert missing.status_code == 404 and "no passage" in missing.json()["detail"]


def test_the_library_follows_a_write_made_elsewhere(client: TestClient, tmp_path: Path) -> None:
    """A document the command line adds while the server runs shows up in the next listing."""
    assert client.get("/v1/library").json()["total"] == 0
    note = tmp_path / "n.md"
    note.write_text("# N\n\nNew note.\n")
    with Collection(tmp_path / "home", ["llm.backend=none"]) as cli:
        cli.add(note)
    assert client.get("/v1/library").json()["total"] == 1
