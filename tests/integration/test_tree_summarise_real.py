"""A structure tree's summary call with the real embedded model: one call for two chapters.

The document is tiny (two chapters of two sections, Markdown headings), so the tree's shape
needs no model; the one call writes both chapters' summaries with a small reply budget.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from navicite.config import load_settings
from navicite.documents import Document
from navicite.text.sections import markdown_sections
from navicite.llm.base import LLM
from navicite.navigate import TreeBuilder, problems

pytestmark = pytest.mark.llm

TEXT = """# 1 Harbour
## 1.1 Building the harbour
Bellmoor harbour was dug by hand in 1789 by two hundred labourers paid by the merchant Edith Crane. For a century it
sheltered the herring fleet, and in 1862 eighty boats were registered there. The stone for the quay came from the
quarry at Hollin Edge and was carried down on carts. A lighthouse was added at the end of the pier in 1820, and its
keeper lived in the cottage beside it with his family for forty years.
## 1.2 Closing the harbour
Sand carried by the winter storms slowly filled the entrance. The council paid for dredging three times, in 1870, 1884
and 1899, but each time the channel silted up again within a few years. In 1911 it gave up: the harbour was closed to
shipping, the fleet moved to Port Ellis twelve miles north and the old quay became a promenade with benches and lamps.
# 2 Festival
## 2.1 The cheese festival
Every August Bellmoor holds a cheese festival on the village green. It began in 1953, when six dairy farms set up
tables to sell their cheese after a poor harvest year. Today more than forty producers come from the county, and about
twelve thousand visitors came last year. The money raised pays for the village hall and the school's trips to the coast.
## 2.2 Prizes and races
On the first day judges award the Golden Wheel prize for the best hard cheese; it has been won most often by Hollow
Farm, eleven times since 1980. The second day has a cheese rolling race down Mill Hill, and the third day ends with a
brass band concert and a market for local bread and cider. Volunteers from the school run the stalls for drinks."""


def test_one_call_summarises_two_chapters(real_llm: LLM, tmp_path: Path) -> None:
    settings = load_settings(tmp_path, [
        "navigate.min_document_words=50", "ingest.passage_words=20", "navigate.leaf_token_budget=256",
        "navigate.summaries_per_call=2", "navigate.node_summary_words=15",
    ])
    document = Document("bellmoor", "Bellmoor", text=TEXT, metadata={"sections": markdown_sections(TEXT)})
    outcome = TreeBuilder(settings, real_llm).build(document)
    assert outcome.status == "built" and outcome.source == "headings", outcome
    assert outcome.cost is not None and 1 <= outcome.cost.calls <= 2, outcome  # one call (and perhaps its repair)
    tree = TreeBuilder(settings, real_llm).store.get("bellmoor")
    assert tree is not None and problems(tree) == []
    harbour, festival = tree.root.children
    assert [c.title for c in harbour.children] == ["1.1 Building the harbour", "1.2 Closing the harbour"]
    texts = [harbour.paragraphs[0].text, festival.paragraphs[0].text]
    assert all(t.strip() for t in texts)
    # The model wrote at least one of them (a fallback lists the sections instead).
    assert any("Sections:" not in t for t in texts), texts
    print("summaries:", texts, "cost:", outcome.cost.to_dict() if outcome.cost else None)
