"""Fixtures shared by every test package.

LLM fixtures:
- ``real_llm``: the real embedded model (Qwen2.5-Coder-1.5B, 1 thread), loaded once per
  test run. Its answer cache lives in a fresh temporary folder, so a run never replays
  answers from an earlier run. Mark tests that use it ``@pytest.mark.llm`` and keep
  ``max_tokens`` small (CallOptions(max_tokens=...)).
- ``small_real_llm``: the 0.5B model, for tests that only need *a* real model quickly.
- ``scripted_llm``: a factory for :class:`navicite.llm.scripted.ScriptedLLM`, the stand-in
  that replays given answers and records the requests (``llm.calls``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from navicite.config import Settings, load_settings
from navicite.llm.base import LLM
from navicite.llm.scripted import ScriptedLLM


def real_llm_settings(home: Path, model: str = "qwen2.5-coder-1.5b", *extra: str) -> Settings:
    """Settings for a real embedded model in ``home``: 1 thread, small default replies."""
    return load_settings(home, ["llm.backend=embedded", f"llm.model={model}", "llm.threads=1", "llm.max_tokens=128", *extra])


@pytest.fixture(scope="session")
def real_llm(tmp_path_factory: pytest.TempPathFactory) -> LLM:
    """The real embedded 1.5B model, shared by the whole test run."""
    from navicite.llm.embedded import EmbeddedLLM

    return EmbeddedLLM(real_llm_settings(tmp_path_factory.mktemp("real-llm")))


@pytest.fixture(scope="session")
def small_real_llm(tmp_path_factory: pytest.TempPathFactory) -> LLM:
    """The real embedded 0.5B model (fast, weak), shared by the whole test run."""
    from navicite.llm.embedded import EmbeddedLLM

    return EmbeddedLLM(real_llm_settings(tmp_path_factory.mktemp("small-llm"), "qwen2.5-coder-0.5b"))


@pytest.fixture
def scripted_llm() -> Callable[..., ScriptedLLM]:
    """``scripted_llm(answer1, answer2, ..., default=None)`` builds a fresh ScriptedLLM."""

    def build(*answers: Any, **kwargs: Any) -> ScriptedLLM:
        return ScriptedLLM(answers, **kwargs)

    return build


# -- an OpenSearch node (index.backend=opensearch) --------------------------------------------

NO_NODE = (
    "no OpenSearch node for the opensearch backend's tests: run scripts/search-node.sh start and set "
    "NAVICITE_TEST_OPENSEARCH=http://127.0.0.1:9250"
)


@pytest.fixture(scope="session")
def opensearch_url() -> str:
    """The test node's address (CI sets NAVICITE_TEST_OPENSEARCH after scripts/search-node.sh start).

    Skips without the variable (a developer without a node); fails, never skips, when it is set
    and no node answers or the cluster is red.
    """
    import json
    import os
    import urllib.request

    url = os.environ.get("NAVICITE_TEST_OPENSEARCH", "").rstrip("/")
    if not url:
        pytest.skip(NO_NODE)
    try:
        with urllib.request.urlopen(f"{url}/_cluster/health?wait_for_status=yellow&timeout=30s", timeout=40) as reply:
            status = json.load(reply)["status"]
    except (OSError, ValueError, KeyError) as exc:
        pytest.fail(f"NAVICITE_TEST_OPENSEARCH={url} is set but no OpenSearch node answers ({exc}); {NO_NODE}")
    if status == "red":
        pytest.fail(f"the OpenSearch cluster at {url} is red")
    return url


@pytest.fixture(scope="session")
def opensearch_overrides(opensearch_url: str) -> list[str]:
    """Settings selecting the test node; two shards per index, so scores must not depend on sharding."""
    return [
        "index.backend=opensearch",
        f'index.opensearch.hosts=["{opensearch_url}"]',
        "index.opensearch.shards=2",
        "index.opensearch.replicas=0",
    ]
