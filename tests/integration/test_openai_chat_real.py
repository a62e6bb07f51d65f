"""One question through the ``openai`` package to ``/v1/chat/completions``, the real embedded model answering.

Kept short (flat retrieval, two sources, an 80-token draft, the lexical verifier) so the one
streamed answer takes a minute or two on a shared 2-core machine.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator

import openai
import pytest
import uvicorn

from navicite.collection import CollectionStore
from navicite.config import load_settings
from navicite.ingest import sample_documents
from navicite.llm.base import LLM
from navicite.pipeline import Engine
from navicite.server import create_app

pytestmark = pytest.mark.llm

SETTINGS = ["llm.backend=embedded", "llm.threads=1", "retrieve.method=flat", "generate.max_sources=2",
            "generate.draft_max_tokens=80", "generate.verifier=lexical", "generate.language_retry=false"]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory, real_llm: LLM) -> Iterator[str]:
    settings = load_settings(tmp_path_factory.mktemp("chat-real"), SETTINGS)
    assert CollectionStore(settings).ingest(sample_documents()).ok
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(settings, Engine(settings, llm=real_llm)), host="127.0.0.1",
                                           port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive(), "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/v1"
    server.should_exit = True
    thread.join(timeout=30)


def test_a_streamed_question_gets_a_cited_answer(base_url: str) -> None:
    client = openai.OpenAI(base_url=base_url, api_key="none", max_retries=0, timeout=1200)
    stream = client.chat.completions.create(model="navicite", stream=True, messages=[
        {"role": "user", "content": "Does folic acid supplementation lower blood homocysteine levels?"}])
    content, reasoning, citations = "", "", None
    for chunk in stream:
        if not chunk.choices:
            continue
        content += chunk.choices[0].delta.content or ""
        reasoning += (chunk.choices[0].delta.model_extra or {}).get("reasoning_content") or ""
        if chunk.choices[0].finish_reason:
            citations = chunk.model_extra["citations"]
    assert "Draft:" in reasoning and len(reasoning.split("Draft:", 1)[1].strip()) > 20  # the model's draft streamed
    assert citations, content
    body, block = content.rsplit("\n\n", 1)
    markers = {c["marker"] for c in citations}
    assert {int(n) for n in re.findall(r"\[(\d+)\]", body)} <= markers
    assert block.splitlines() == [line for line in block.splitlines() if re.match(r"\[\d+\] ", line)]
    assert all(c["doc_id"] and c["quote"] for c in citations)
