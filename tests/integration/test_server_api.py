"""``POST /v1/ask`` with the real embedded model over the bundled sample: one plain, one streamed answer.

Answers are kept short (two sources, a small draft budget, few judge calls) so the
two requests take a couple of minutes on a shared 2-core machine.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from navicite.collection import CollectionStore
from navicite.config import Settings, load_settings
from navicite.ingest import sample_documents
from navicite.llm.base import LLM
from navicite.pipeline import Engine
from navicite.server import create_app

pytestmark = pytest.mark.llm

#: Settings that keep one real answer short; shared with the browser test.
SHORT_ANSWER = [
    "llm.backend=embedded",
    "llm.threads=1",
    "generate.max_sources=2",
    "generate.draft_max_tokens=120",
    "generate.section_sentences=2",
    "generate.judge_max_calls=2",
    "generate.language_retry=false",
    "retrieve.analysis_max_tokens=96",
]


def short_answer_settings(home, *extra: str) -> Settings:
    """Settings of ``home`` for short real answers, with the bundled sample ingested."""
    settings = load_settings(home, [*SHORT_ANSWER, *extra])
    assert CollectionStore(settings).ingest(sample_documents()).ok
    return settings


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, real_llm: LLM) -> Iterator[TestClient]:
    settings = short_answer_settings(tmp_path_factory.mktemp("serve-real"))
    with TestClient(create_app(settings, Engine(settings, llm=real_llm)), base_url="http://localhost") as test_client:
        yield test_client


def check_answer(client: TestClient, answer: dict) -> None:
    """Every marker in the text is a listed citation of a stored document; the trace shows retrieval."""
    assert answer["answer"].strip()
    listed = {c["marker"]: c for c in answer["citations"]}
    used = {int(m) for m in re.findall(r"\[(\d+)\]", answer["answer"])}
    assert used <= set(listed), (used, listed)
    assert answer["citations"], "the answer cites nothing"
    for citation in answer["citations"]:
        assert client.get(f"/v1/documents/{citation['doc_id']}").status_code == 200
        assert citation["passage"]
    assert {s["kind"] for s in answer["sentences"]} <= {"cited", "general", "unsupported", "heading"}
    retrieve = answer["trace"]["stages"][0]
    assert retrieve["name"] == "retrieve"
    assert retrieve["outputs"]["ranked"][0]["provenance"]
    assert answer["trace"]["llm"]["calls"] >= 1


def test_plain_answer(client: TestClient) -> None:
    response = client.post("/v1/ask", json={"question": "How many seed words are used to learn the polarity of affective events?"})
    assert response.status_code == 200, response.text
    check_answer(client, response.json())


def test_streamed_answer(client: TestClient) -> None:
    question = "Does folic acid supplementation lower blood homocysteine levels?"
    kinds: list[str] = []
    draft = ""
    answer = None
    with client.stream("POST", "/v1/ask", json={"question": question, "stream": True}) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        event = None
        for line in response.iter_lines():
            if line.startswith("event: "):
                event = line[len("event: "):]
            elif line.startswith("data: "):
                data = json.loads(line[len("data: "):])
                kinds.append(event)
                if event == "token":
                    draft += data["text"]
                elif event == "reset":
                    draft = ""
                elif event == "answer":
                    answer = data
                elif event == "error":
                    pytest.fail(data["detail"])
    # The first matches come at once, then the retrieval stage, the chosen sources, the draft, the answer.
    assert kinds[0] == "sources" and "stage" in kinds and "token" in kinds and kinds[-1] == "answer"
    assert kinds.index("stage") < kinds.index("sources", 1) < kinds.index("token")
    assert draft.strip()
    assert answer is not None and answer["question"] == question
    check_answer(client, answer)
