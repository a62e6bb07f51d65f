"""The server over a collection kept in an OpenSearch cluster (the node of NAVICITE_TEST_OPENSEARCH)."""

from __future__ import annotations

import json
import socket
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from navicite.collection import CollectionStore
from navicite.config import Settings, load_settings
from navicite.ingest import sample_documents
from navicite.pipeline import Engine
from navicite.server import create_app


@pytest.fixture(scope="module")
def cluster_settings(tmp_path_factory: pytest.TempPathFactory, opensearch_overrides: list[str],
                     opensearch_url: str) -> Iterator[Settings]:
    """The bundled sample ingested into the cluster (both indexes), dropped afterwards."""
    home = tmp_path_factory.mktemp("cluster-home")
    settings = load_settings(home, ["llm.backend=none", *opensearch_overrides])
    store = CollectionStore(settings)
    summary = store.ingest(sample_documents())
    assert summary.ok and summary.documents > 100
    yield settings
    for part in (store.documents, store.passages):
        request = urllib.request.Request(f"{opensearch_url}/{part.name}", method="DELETE")  # type: ignore[attr-defined]
        urllib.request.urlopen(request, timeout=30).close()


def test_search_and_health_over_the_cluster(cluster_settings: Settings) -> None:
    with TestClient(create_app(cluster_settings, Engine(cluster_settings)), base_url="http://localhost") as client:
        health = client.get("/v1/health").json()
        assert health["status"] == "ok"
        assert health["index"]["backend"] == "opensearch" and health["index"]["status"] in ("green", "yellow")
        found = client.post("/v1/search", json={"query": "affective events discourse relations", "k": 3})
        assert found.status_code == 200, found.text
        assert found.json()["hits"], found.text
        boolean = client.post("/v1/search", json={"query": 'title:"affective events" AND discourse', "boolean": True})
        assert boolean.status_code == 200 and boolean.json()["hits"], boolean.text


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_down_cluster_is_reported_by_health_and_the_server_keeps_running(tmp_path: Path) -> None:
    hosts = f'index.opensearch.hosts=["http://127.0.0.1:{closed_port()}"]'
    settings = load_settings(tmp_path, ["llm.backend=none", "index.backend=opensearch", hosts, "index.opensearch.max_retries=0"])
    with TestClient(create_app(settings, Engine(settings)), raise_server_exceptions=False, base_url="http://localhost") as client:
        health = client.get("/v1/health")
        assert health.status_code == 200
        assert health.json()["index"]["status"] == "unreachable"
        assert "cannot reach the OpenSearch cluster" in health.json()["index"]["error"]
        failed = client.post("/v1/search", json={"query": "gene"})
        assert failed.status_code >= 500 and "cannot reach the OpenSearch cluster" in json.dumps(failed.json())
        assert client.get("/v1/health").status_code == 200
