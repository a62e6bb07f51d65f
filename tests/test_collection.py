"""The collection keeps documents, passages and trees in step."""

from __future__ import annotations

import json
from pathlib import Path

from navicite.collection import INFO_FILE, PENDING_FILE, CollectionStore
from navicite.config import load_settings
from navicite.documents import Document
from navicite.index import free_text

LONG = " ".join(f"Sentence {i} talks about topic{i % 7} and more words here." for i in range(120))


def _collection(home: Path, *overrides: str) -> CollectionStore:
    return CollectionStore(load_settings(home, ["ingest.passage_words=40", *overrides]))


def test_upsert_indexes_passages_and_replace_drops_the_old_ones(tmp_path: Path) -> None:
    c = _collection(tmp_path)
    c.upsert([Document(id="long", title="Long", text=LONG), Document(id="short", title="Short", text="Topic3 is short.")])
    ids = set(c.passages.ids())
    assert "short" in ids and len([i for i in ids if i.startswith("long#p")]) == len(c.passages_of(c.get("long")))
    c.upsert([Document(id="long", title="Long", text="Now only one sentence about topic5.")])
    assert set(c.passages.ids()) == {"long", "short"}
    hit = c.passages.search(free_text("topic5"), k=3)[0]
    assert hit.doc_id == "long" and hit.parent == ""


def test_delete_removes_a_documents_passages(tmp_path: Path) -> None:
    c = _collection(tmp_path)
    c.upsert([Document(id="long", title="Long", text=LONG)])
    assert c.delete(["long", "missing"]) == ["long"]
    assert c.passages.count() == 0 and c.documents.count() == 0


def test_passages_are_rebuilt_when_cut_differently_or_after_a_crash(tmp_path: Path) -> None:
    c = _collection(tmp_path)
    c.upsert([Document(id="long", title="Long", text=LONG)])
    before = c.passages.count()
    c.close()
    wider = _collection(tmp_path, "ingest.passage_words=200")
    rebuilt = wider.passages.count()
    assert rebuilt < before  # the stored cut no longer matched the setting
    assert json.loads((tmp_path / "passages" / INFO_FILE).read_text())["passage_words"] == 200
    wider.close()
    (tmp_path / "passages" / PENDING_FILE).write_text("")  # a write that died before its passages
    again = _collection(tmp_path, "ingest.passage_words=200")
    assert again.passages.count() == rebuilt
    assert not (tmp_path / "passages" / PENDING_FILE).exists()


def test_delete_removes_the_documents_vectors_and_document_vector_rows(tmp_path: Path) -> None:
    from navicite import embed
    from navicite.ingest.vectors import embed_collection
    from navicite.vectors import open_store

    c = _collection(tmp_path)
    c.upsert([Document(id="long", title="Long", text=LONG), Document(id="kept", title="Kept", text="Topic3 stays here.")])
    settings = c.settings
    with open_store(tmp_path, settings.embed.model) as store:  # as `ingest --embed` does: every passage
        embed_collection(c.passages, store, embed.create(settings))
        assert len(store) == len(list(c.passages.ids()))
    assert c.delete(["long"]) == ["long"]
    with open_store(tmp_path, settings.embed.model) as store:
        ids, vectors = store.document_vectors()  # what portfolio D reads
        assert ids == ["kept"] and vectors.shape[0] == 1
        assert len(store) == 1  # the kept document's vector only


def test_ghost_passages_of_an_earlier_release_are_removed_once(tmp_path: Path) -> None:
    c = _collection(tmp_path)
    c.upsert([Document(id="long", title="Long", text=LONG), Document(id="kept", title="Kept", text="Topic3 stays.")])
    c.documents.delete(["long"])  # what an earlier release's interrupted delete left: passages without a document
    c.close()
    (tmp_path / "passages" / INFO_FILE).write_text(json.dumps({"passage_words": 40}) + "\n")  # that release's record
    again = _collection(tmp_path)
    assert set(again.passages.ids()) == {"kept"}
    assert json.loads((tmp_path / "passages" / INFO_FILE).read_text())["repair"] >= 2
