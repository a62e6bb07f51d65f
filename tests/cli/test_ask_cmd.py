"""``navicite ask``: mode checks that need no model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from navicite.config import load_settings
from navicite.documents import Document
from navicite.index import create

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    index = create(load_settings(tmp_path))
    index.upsert([Document("farm", "Farm report", "Farmers added lime to the clay soil in 1930.")])
    index.close()
    return tmp_path


def test_navi_without_trees_exits_2_saying_how_to_build_them(home: Path, run_cli: Run) -> None:
    code, _, err = run_cli("--home", str(home), "-s", "llm.backend=none", "ask", "When was lime added?", "--mode", "navi")
    assert code == 2 and "navicite tree build" in err
    assert not (home / "trees.sqlite").exists()


def test_navi_with_an_unknown_document_exits_2(home: Path, run_cli: Run) -> None:
    code, _, err = run_cli("--home", str(home), "ask", "When?", "--mode", "navi", "--doc", "ghost")
    assert code == 2 and "'ghost'" in err


def test_unknown_mode_and_doc_outside_navi_exit_2(home: Path, run_cli: Run) -> None:
    code, _, err = run_cli("--home", str(home), "ask", "When?", "--mode", "trees")
    assert code == 2 and "mpr, navi, hybrid" in err
    code, _, err = run_cli("--home", str(home), "ask", "When?", "--mode", "hybrid", "--doc", "farm")
    assert code == 2 and "--mode navi" in err


def test_the_status_line_says_whether_auto_widened_to_a_section() -> None:
    from navicite.cli.ask_cmd import stage_line

    line = stage_line({"name": "widen", "choice": "flat", "reason": "kept flat retrieval: the best passage sits under no heading",
                       "seconds": 0.0}, "auto")
    assert line == "kept flat retrieval: the best passage sits under no heading; writing the answer…"
