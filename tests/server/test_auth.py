"""Who may call the API: loopback without a key, a bearer key whenever one is set."""

from __future__ import annotations

import pytest

from navicite.config import load_settings
from navicite.errors import UserInputError
from navicite.server.auth import check_bind, is_loopback


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]", "LOCALHOST"])
def test_loopback_addresses(host):
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.4", "10.0.0.1", "example.org", ""])
def test_other_addresses_are_not_loopback(host):
    assert not is_loopback(host)


def test_refuses_public_bind_without_key(tmp_path):
    settings = load_settings(tmp_path)
    check_bind(settings, "127.0.0.1")
    with pytest.raises(UserInputError, match="NAVICITE_API_KEY"):
        check_bind(settings, "0.0.0.0")
    check_bind(load_settings(tmp_path, ["server.api_key=s3cret-key-long-enough"]), "0.0.0.0")


def test_key_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("NAVICITE_API_KEY", "from-env-long-enough")
    settings = load_settings(tmp_path)
    assert settings.server.api_key == "from-env-long-enough"
    check_bind(settings, "0.0.0.0")


def test_no_key_configured_means_open(client):
    assert client.get("/v1/documents").status_code == 200
    assert client.post("/v1/search", json={"query": "protein"}).status_code == 200


ENDPOINTS = [
    ("get", "/v1/documents", None),
    ("get", "/v1/documents/some-id", None),
    ("delete", "/v1/documents/some-id", None),
    ("post", "/v1/documents", {"records": [{"title": "t", "text": "x"}]}),
    ("post", "/v1/search", {"query": "protein"}),
    ("post", "/v1/ask", {"question": "What is it?"}),
    ("get", "/v1/tree/some-id", None),
]


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
def test_key_required_everywhere_but_health(make_client, method, path, body):
    client = make_client("server.api_key=s3cret")
    kwargs = {"json": body} if body is not None else {}
    missing = getattr(client, method)(path, **kwargs)
    wrong = getattr(client, method)(path, headers={"Authorization": "Bearer nope"}, **kwargs)
    for response in (missing, wrong):
        assert response.status_code == 401, response.text
        assert "API key" in response.json()["detail"]
        assert response.headers["www-authenticate"] == "Bearer"


def test_right_key_is_accepted_and_health_needs_none(make_client):
    client = make_client("server.api_key=s3cret")
    health = client.get("/v1/health").json()
    assert health == {"status": "ok", "version": health["version"], "auth": True, "index": {"backend": "tantivy"}}
    ok = client.get("/v1/documents", headers={"Authorization": "Bearer s3cret"})
    assert ok.status_code == 200 and ok.json()["total"] > 100
    lower = client.post("/v1/search", json={"query": "protein"}, headers={"authorization": "bearer s3cret"})
    assert lower.status_code == 200
