"""The ingest runner against the real tantivy index."""

from __future__ import annotations

from collections.abc import Callable

import json
from pathlib import Path

import pytest

from navicite import index as index_package
from navicite.collection import CollectionStore
from navicite.config import Settings, load_settings
from navicite.errors import UserInputError
from navicite.ingest import IngestProgress


def settings_for(home: Path, *overrides: str) -> Settings:
    return load_settings(home, list(overrides))


@pytest.fixture
def mixed_folder(tmp_path: Path, write_pdf: Callable[..., Path], write_jsonl: Callable[..., Path],
                 write_beir: Callable[..., Path]) -> Path:
    """One file of every format, one broken PDF and one JSONL line that does not parse."""
    docs = tmp_path / "docs"
    (docs / "web").mkdir(parents=True)
    write_pdf(docs / "report.pdf", [["Solar panel efficiency", "Perovskite cells degrade in humidity."]])
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4\nnot a pdf at all\n")
    (docs / "web" / "page.html").write_text("<title>Bees</title><p>Honey bees pollinate almonds.</p>", encoding="utf-8")
    (docs / "notes.md").write_text("# Glaciers\n\nGlaciers retreat as summers warm.", encoding="utf-8")
    (docs / "plain.txt").write_text("Tea contains theanine.", encoding="utf-8")
    write_jsonl(docs / "records.jsonl", [{"id": "r1", "title": "Rust", "text": "Iron oxidises."}, "{oops",
                                         {"id": "r2", "text": "Copper turns green."}])
    write_beir(docs / "beir", [{"_id": "b1", "title": "Moss", "text": "Moss grows on north sides."}])
    (docs / "hotpot.json").write_text(json.dumps({"Volcano": ["A volcano erupts.", " Lava flows."]}), encoding="utf-8")
    return docs


def test_mixed_folder_failures_and_idempotent_reingest(tmp_path: Path, mixed_folder: Path) -> None:
    docs = mixed_folder
    settings = settings_for(tmp_path / "home")
    first = CollectionStore(settings).ingest([docs])
    # report.pdf, page.html, notes.md, plain.txt, r1, r2, b1, Volcano
    assert (first.added, first.replaced, first.unchanged) == (8, 0, 0)
    assert sorted(f.path for f in first.failed) == sorted([str(docs / "broken.pdf"), f"{docs / 'records.jsonl'}:2"])
    index = index_package.create(settings)
    assert index.count() == 8
    assert index.get("b1").title == "Moss"

    again = CollectionStore(settings).ingest([docs])
    assert (again.added, again.replaced, again.unchanged) == (0, 0, 8)

    (docs / "notes.md").write_text("# Glaciers\n\nGlaciers retreat faster now.", encoding="utf-8")
    edited = CollectionStore(settings).ingest([docs / "notes.md"])
    assert (edited.added, edited.replaced, edited.unchanged) == (0, 1, 0) and edited.ok
    assert index_package.create(settings).count() == 8


def test_duplicate_ids_last_wins_across_batches(tmp_path: Path, write_jsonl: Callable[..., Path]) -> None:
    path = write_jsonl(tmp_path / "dups.jsonl", [
        {"id": "a", "text": "first a"}, {"id": "b", "text": "b"}, {"id": "c", "text": "c"},
        {"id": "a", "text": "second a"}, {"id": "b", "text": "b again"}, {"id": "b", "text": "b last"},
    ])
    settings = settings_for(tmp_path / "home", "ingest.batch_size=2")
    summary = CollectionStore(settings).ingest([path])
    assert (summary.added, summary.replaced, summary.unchanged) == (3, 0, 0)
    assert summary.duplicates == ["a", "b"]
    index = index_package.create(settings)
    assert index.count() == 3
    assert index.get("a").text == "second a" and index.get("b").text == "b last"


def test_crash_mid_run_keeps_completed_batches(tmp_path: Path, write_jsonl: Callable[..., Path]) -> None:
    path = write_jsonl(tmp_path / "many.jsonl", [{"id": f"d{i}", "text": f"document number {i}"} for i in range(10)])
    settings = settings_for(tmp_path / "home", "ingest.batch_size=3")
    seen: list[IngestProgress] = []

    def stop_after_two_batches(event: IngestProgress) -> None:
        seen.append(event)
        if event.documents >= 6:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        CollectionStore(settings).ingest([path], progress=stop_after_two_batches)
    index = index_package.create(settings)
    assert sorted(index.ids()) == [f"d{i}" for i in range(6)]
    resumed = CollectionStore(settings).ingest([path])
    assert (resumed.added, resumed.unchanged) == (4, 6)


