"""Uploading, listing, reading and deleting documents through the API."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from navicite.documents import content_id


def upload(client, *files: tuple[str, bytes]):
    return client.post("/v1/documents", files=[("files", (name, data, "application/octet-stream")) for name, data in files])


def test_list_pages_through_the_collection(client):
    first = client.get("/v1/documents", params={"limit": 5}).json()
    second = client.get("/v1/documents", params={"limit": 5, "offset": 5}).json()
    assert first["total"] == second["total"] > 100
    assert len(first["documents"]) == len(second["documents"]) == 5
    assert {d["id"] for d in first["documents"]}.isdisjoint(d["id"] for d in second["documents"])
    assert all(d["words"] > 0 for d in first["documents"])
    assert client.get("/v1/documents", params={"limit": 0}).status_code == 422


def test_get_document_and_unknown_id(client):
    some_id = client.get("/v1/documents", params={"limit": 1}).json()["documents"][0]["id"]
    doc = client.get(f"/v1/documents/{some_id}").json()
    assert doc["id"] == some_id and doc["text"] or doc["abstract"]
    missing = client.get("/v1/documents/no-such-doc")
    assert missing.status_code == 404
    assert "no-such-doc" in missing.json()["detail"]


def test_upload_markdown_takes_identity_from_client_name_not_temp_path(client):
    body = b"Tardigrades survive in space for ten days when dehydrated.\n\nThey are also called water bears.\n"
    response = upload(client, ("water_bears.md", body))
    assert response.status_code == 201, response.text
    summary = response.json()
    assert summary["added"] == 1 and summary["failed"] == []
    doc_id = summary["ids"][0]
    assert doc_id == content_id("upload", "water_bears.md")
    doc = client.get(f"/v1/documents/{doc_id}").json()
    assert doc["title"] == "water bears"
    assert doc["link"] == ""
    assert "navicite-upload" not in json.dumps(doc)
    hits = client.post("/v1/search", json={"query": "tardigrades dehydrated"}).json()["hits"]
    assert hits[0]["id"] == doc_id

    again = upload(client, ("water_bears.md", body + b"They have eight legs.\n")).json()
    assert again["replaced"] == 1 and again["ids"] == [doc_id]
    assert client.delete(f"/v1/documents/{doc_id}").status_code == 200


def test_file_name_with_path_parts_never_becomes_a_path(client, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a traversal relative to the working folder would land here
    response = upload(client, ("../../../escape_me.txt", b"Payload that must stay inside the collection."))
    assert response.status_code == 201, response.text
    doc_id = response.json()["ids"][0]
    for folder in (tmp_path, tmp_path.parent, tmp_path.parent.parent, Path(tempfile.gettempdir()), Path("/")):
        assert not list(folder.glob("escape_me*")), folder
    assert client.get(f"/v1/documents/{doc_id}").json()["title"] == "escape me"
    client.delete(f"/v1/documents/{doc_id}")


def test_json_records_are_ingested_and_bad_ones_reported(client):
    records = [
        {"id": "rec-1", "title": "Glacier retreat", "text": "Alpine glaciers lost a tenth of their ice in two years."},
        {"id": "rec-2", "title": "Coral bleaching", "abstract": "Warm water expels the algae living in coral."},
    ]
    response = client.post("/v1/documents", json={"records": records})
    assert response.status_code == 201, response.text
    assert sorted(response.json()["ids"]) == ["rec-1", "rec-2"]
    assert client.get("/v1/documents/rec-2").json()["abstract"].startswith("Warm water")

    mixed = client.post("/v1/documents", json={"records": [{"id": "rec-3", "text": "fine"}, {"id": "rec-4"}]}).json()
    assert mixed["ids"] == ["rec-3"]
    assert mixed["failed"][0]["file"] == "records:2" and "no title and no text" in mixed["failed"][0]["reason"]

    only_bad = client.post("/v1/documents", json={"records": [{"id": "rec-5"}]})
    assert only_bad.status_code == 422
    for doc_id in ("rec-1", "rec-2", "rec-3"):
        assert client.delete(f"/v1/documents/{doc_id}").status_code == 200


@pytest.mark.parametrize(
    ("kwargs", "status", "phrase"),
    [
        ({"json": {"records": []}}, 400, "records"),
        ({"json": {"documents": []}}, 400, "records"),
        ({"content": b"not json", "headers": {"content-type": "application/json"}}, 400, "JSON"),
        ({"content": b"plain", "headers": {"content-type": "text/plain"}}, 400, "content type"),
        ({"files": [("other", ("a.md", b"x"))]}, 400, "files"),
    ],
)
def test_bad_upload_requests_are_clear(client, kwargs, status, phrase):
    before = client.get("/v1/documents").json()["total"]
    response = client.post("/v1/documents", **kwargs)
    assert response.status_code == status, response.text
    assert phrase in response.json()["detail"]
    assert client.get("/v1/documents").json()["total"] == before


def test_unsupported_type_is_refused_and_nothing_stored(client):
    before = client.get("/v1/documents").json()["total"]
    response = upload(client, ("notes.md", b"fine text"), ("tool.exe", b"MZ\x90\x00"))
    assert response.status_code == 415
    assert "tool.exe" in response.json()["detail"] and ".pdf" in response.json()["detail"]
    assert client.get("/v1/documents").json()["total"] == before


def test_upload_size_limit(make_client):
    client = make_client("server.max_upload_mb=1")
    big = b"word " * (300 * 1024)  # 1.5 MB
    before = client.get("/v1/documents").json()["total"]
    response = upload(client, ("big.txt", big))
    assert response.status_code == 413
    assert "1 MB" in response.json()["detail"]
    records = client.post("/v1/documents", json={"records": [{"title": "big", "text": big.decode()}]})
    assert records.status_code == 413
    assert client.get("/v1/documents").json()["total"] == before


def test_delete_removes_document_and_second_delete_is_404(client):
    client.post("/v1/documents", json={"records": [{"id": "a/b:c", "title": "Odd id", "text": "slashes in ids"}]})
    assert client.get("/v1/documents/a/b:c").json()["title"] == "Odd id"
    assert client.delete("/v1/documents/a/b:c").json() == {"deleted": "a/b:c"}
    assert client.get("/v1/documents/a/b:c").status_code == 404
    second = client.delete("/v1/documents/a/b:c")
    assert second.status_code == 404 and "nothing was deleted" in second.json()["detail"]


def test_chunked_bodies_are_bounded(make_client):
    client = make_client("server.max_upload_mb=1")
    multipart = client.post("/v1/documents", content=iter([b"--x\r\n"]),
                            headers={"content-type": "multipart/form-data; boundary=x"})
    assert multipart.status_code == 400 and "Content-Length" in multipart.json()["detail"]
    chunks = iter([b'{"records": [{"text": "'] + [b"a" * 65536] * 20 + [b'"}]}'])
    json_body = client.post("/v1/documents", content=chunks, headers={"content-type": "application/json"})
    assert json_body.status_code == 413
