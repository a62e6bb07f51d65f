"""``navicite tree build`` and ``navicite tree show`` with a scripted model and a real index."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from navicite import index as index_layer
from navicite import llm
from navicite.config import load_settings
from navicite.documents import Document
from navicite.llm.scripted import ScriptedLLM
from navicite.navigate.store import TreeStore

SETTINGS = ["-s", "ingest.segment_words=20", "-s", "ingest.segment_overlap=0.0", "-s", "navigate.min_document_words=30",
            "-s", "navigate.concurrency=1", "-s", "llm.backend=tree-scripted"]
ANSWERS = [
    {"segments": [{"segment": 0, "topics": [{"title": "Harbour", "summary": "The harbour opened in 1850."}]},
                  {"segment": 1, "topics": [{"title": "Trade", "summary": "Trade in wool grew."}]}]},
    {"segments": [{"segment": 2, "topics": [{"title": "Harbour", "summary": "The harbour silted up by 1900."}]}]},
    {"paragraphs": [{"text": "The harbour opened in 1850 and silted up by 1900.", "sources": [0, 2]}]},
]


def collection(home: Path) -> None:
    settings = load_settings(home)
    words = " ".join(f"word{i}" for i in range(60))
    index_layer.create(settings).upsert([
        Document("town", "Town history", text=words),
        Document("note", "Short note", text="Too short for a tree."),
    ])


def test_build_then_show_outline_and_json(tmp_path: Path, run_cli: Any) -> None:
    collection(tmp_path)
    stand_in = ScriptedLLM(ANSWERS, concurrency=1)
    llm.register_backend("tree-scripted", lambda settings: stand_in)
    code, out, err = run_cli("--home", str(tmp_path), *SETTINGS, "tree", "build", "--json")
    assert code == 0, err
    outcomes = {o["doc_id"]: o for o in json.loads(out)}
    assert outcomes["note"]["status"] == "short"
    assert outcomes["town"]["status"] == "built" and outcomes["town"]["cost"]["calls"] == 3
    assert outcomes["town"]["cost"]["calls_per_segment"] == 1.0

    code, out, err = run_cli("--home", str(tmp_path), *SETTINGS, "tree", "show", "town")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("Town history  [town]  3 segments, 3 nodes")
    assert "- Harbour  (" in lines[1] and "segments 0,2, words 0-60" in lines[1]
    assert "- Trade  (" in lines[2] and "segments 1, words 20-40" in lines[2]
    assert " tok, leaf of 35 passage tok, segments 1," in lines[2]  # 20 words, about 4 bytes a token
    assert "valid" in err.splitlines() and "invalid" not in err  # the verdict line itself, not a word inside "invalid"

    code, out, _ = run_cli("--home", str(tmp_path), *SETTINGS, "tree", "show", "town", "--json")
    shown = json.loads(out)
    assert shown["problems"] == [] and shown["root"]["children"][0]["paragraphs"][0]["sources"] == [0, 2]

    code, out, err = run_cli("--home", str(tmp_path), *SETTINGS, "tree", "build")
    assert code == 0 and "up to date 1" in err  # nothing rebuilt, no model call left unanswered
    assert "note:" not in run_cli("--home", str(tmp_path), *SETTINGS, "tree", "show", "town")[2]

    index_layer.create(load_settings(tmp_path)).upsert([Document("town", "Town history", text="changed " * 60)])
    code, _, err = run_cli("--home", str(tmp_path), *SETTINGS, "tree", "show", "town")
    assert code == 0 and "has changed since this tree was built" in err


def test_unknown_documents_are_clear_errors(tmp_path: Path, run_cli: Any) -> None:
    collection(tmp_path)
    llm.register_backend("tree-scripted", lambda settings: ScriptedLLM([]))
    code, _, err = run_cli("--home", str(tmp_path), *SETTINGS, "tree", "build", "nope")
    assert code == 2 and "nope" in err
    code, _, err = run_cli("--home", str(tmp_path), *SETTINGS, "tree", "show", "town")
    assert code == 2 and "navicite tree build town" in err


def built_collection(home: Path, run_cli: Any) -> None:
    """The collection with the town's tree built by the scripted model."""
    collection(home)
    stand_in = ScriptedLLM(ANSWERS, concurrency=1)
    llm.register_backend("tree-scripted", lambda settings: stand_in)
    assert run_cli("--home", str(home), *SETTINGS, "tree", "build")[0] == 0


