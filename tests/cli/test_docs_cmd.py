"""``navicite search``, ``docs list|show|delete`` and ``stats`` on a real index."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from navicite.config import load_settings
from navicite.documents import Document
from navicite.index import create

DOCS = [
    Document("vitd", "Vitamin D and fractures", "Vitamin D deficiency raises the risk of bone fractures.", link="https://x.org/1"),
    Document("heart", "Heart failure", "Beta blockers in heart failure.", metadata={"year": 2019}),
    Document("seoul", "서울의 날씨", "서울은 한국의 수도입니다."),
]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    index = create(load_settings(tmp_path))
    index.upsert(DOCS)
    index.close()
    return tmp_path


Run = Callable[..., tuple[int, str, str]]


def test_search_json(home: Path, run_cli: Run) -> None:
    code, out, _ = run_cli("--home", str(home), "search", "vitamin fractures", "--json")
    assert code == 0
    hits = json.loads(out)
    assert hits[0]["id"] == "vitd" and hits[0]["title"] == "Vitamin D and fractures"
    assert hits[0]["score"] > 0 and "**" in hits[0]["snippet"] and hits[0]["link"] == "https://x.org/1"


def test_search_table_for_people(home: Path, run_cli: Run) -> None:
    code, out, _ = run_cli("--home", str(home), "search", "beta blockers", "-k", "1")
    assert code == 0 and "heart" in out and "Heart failure" in out and "**" not in out


def test_search_korean(home: Path, run_cli: Run) -> None:
    code, out, _ = run_cli("--home", str(home), "search", "서울", "--json")
    assert code == 0 and [h["id"] for h in json.loads(out)] == ["seoul"]


def test_boolean_search(home: Path, run_cli: Run) -> None:
    code, out, _ = run_cli("--home", str(home), "search", "--boolean", "(vitamin OR heart) NOT beta", "--json")
    assert code == 0 and [h["id"] for h in json.loads(out)] == ["vitd"]


def test_boolean_syntax_error_exits_2_with_position(home: Path, run_cli: Run) -> None:
    code, out, err = run_cli("--home", str(home), "search", "--boolean", "(vitamin OR", "--json")
    assert code == 2 and out == ""
    assert "position 11" in err and "Traceback" not in err


def test_no_match_and_no_words(home: Path, run_cli: Run) -> None:
    assert run_cli("--home", str(home), "search", "zebra", "--json")[:2] == (0, "[]\n")
    code, _, err = run_cli("--home", str(home), "search", "zebra")
    assert code == 0 and "no matching documents" in err
    assert run_cli("--home", str(home), "search", "?!", "--json")[:2] == (0, "[]\n")


def test_empty_collection_says_how_to_ingest(tmp_path: Path, run_cli: Run) -> None:
    for args in (["search", "x"], ["docs", "list"], ["stats"]):
        code, _, err = run_cli("--home", str(tmp_path / "fresh"), *args)
        assert code == 0 and "no documents yet: run navicite ingest PATH" in err
    assert not (tmp_path / "fresh").exists()


def test_docs_list(home: Path, run_cli: Run) -> None:
    code, out, _ = run_cli("--home", str(home), "docs", "list", "--json")
    assert code == 0 and sorted(r["id"] for r in json.loads(out)) == sorted(d.id for d in DOCS)
    code, out, _ = run_cli("--home", str(home), "docs", "list", "--limit", "2", "--json")
    assert len(json.loads(out)) == 2
    code, out, _ = run_cli("--home", str(home), "docs", "list")
    assert code == 0 and "3 of 3 documents" in out


def test_docs_show(home: Path, run_cli: Run) -> None:
    code, out, _ = run_cli("--home", str(home), "docs", "show", "heart", "--json")
    assert code == 0 and Document.from_dict(json.loads(out)) == DOCS[1]
    code, out, _ = run_cli("--home", str(home), "docs", "show", "heart")
    assert code == 0 and "Beta blockers" in out and "year: 2019" in out
    code, _, err = run_cli("--home", str(home), "docs", "show", "nope")
    assert code == 2 and "no document with id 'nope'" in err


def test_docs_delete(home: Path, run_cli: Run) -> None:
    code, out, _ = run_cli("--home", str(home), "docs", "delete", "heart", "vitd", "--json")
    assert code == 0 and json.loads(out) == {"deleted": ["heart", "vitd"], "documents": 1}
    code, out, _ = run_cli("--home", str(home), "search", "heart vitamin", "--json")
    assert json.loads(out) == []


def test_docs_delete_drops_the_deleted_documents_trees(home: Path, run_cli: Run) -> None:
    from navicite.navigate.store import TreeStore, build_params
    from navicite.navigate.tree import KnowledgeTree, Node, Paragraph, SegmentRef
    from navicite.text.segments import segment

    settings = load_settings(home)
    store = TreeStore.open(settings)
    for doc in DOCS:
        parts = [SegmentRef(s.index, s.start, s.end, s.text) for s in segment(doc)]
        leaf = Node("0.1", "All", [Paragraph("All of it.", [0])], segments=[p.index for p in parts])
        store.put(KnowledgeTree(doc.id, doc.fingerprint, Node("0", doc.title, children=[leaf]), parts), build_params(settings))
    kept = [row for row in store.rows() if row[1] == "seoul"]
    code, _, _ = run_cli("--home", str(home), "docs", "delete", "heart", "vitd")
    assert code == 0 and store.rows() == kept


def test_docs_delete_with_an_unknown_id_deletes_nothing(home: Path, run_cli: Run) -> None:
    code, _, err = run_cli("--home", str(home), "docs", "delete", "heart", "ghost")
    assert code == 2 and "'ghost'" in err and "nothing was deleted" in err
    assert create(load_settings(home)).count() == len(DOCS)


def test_stats(home: Path, run_cli: Run) -> None:
    code, out, _ = run_cli("--home", str(home), "stats", "--json")
    data = json.loads(out)
    assert code == 0 and data["documents"] == 3 and data["languages"]["ko"] == 1 and data["size_bytes"] > 0
    code, out, _ = run_cli("--home", str(home), "stats")
    assert code == 0 and "documents" in out and "ko 1" in out


HOSTILE = ['(((', '"', "title:", "foo:bar", "a AND", "\\", "*", "^^", "NOT x", ")(" * 5000, "서울 AND (東京 OR \"", "a" * 100_000]


@pytest.mark.parametrize("boolean", [False, True], ids=["free", "boolean"])
def test_hostile_queries_through_the_console_script(home: Path, boolean: bool) -> None:
    # One process per mode keeps this quick; each query runs through the real entry point.
    script = (
        "import sys, json\n"
        "from navicite.cli import main\n"
        "codes = []\n"
        "for q in json.loads(sys.argv[1]):\n"
        "    try:\n"
        "        main(['--home', sys.argv[2], 'search', *(['--boolean'] if sys.argv[3] == '1' else []), '--json', '--', q])\n"
        "    except SystemExit as exc:\n"
        "        codes.append(exc.code or 0)\n"
        "print('CODES', json.dumps(codes), file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, json.dumps(HOSTILE), str(home), "1" if boolean else "0"],
        capture_output=True, text=True, timeout=300,
    )
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    codes = json.loads(result.stderr.rsplit("CODES", 1)[1])
    assert len(codes) == len(HOSTILE)
    assert set(codes) <= ({0, 2} if boolean else {0}), codes
    if boolean:
        assert codes.count(2) >= 8


def test_boolean_error_via_real_console_script(home: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "navicite", "--home", str(home), "search", "--boolean", "a OR OR b"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 2 and "position 5" in result.stderr and "Traceback" not in result.stderr


def test_search_mpr_closes_the_engine(home: Path, run_cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    from navicite.pipeline import Engine

    closed: list[Engine] = []
    original = Engine.close
    monkeypatch.setattr(Engine, "close", lambda self: closed.append(self) or original(self))
    code, out, _ = run_cli("--home", str(home), "-s", "llm.backend=none", "search", "--mpr", "vitamin D fractures", "--json")
    assert code == 0 and json.loads(out)["ranked"][0]["doc_id"] == "vitd"
    assert len(closed) == 1


def test_terminal_escapes_in_titles_are_shown_not_obeyed(tmp_path: Path, run_cli: Run) -> None:
    from navicite.collection import CollectionStore

    title = "Evil \x1b[31mRED\x1b[0m \x1b]0;pwned\x07 \x9b2J title"
    store = CollectionStore(load_settings(tmp_path))
    store.upsert([Document("evil", title, "Terminals obey escape sequences \x1b[2J hidden in text.",
                           metadata={"note": "\x1b[5mblink"})])
    store.close()
    for args in (("search", "terminals"), ("docs", "show", "evil"), ("docs", "list"), ("docs", "show", "evil", "-p")):
        code, out, err = run_cli("--home", str(tmp_path), *args)
        assert code == 0, err
        assert not any(char in out + err for char in "\x1b\x07\x9b"), (args, out)
        assert "\\x1b" in out, (args, out)  # shown, visibly
