"""``navicite eval qa --docs ... --questions ...`` in-process, with a scripted model behind the real ask path."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from navicite import llm
from navicite.llm.base import LLMUnavailableError, Message
from navicite.llm.scripted import ScriptedLLM

Run = Callable[..., tuple[int, str, str]]


def _model(messages: list[Message]) -> Any:
    text = "\n".join(m.content for m in messages)
    if "keyword searches" in text:
        raise LLMUnavailableError("scripted: no keyword analysis")  # retrieval takes its statistical fallback
    if "An answer was written" in text:
        return {"sentences": [{"index": 1, "kind": "fact", "sources": [1]}]}
    return "Honey bees make honey from nectar." if "bees" in text.rsplit("Question:", 1)[-1].lower() else "I cannot tell."


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    llm.register_backend("docqa-scripted", lambda settings: ScriptedLLM(default=_model, concurrency=1))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "bees.md").write_text("# Bees\n\nHoney bees make honey from nectar in the hive.\n")
    (docs / "tides.md").write_text("# Tides\n\nThe moon's gravity pulls the oceans and causes the tides.\n")
    questions = tmp_path / "questions.jsonl"
    questions.write_text(
        json.dumps({"file": "bees.md", "question": "What do honey bees make?", "answer": "honey", "all_of": [["honey"]]}) + "\n"
        + json.dumps({"file": "tides.md", "question": "What causes the tides?", "answer": "the moon", "all_of": [["moon"]]}) + "\n"
    )
    return docs, questions


def _args(tmp_path: Path) -> list[str]:
    return ["--home", str(tmp_path / "home"), "-s", "llm.backend=docqa-scripted", "-s", "rerank.backend=none",
            "-s", "generate.verifier=lexical", "eval", "qa"]


def test_json_records_and_methods(run_cli: Run, tmp_path: Path, files: tuple[Path, Path]) -> None:
    docs, questions = files
    out = tmp_path / "out"
    code, stdout, stderr = run_cli(*_args(tmp_path), "--docs", str(docs / "bees.md"), str(docs / "tides.md"),
                                   "--questions", str(questions), "-m", "default", "-m", "one=generate.max_sources=1",
                                   "--out", str(out), "--json")
    assert code == 0, stderr
    report = json.loads(stdout)
    assert list(report["methods"]) == ["default", "one"]
    assert report["methods"]["one"]["overrides"] == ["generate.max_sources=1"]
    assert report["methods"]["default"]["accuracy"] == 0.5 and report["methods"]["default"]["page_accuracy"] is None
    assert "default 1/2 bees.md: correct, cited" in stderr and "one 2/2 tides.md: wrong" in stderr
    records = [json.loads(line) for line in (out / "per_question.jsonl").read_text().splitlines()]
    assert [(r["method"], r["file"], r["correct"]) for r in records] == [
        ("default", "bees.md", True), ("default", "tides.md", False), ("one", "bees.md", True), ("one", "tides.md", False)
    ]
    assert records[0]["citations"][0]["file"] == "bees.md" and "pages" in records[0]["citations"][0]
    assert (tmp_path / "home" / "cache").is_dir()  # the real home's cache is the one shared


def test_table_on_stdout(run_cli: Run, tmp_path: Path, files: tuple[Path, Path]) -> None:
    docs, questions = files
    code, stdout, stderr = run_cli(*_args(tmp_path), "--docs", str(docs), "--questions", str(questions), "-m", "default")
    assert code == 0, stderr
    assert "| method | n | accuracy | cited | page acc." in stdout and "| default | 2 | 0.500 | 0.500 | n/a |" in stdout


@pytest.mark.parametrize("case", ["missing questions", "malformed line", "missing doc", "unknown method", "no questions flag"])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(run_cli: Run, tmp_path: Path, files: tuple[Path, Path], case: str) -> None:
    docs, questions = files
    q = str(questions)
    if case == "malformed line":
        questions.write_text('{"question": "ok?", "answer": "a"}\n{"question": \n')
    args = {
        "missing questions": ["--docs", str(docs), "--questions", str(tmp_path / "nope.jsonl")],
        "malformed line": ["--docs", str(docs), "--questions", q],
        "missing doc": ["--docs", str(docs / "gone.pdf"), "--questions", q],
        "unknown method": ["--docs", str(docs), "--questions", q, "-m", "best"],
        "no questions flag": ["--docs", str(docs)],
    }[case]
    out = tmp_path / "out"
    code, stdout, stderr = run_cli(*_args(tmp_path), *args, "--out", str(out))
    expected = {
        "missing questions": "nope.jsonl: no such questions file",
        "malformed line": "questions.jsonl:2: not valid JSON",
        "missing doc": "no such file or folder",
        "unknown method": "'best' is not built in",
        "no questions flag": "--docs needs --questions",
    }[case]
    assert code == 2 and expected in stderr.replace("\n", "")
    assert stderr.startswith("error:") and "Traceback" not in stderr and stdout == ""
    assert not out.exists() and not (tmp_path / "home").exists()


def test_saved_answers_mode_still_needs_its_pair(run_cli: Run, tmp_path: Path) -> None:
    code, _, stderr = run_cli("--home", str(tmp_path), "eval", "qa", "--dataset", "jsonl:x.jsonl")
    assert code == 2 and "--dataset and --answers" in stderr
    code, _, stderr = run_cli("--home", str(tmp_path), "eval", "qa", "--dataset", "jsonl:x", "--answers", "a", "--docs", "d", "-q", "q")
    assert code == 2 and "use one pair" in stderr
