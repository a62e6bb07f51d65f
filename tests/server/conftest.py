"""Fixtures for the API tests: the bundled sample ingested into a temporary home.

The engine runs without a model (``llm.backend=none``): these tests cover search,
documents, auth and the page; the few tests that ask the real model live in
tests/integration/test_server_api.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from navicite.collection import CollectionStore
from navicite.config import Settings, load_settings
from navicite.ingest import sample_documents
from navicite.pipeline import Engine
from navicite.server import create_app


def sample_home(home: Path, *overrides: str) -> Settings:
    """Settings of ``home`` with the bundled sample ingested."""
    settings = load_settings(home, ["llm.backend=none", *overrides])
    summary = CollectionStore(settings).ingest(sample_documents())
    assert summary.ok and summary.documents > 100
    return settings


@pytest.fixture(scope="session")
def sample_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """One sample collection for the session (tests that write add and remove their own documents)."""
    return sample_home(tmp_path_factory.mktemp("server-home"))


@pytest.fixture(scope="session")
def engine(sample_settings: Settings) -> Engine:
    return Engine(sample_settings)


@pytest.fixture
def make_client(sample_settings: Settings, engine: Engine) -> Iterator[Callable[..., TestClient]]:
    """``make_client("server.api_key=k", ...)``: a client of an app over the module's collection."""
    clients: list[TestClient] = []

    def build(*overrides: str) -> TestClient:
        settings = sample_settings
        if overrides:
            settings = load_settings(sample_settings.home, ["llm.backend=none", *overrides])
        client = TestClient(create_app(settings, engine), base_url="http://localhost")  # a Host the server answers
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.close()


@pytest.fixture
def client(make_client: Callable[..., TestClient]) -> TestClient:
    """A client of the app without an API key."""
    return make_client()
