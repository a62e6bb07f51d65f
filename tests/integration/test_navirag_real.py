"""NaviRAG end to end with the real embedded model: organise a short document, then navigate it.

Three segments of about 150 words on distinct topics; small reply budgets keep the
run to a few minutes on a shared CPU.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from navicite.config import load_settings
from navicite.documents import Document
from navicite.llm.base import LLM
from navicite.navigate import Navigator, TreeBuilder, TreeStore, problems

pytestmark = pytest.mark.llm

HARBOUR = (
    "Bellmoor harbour was dug by hand in 1789 by two hundred labourers paid by the merchant Edith Crane. "
    "For a century it sheltered the herring fleet, and at its peak in 1862 eighty boats were registered there. "
    "Sand carried by the winter storms slowly filled the entrance. The town council paid for dredging three times, "
    "in 1870, 1884 and 1899, but each time the channel silted up again within a few years. "
    "In 1911 the council gave up: the harbour was closed to shipping, the fleet moved to Port Ellis twelve miles north, "
    "and the old quay was turned into a promenade. The harbour master's cottage still stands at the end of the quay "
    "and now holds a small museum of fishing gear, nets and photographs of the fleet. Visitors can walk along the "
    "old sea wall at low tide and see the iron rings where boats were once tied."
)
FESTIVAL = (
    "Every August Bellmoor holds a cheese festival on the village green. It began in 1953, when six dairy farms "
    "set up tables to sell their cheese after a poor harvest year. Today more than forty producers come from the "
    "county. The festival lasts three days. On the first day judges award the Golden Wheel prize for the best "
    "hard cheese; the prize has been won most often by Hollow Farm, eleven times since 1980. The second day has a "
    "cheese rolling race down Mill Hill, and the third day ends with a brass band concert and a market for local "
    "bread and cider. About twelve thousand visitors came in the last year, and the money raised pays for the "
    "village hall. Volunteers from the school run the stalls for drinks and cakes, and the local "
    "bus company adds extra buses from the station on all three days of the festival."
)
FOOTBALL = (
    "Bellmoor Rovers is the town's football club, founded in 1898 by workers of the old rope factory. The team plays "
    "in green shirts at Station Road, a ground with room for three thousand people. Its best season was 1934, "
    "when the Rovers reached the fourth round of the national cup and lost two to one to a professional side after "
    "a replay. The club has a women's team since 1991 and a youth academy with about two hundred children. "
    "The current manager is Tom Akers, a former goalkeeper of the club. In recent years the Rovers have played in "
    "the regional league, finishing third last season. A new stand with a roof was opened in 2019, paid for by a "
    "lottery grant and money raised by supporters. Home matches are on Saturday afternoons, and tickets cost "
    "eight pounds for adults while children under twelve get in free with an adult."
)


@pytest.fixture(scope="module")
def built(real_llm: LLM, tmp_path_factory: pytest.TempPathFactory) -> tuple[object, object]:
    home: Path = tmp_path_factory.mktemp("navirag-real")
    settings = load_settings(home, [
        "ingest.segment_words=150", "ingest.segment_overlap=0.0", "navigate.min_document_words=100",
        "navigate.summary_words=25", "navigate.titles_per_segment=1", "navigate.select_max_tokens=400",
        "navigate.refine_max_tokens=250",
        "navigate.navigate_max_tokens=120", "navigate.step_budget=3", "navigate.concurrency=1",
        "navigate.fill_tokens=0",  # the walk's own evidence: the BM25 fill would find the harbour passage by itself
    ])
    document = Document("bellmoor", "Bellmoor: a town guide", text="\n".join([HARBOUR, FESTIVAL, FOOTBALL]))
    outcome = TreeBuilder(settings, real_llm).build(document)
    return settings, outcome


def test_the_real_model_builds_a_valid_tree_within_the_call_plan(built: tuple, real_llm: LLM) -> None:
    settings, outcome = built
    assert outcome.status == "built", outcome.error
    tree = TreeStore.open(settings).get("bellmoor")
    assert tree is not None and problems(tree) == []
    assert len(tree.segments) == 3 and tree.root.reachable_segments() == {0, 1, 2}
    assert all(node.title.strip() for node, _ in tree.nodes())
    # 2 select calls (2 + 1 segments), then optional calls while the build stays within
    # navigate.max_calls_per_segment (1.5): 4 calls for 3 segments, cache hits included.
    assert 2 <= outcome.cost.calls + outcome.cost.cache_hits <= 4
    assert outcome.cost.calls_per_1k_tokens > 0


def test_the_real_model_navigates_to_the_harbour_passage(built: tuple, real_llm: LLM) -> None:
    settings, _ = built
    tree = TreeStore.open(settings).get("bellmoor")
    result = Navigator(real_llm, settings).run("In which year was Bellmoor harbour closed to shipping?", tree)
    assert 1 <= result.steps <= 3
    assert result.evidence and all(e.path[0] == "Bellmoor: a town guide" for e in result.evidence)
    assert any("1911" in e.text for e in result.evidence), [e.to_dict() for e in result.evidence]


def test_the_memory_variant_classifies_the_question_and_grounds_its_notes(built: tuple, real_llm: LLM) -> None:
    settings, _ = built
    tree = TreeStore.open(settings).get("bellmoor")
    result = Navigator(real_llm, settings, memory=True).run("How has the Bellmoor cheese festival grown since it began?", tree)
    assert result.question_kind in ("localised", "synthesis") and result.trace[0].kind == "classify"
    assert 2 <= result.steps <= 3
    # Every note the model kept names a node or passage that was on screen when it was written.
    assert all(n.path[0] == "Bellmoor: a town guide" and n.segments for n in result.notes)
    assert result.evidence
