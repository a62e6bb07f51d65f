"""The bundled sample collection."""

from __future__ import annotations

from navicite.documents import Document
from navicite.ingest import load, sample_documents, sample_path, sample_questions
from navicite.ingest.detect import plan_paths


def test_sample_is_small_credited_and_loads_cleanly() -> None:
    folder = sample_path()
    assert (folder / "CREDITS.md").is_file()
    assert sum(p.stat().st_size for p in folder.iterdir()) < 1_000_000
    docs = []
    for path, fmt in plan_paths(sample_documents()).items:
        docs.extend(load(path, fmt))
    assert all(isinstance(d, Document) for d in docs)
    assert len(docs) == 302 and len({d.id for d in docs}) == 302
    papers = [d for d in docs if d.metadata.get("format") == "md"]
    assert sorted(d.id for d in papers) == ["arxiv-1908.06606", "arxiv-1909.00694"]
    assert all(d.word_count > 2000 and d.title and d.link.startswith("https://arxiv.org/") for d in papers)


def test_sample_questions_are_listed() -> None:
    questions = sample_questions()
    assert 4 <= len(questions) <= 8 and all(q.endswith("?") for q in questions)
