from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from navicite.config import Settings
from navicite.index.base import LexicalIndex
from navicite.rerank.fusion import FusionReranker
from navicite.retrieve.mpr import MultiPortfolioRetriever
from navicite.retrieve.render import render_mpr


def test_render_and_json_show_keywords_queries_pool_and_provenance(small_index: LexicalIndex, tmp_path: Path) -> None:
    result = MultiPortfolioRetriever(small_index, None, FusionReranker(), Settings(home=tmp_path)).run(
        "Does vitamin D supplementation reduce hip fractures?"
    )
    console = Console(record=True, width=200)
    render_mpr(result, console)
    text = console.export_text()
    assert "statistical fallback" in text
    for r in result.results:
        assert r.query in text
    assert f"Pool: {len(result.pool)} unique candidates" in text
    assert "portfolio G skipped: no LLM configured to translate keywords" in text
    top = result.ranked[0]
    assert top.doc_id in text and f"{top.portfolios[0]}#" in text

    data = json.loads(json.dumps(result.to_dict()))
    assert data["pool_size"] == len(result.pool)
    assert [q["query"] for q in data["queries"]] == [q.text for q in result.portfolios.queries] + [result.results[-1].query]
    assert data["queries"][-1]["portfolio"] == "B"
    assert data["ranked"][0]["provenance"][0]["rank"] >= 1
    assert data["analysis"]["path"] == "fallback"