def test_empty_records_are_counted_not_indexed_and_do_not_fail(tmp_path: Path, write_beir: Callable[..., Path]) -> None:
    folder = write_beir(tmp_path / "cranfield", [
        {"_id": "1", "title": "Boundary layers", "text": "Slip flow near the wall.", "metadata": {}},
        {"_id": "471", "title": "", "text": "", "metadata": {}},
        {"_id": "2", "title": "Heat transfer", "text": "Hypersonic noses heat up.", "metadata": {}},
        {"_id": "995", "title": "", "text": " ", "metadata": {}},
    ])
    settings = settings_for(tmp_path / "home")
    summary = CollectionStore(settings).ingest([folder])
    assert summary.ok and (summary.added, summary.documents) == (2, 2)
    corpus = folder / "corpus.jsonl"
    assert [(e.where, e.id) for e in summary.empty] == [(f"{corpus}:2", "471"), (f"{corpus}:4", "995")]
    out = summary.to_dict()
    assert (out["empty"], out["empty_ids"], out["failed"]) == (2, ["471", "995"], [])
    assert sorted(index_package.create(settings).ids()) == ["1", "2"]


def test_missing_path_changes_nothing(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("some text", encoding="utf-8")
    home = tmp_path / "home"
    with pytest.raises(UserInputError, match="missing.txt"):
        CollectionStore(settings_for(home)).ingest([good, tmp_path / "missing.txt"])
    assert not home.exists()


def test_progress_reports_every_file(tmp_path: Path) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp_path / name).write_text(f"text of {name}", encoding="utf-8")
    events: list[IngestProgress] = []
    summary = CollectionStore(settings_for(tmp_path / ".home")).ingest([tmp_path], progress=events.append)
    assert summary.added == 3 and summary.seconds > 0 and summary.docs_per_second > 0
    assert [(e.files_done, e.files_total, e.documents) for e in events] == [(1, 3, 1), (2, 3, 2), (3, 3, 3)]


def _store_tree(settings: Settings, doc_id: str) -> None:
    """Store a one-leaf knowledge tree for the indexed document ``doc_id``."""
    from navicite.navigate.store import TreeStore, build_params
    from navicite.navigate.tree import KnowledgeTree, Node, Paragraph, SegmentRef
    from navicite.text.segments import segment

    document = index_package.create(settings).get(doc_id)
    parts = [SegmentRef(s.index, s.start, s.end, s.text) for s in segment(document)]
    leaf = Node("0.1", "All", [Paragraph("Everything.", [p.index for p in parts])], segments=[p.index for p in parts])
    tree = KnowledgeTree(doc_id, document.fingerprint, Node("0", doc_id, children=[leaf]), parts)
    TreeStore.open(settings).put(tree, build_params(settings))


def test_replacing_a_document_drops_its_tree_only(tmp_path: Path, write_jsonl: Callable[..., Path]) -> None:
    from navicite.navigate.store import TreeStore

    settings = settings_for(tmp_path / "home")
    first = write_jsonl(tmp_path / "v1.jsonl", [{"id": "a", "text": "Iron oxidises."}, {"id": "b", "text": "Copper turns green."}])
    CollectionStore(settings).ingest([first])
    _store_tree(settings, "a")
    _store_tree(settings, "b")
    before = {row[1]: row for row in TreeStore.open(settings).rows()}
    CollectionStore(settings).ingest([first])  # unchanged documents keep their trees
    assert TreeStore.open(settings).doc_ids() == ["a", "b"]
    second = write_jsonl(tmp_path / "v2.jsonl", [{"id": "a", "text": "Iron rusts in water."}, {"id": "c", "text": "Tin."}])
    summary = CollectionStore(settings).ingest([second])
    assert (summary.added, summary.replaced) == (1, 1)
    store = TreeStore.open(settings)
    assert store.doc_ids() == ["b"] and store.rows()[0] == before["b"]


def test_ingest_without_trees_creates_no_tree_store(tmp_path: Path, write_jsonl: Callable[..., Path]) -> None:
    settings = settings_for(tmp_path / "home")
    path = write_jsonl(tmp_path / "v1.jsonl", [{"id": "a", "text": "Iron oxidises."}])
    CollectionStore(settings).ingest([path])
    CollectionStore(settings).ingest([write_jsonl(tmp_path / "v2.jsonl", [{"id": "a", "text": "Iron rusts."}])])
    assert not (settings.home / "trees.sqlite").exists()