def test_check_validates_every_stored_tree_and_flags_a_broken_one(tmp_path: Path, run_cli: Any) -> None:
    built_collection(tmp_path, run_cli)
    code, out, err = run_cli("--home", str(tmp_path), *SETTINGS, "tree", "check")
    assert code == 0 and out.startswith("town: 3 nodes, valid") and "1 of 1 trees valid" in err

    store = TreeStore.open(load_settings(tmp_path))
    tree = store.get("town").to_dict()
    tree["root"]["children"][0]["paragraphs"][0]["sources"].append(99)  # a segment the document does not have
    # put() refuses a broken tree, so it is planted behind the store's back, as a damaged file would hold it.
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE trees SET tree = ? WHERE doc_id = 'town'", (json.dumps(tree),))
    code, out, _ = run_cli("--home", str(tmp_path), *SETTINGS, "tree", "check", "--store", str(store.path), "--json")
    assert code == 1 and json.loads(out)["town"]["problems"]
    code, _, err = run_cli("--home", str(tmp_path), "tree", "show", "town", "--store", str(store.path))
    assert code == 0 and "invalid: " in err and "valid" not in err.splitlines()

    code, _, err = run_cli("--home", str(tmp_path), "tree", "check", "--store", str(tmp_path / "missing.sqlite"))
    assert code == 2 and "no such file" in err


def test_show_reads_another_store(tmp_path: Path, run_cli: Any) -> None:
    built_collection(tmp_path, run_cli)
    store = TreeStore.open(load_settings(tmp_path)).path
    code, out, err = run_cli("--home", str(tmp_path / "elsewhere"), "tree", "show", "town", "--store", str(store))
    assert code == 0 and out.startswith("Town history  [town]") and "valid" in err.splitlines() and "note:" not in err
    assert run_cli("--home", str(tmp_path), "tree", "show", "town", "--store", str(tmp_path / "none.sqlite"))[0] == 2


def test_build_says_which_path_each_document_took(tmp_path: Path, run_cli: Any) -> None:
    from navicite.text.sections import markdown_sections

    text = "\n".join(f"# Part {k}\n" + " ".join(f"Part {k} fact {j} is stated here plainly." for j in range(12)) for k in range(1, 5))
    settings = load_settings(tmp_path)
    index_layer.create(settings).upsert([
        Document("manual", "Manual", text=text, metadata={"sections": markdown_sections(text)}),
        Document("town", "Town history", text=" ".join(f"word{i}" for i in range(60))),
    ])
    summaries = {"summaries": [{"n": 1, "summary": "Unused: no inner node needs a summary here."}]}
    llm.register_backend("tree-scripted", lambda settings: ScriptedLLM([*ANSWERS, summaries], concurrency=1))
    code, out, err = run_cli("--home", str(tmp_path), *SETTINGS, "-s", "ingest.passage_words=20", "tree", "build", "--json")
    assert code == 0, err
    outcomes = {o["doc_id"]: o for o in json.loads(out)}
    assert (outcomes["manual"]["source"], outcomes["manual"]["fallback"]) == ("headings", None)
    assert outcomes["manual"]["cost"]["calls"] == 0 and outcomes["manual"]["cost"]["calls_per_1k_tokens"] == 0
    assert (outcomes["town"]["source"], outcomes["town"]["fallback"]) == ("llm", "no outline or headings")

    code, _, err = run_cli("--home", str(tmp_path), *SETTINGS, "-s", "ingest.passage_words=20", "tree", "build", "--force", "manual")
    assert code == 0 and "built manual from its headings: " in err and " passages, 0 calls" in err
    code, out, _ = run_cli("--home", str(tmp_path), *SETTINGS, "tree", "show", "manual")
    assert "passages" in out.splitlines()[0] and "shaped by its headings" in out.splitlines()[0]
