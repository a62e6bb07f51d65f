from __future__ import annotations

from navicite.index.base import Hit
from navicite.retrieve.pool import CandidatePool, Provenance, QueryResult, normalise_title


def hits(*pairs: tuple[str, str]) -> list[Hit]:
    return [Hit(doc_id, 10.0 - i, title) for i, (doc_id, title) in enumerate(pairs)]


def test_pool_dedups_by_id_and_keeps_every_provenance() -> None:
    results = [
        QueryResult("Q", "a AND b", hits(("d1", "Bone loss"), ("d2", "Falls"))),
        QueryResult("S", "a* AND b", hits(("d2", "Falls"), ("d3", "Other"))),
    ]
    pool = CandidatePool().run(results)
    by_id = {c.doc_id: c for c in pool}
    assert sorted(by_id) == ["d1", "d2", "d3"]
    assert by_id["d2"].provenance == [Provenance("Q", "a AND b", 2, 9.0), Provenance("S", "a* AND b", 1, 10.0)]
    assert by_id["d2"].portfolios == ["Q", "S"]
    # Found by two portfolios: fused first.
    assert pool[0].doc_id == "d2"


def test_pool_merges_same_title_under_other_id() -> None:
    results = [
        QueryResult("Q", "q1", hits(("d1", "Vitamin D and Fractures."))),
        QueryResult("F", "q2", hits(("x9", "vitamin d  and fractures"), ("d5", ""), ("d6", ""))),
    ]
    pool = CandidatePool().run(results)
    assert [c.doc_id for c in pool].count("x9") == 0
    merged = next(c for c in pool if c.doc_id == "d1")
    assert merged.merged_ids == ["x9"]
    assert len(merged.provenance) == 2
    # Empty titles never merge documents.
    assert {"d5", "d6"} <= {c.doc_id for c in pool}


def test_rrf_takes_best_rank_per_portfolio() -> None:
    results = [
        QueryResult("Q", "q1", hits(("a", "A"), ("b", "B"))),
        QueryResult("Q", "q2", hits(("b", "B"))),
    ]
    pool = CandidatePool(rrf_k=60).run(results)
    b = next(c for c in pool if c.doc_id == "b")
    assert abs(b.score - 1 / 61) < 1e-12  # rank 1 in q2 is Q's best; Q counts once


def test_normalise_title() -> None:
    assert normalise_title("  The  ＣＡＴ: a study!") == "the cat a study"
