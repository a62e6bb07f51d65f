"""The app as a whole: the page and its headers, OpenAPI docs, health, escaping of document text."""

from __future__ import annotations

import re

from navicite.server.app import STATIC_DIR


def test_page_and_static_files_with_a_strict_policy(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    for name in ("app.js", "style.css"):
        asset = client.get(f"/static/{name}")
        assert asset.status_code == 200 and asset.headers["x-content-type-options"] == "nosniff"
    assert client.get("/static/../app.py").status_code == 404


def test_openapi_docs_list_every_endpoint(client):
    assert client.get("/docs").status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/v1/ask", "/v1/search", "/v1/documents", "/v1/documents/{doc_id}", "/v1/tree/{doc_id}", "/v1/health"):
        assert path in paths
    upload = paths["/v1/documents"]["post"]["requestBody"]["content"]
    assert {"multipart/form-data", "application/json"} <= set(upload)


def test_health(client):
    body = client.get("/v1/health").json()
    assert body["status"] == "ok" and body["auth"] is False


def test_page_script_never_writes_markup():
    """Document text reaches the page only through textContent; no API that parses HTML is used."""
    script = (STATIC_DIR / "app.js").read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in script, sink
    assert not re.search(r"setAttribute\(\s*['\"]on", script)


def test_hostile_document_round_trips_as_data(client):
    hostile = {"id": "xss-doc", "title": "<script>alert('t')</script>", "text": "<img src=x onerror=alert(1)> body",
               "link": "javascript:alert(2)"}
    assert client.post("/v1/documents", json={"records": [hostile]}).status_code == 201
    stored = client.get("/v1/documents/xss-doc")
    assert stored.headers["content-type"] == "application/json"
    assert stored.json()["title"] == hostile["title"]
    assert "<script>" not in client.get("/").text  # the page itself carries no document data
    client.delete("/v1/documents/xss-doc")


def test_an_app_closes_the_engine_it_made_and_leaves_a_given_one_open(sample_settings, engine, monkeypatch):
    from fastapi.testclient import TestClient

    from navicite.pipeline import Engine
    from navicite.server import create_app

    closed = []
    monkeypatch.setattr(Engine, "close", lambda self: closed.append(self))
    with TestClient(create_app(sample_settings, engine), base_url="http://localhost") as given:
        assert given.get("/v1/health").status_code == 200
    assert closed == []
    app = create_app(sample_settings)
    with TestClient(app, base_url="http://localhost") as own:
        assert own.get("/v1/health").status_code == 200
    assert closed == [app.state.engine]
