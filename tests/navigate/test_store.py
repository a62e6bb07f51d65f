"""The SQLite tree store: round trip, versioning by fingerprint and parameters, never a broken tree."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from navicite.navigate.store import TreeStore
from navicite.navigate.tree import KnowledgeTree, Node, Paragraph, SegmentRef
from navicite.navigate.validate import TreeInvariantError

PARAMS = {"segment_words": 40}


def tree(doc_id: str, fingerprint: str = "fp1") -> KnowledgeTree:
    leaf = Node("0.1", "Only topic", [Paragraph("Summary.", [0])], segments=[0])
    return KnowledgeTree(doc_id, fingerprint, Node("0", doc_id, children=[leaf]), [SegmentRef(0, 0, 2, "two words")])


def test_put_and_get_round_trip(tmp_path: Path) -> None:
    store = TreeStore(tmp_path / "trees.sqlite")
    store.put(tree("a"), PARAMS)
    assert store.get("a").to_dict() == tree("a").to_dict()  # type: ignore[union-attr]
    assert store.get("b") is None
    assert store.doc_ids() == ["a"]


def test_is_current_follows_fingerprint_and_parameters(tmp_path: Path) -> None:
    store = TreeStore(tmp_path / "trees.sqlite")
    store.put(tree("a"), PARAMS)
    assert store.is_current("a", "fp1", PARAMS)
    assert not store.is_current("a", "fp2", PARAMS)
    assert not store.is_current("a", "fp1", {"segment_words": 80})
    store.put(tree("a", "fp2"), PARAMS)  # a replaced document replaces its tree
    assert store.is_current("a", "fp2", PARAMS) and store.doc_ids() == ["a"]


def test_a_broken_tree_is_never_stored(tmp_path: Path) -> None:
    store = TreeStore(tmp_path / "trees.sqlite")
    store.put(tree("a"), PARAMS)
    broken = tree("a", "fp2")
    broken.root.children[0].segments = []
    with pytest.raises(TreeInvariantError):
        store.put(broken, PARAMS)
    assert store.get("a").fingerprint == "fp1"  # type: ignore[union-attr]


def test_delete_and_prune_touch_only_their_documents(tmp_path: Path) -> None:
    store = TreeStore(tmp_path / "trees.sqlite")
    for doc_id in "abc":
        store.put(tree(doc_id), PARAMS)
    assert store.delete(["b", "zz"]) == ["b"]
    assert store.prune(["a"]) == ["c"]
    assert store.doc_ids() == ["a"]


def test_an_unusable_location_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(Exception, match="cannot open the tree store"):
        TreeStore(blocker / "trees.sqlite")


def test_open_uses_the_data_directory(settings: Any) -> None:
    store = TreeStore.open(settings)
    assert store.path == settings.home / "trees.sqlite" and store.path.is_file()
