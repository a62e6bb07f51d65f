"""Building trees for a collection: only what is new or changed is built, other trees stay untouched."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from navicite import index as index_layer
from navicite.errors import DocumentNotFound
from navicite.navigate.build import TreeBuilder
from navicite.navigate.store import TreeStore
from navicite.navigate.validate import problems

TOPICS = ["Climate", "Soil", "Water", "Climate"]


def test_adding_one_document_builds_one_tree_and_touches_no_other(settings: Any, kit: Any) -> None:
    index = index_layer.create(settings)
    index.upsert([kit.topic_document(TOPICS, doc_id=f"d{i}") for i in range(10)])
    model = kit.TreeModel()
    builder = TreeBuilder(settings, kit.rule_llm(model))
    assert [o.status for o in builder.build_collection(index)] == ["built"] * 10
    store = TreeStore.open(settings)
    before = store.rows()
    calls = len(model.seen)

    index.upsert([kit.topic_document(TOPICS, doc_id="d10")])
    outcomes = builder.build_collection(index)
    assert sorted(o.doc_id for o in outcomes if o.status == "built") == ["d10"]
    assert {o.status for o in outcomes if o.doc_id != "d10"} == {"current"}
    assert len(model.seen) - calls == 3  # 2 select + 1 refine: the new document only
    after = store.rows()
    assert [r for r in after if r[1] != "d10"] == before  # same rowids, timestamps and trees
    assert all(problems(store.get(f"d{i}")) == [] for i in range(11))  # type: ignore[arg-type]


def test_a_replaced_document_gets_a_new_tree_and_a_deleted_one_loses_it(settings: Any, kit: Any) -> None:
    index = index_layer.create(settings)
    index.upsert([kit.topic_document(TOPICS, doc_id=f"d{i}") for i in range(3)])
    builder = TreeBuilder(settings, kit.rule_llm())
    builder.build_collection(index)
    store = TreeStore.open(settings)
    old = {r[1]: r for r in store.rows()}

    changed = kit.topic_document(["Water", "Fire"], doc_id="d1")
    index.upsert([changed])
    index.delete(["d2"])
    outcomes = {o.doc_id: o.status for o in builder.build_collection(index)}
    assert outcomes == {"d0": "current", "d1": "built"}
    rows = {r[1]: r for r in store.rows()}
    assert set(rows) == {"d0", "d1"} and rows["d0"] == old["d0"]
    assert [c.title for c in store.get("d1").root.children] == ["Water", "Fire"]  # type: ignore[union-attr]
    assert store.get("d1").fingerprint == changed.fingerprint  # type: ignore[union-attr]


def test_short_documents_get_no_tree_and_unknown_ids_are_refused(tmp_path: Any, kit: Any) -> None:
    settings = kit.tree_settings(tmp_path, "navigate.min_document_words=100")
    index = index_layer.create(settings)
    index.upsert([kit.topic_document(["Climate"], doc_id="short"), kit.topic_document(TOPICS, doc_id="long")])
    builder = TreeBuilder(settings, kit.rule_llm())
    assert [o.status for o in builder.build_collection(index, ["short", "long"])] == ["short", "built"]
    with pytest.raises(DocumentNotFound, match="nope"):
        builder.build_collection(index, ["long", "nope"])
    assert TreeStore.open(settings).doc_ids() == ["long"]


def test_force_rebuilds_and_reports_cost(settings: Any, kit: Any) -> None:
    document = kit.topic_document(TOPICS)
    builder = TreeBuilder(settings, kit.rule_llm())
    first = builder.build(document)
    assert first.status == "built" and first.cost and first.cost.calls == 3
    assert builder.build(document).status == "current"
    assert builder.build(replace(document), force=True).status == "built"


def test_a_model_that_cannot_be_reached_stops_the_build_and_changes_nothing(settings: Any, kit: Any) -> None:
    from navicite.llm.base import LLMUnavailableError
    from navicite.llm.scripted import ScriptedLLM

    builder = TreeBuilder(settings, ScriptedLLM(default=LLMUnavailableError("server down")))
    with pytest.raises(LLMUnavailableError):
        builder.build(kit.topic_document(TOPICS))
    assert TreeStore.open(settings).doc_ids() == []


def test_a_build_failing_validation_stores_nothing_and_drops_the_outdated_tree(
    settings: Any, kit: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from navicite.navigate.validate import TreeInvariantError

    builder = TreeBuilder(settings, kit.rule_llm())
    builder.build(kit.topic_document(TOPICS, doc_id="a"))
    builder.build(kit.topic_document(TOPICS, doc_id="b"))
    store = TreeStore.open(settings)
    kept = [r for r in store.rows() if r[1] == "b"]

    def broken(document: Any) -> Any:
        raise TreeInvariantError(document.id, ["segments [3] are not reachable from the root"])

    monkeypatch.setattr(builder, "organise", broken)
    same = builder.build(kit.topic_document(TOPICS, doc_id="a"), force=True)
    assert same.status == "failed" and store.doc_ids() == ["a", "b"]  # same version: the good tree stays
    changed = builder.build(kit.topic_document(["Fire", "Ice"], doc_id="a"))
    assert changed.status == "failed" and "not reachable" in (changed.error or "")
    assert store.doc_ids() == ["b"] and [r for r in store.rows() if r[1] == "b"] == kept
