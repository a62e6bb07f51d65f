"""``navicite ingest`` through the real console entry, with real files and the real index."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from navicite import index as index_package
from navicite.config import load_settings


def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "navicite", "--home", str(home), "ingest", *args],
        capture_output=True, text=True, timeout=300,
    )


def count(home: Path) -> int:
    return index_package.create(load_settings(home)).count()


def test_one_unreadable_file_fails_the_run_but_not_the_rest(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text("# Otters\n\nSea otters use stones as tools.", encoding="utf-8")
    (docs / "also.txt").write_text("Kelp forests shelter fish.", encoding="utf-8")
    (docs / "bad.pdf").write_bytes(b"%PDF-1.4\ngarbage")
    home = tmp_path / "home"
    result = run(home, str(docs))
    assert result.returncode == 1, result.stderr
    assert f"{docs / 'bad.pdf'}: cannot read PDF" in result.stderr
    assert "added 2, replaced 0, unchanged 0, failed 1" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert count(home) == 2


def test_nonexistent_path_exits_2_and_leaves_the_index_alone(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("Lichens are fungi and algae together.", encoding="utf-8")
    home = tmp_path / "home"
    assert run(home, str(good)).returncode == 0
    good.write_text("An edited text that must not reach the index.", encoding="utf-8")
    result = run(home, str(good), str(tmp_path / "no-such-folder"))
    assert result.returncode == 2
    assert "no-such-folder" in result.stderr and "Traceback" not in result.stderr
    index = index_package.create(load_settings(home))
    assert index.count() == 1
    assert next(iter(index.ids())) and "Lichens" in index.get(next(iter(index.ids()))).text


def test_sample_json_summary_and_reingest(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = run(home, "--sample", "--json")
    assert first.returncode == 0, first.stderr
    summary = json.loads(first.stdout)
    assert (summary["added"], summary["failed"]) == (302, [])
    second = json.loads(run(home, "--sample", "--json").stdout)
    assert (second["added"], second["replaced"], second["unchanged"]) == (0, 0, 302)


def test_nothing_to_ingest_is_a_usage_error(tmp_path: Path) -> None:
    result = run(tmp_path / "home", "--format", "jsonl")
    assert result.returncode == 2 and "--sample" in result.stderr
    bad_format = run(tmp_path / "home", "--format", "docx", str(tmp_path))
    assert bad_format.returncode == 2 and "unknown format" in bad_format.stderr


def test_field_mapping_options(tmp_path: Path) -> None:
    records = tmp_path / "papers.jsonl"
    records.write_text(json.dumps({"pid": "P-1", "heading": "Tardigrades", "content": {"body": "They survive vacuum."},
                                   "site": "https://example.org/p1"}) + "\n", encoding="utf-8")
    home = tmp_path / "home"
    result = run(home, str(records), "--id-field", "pid", "--title-field", "heading", "--text-field", "content.body",
                 "--link-field", "site", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["added"] == 1
    doc = index_package.create(load_settings(home)).get("P-1")
    assert (doc.title, doc.text, doc.link) == ("Tardigrades", "They survive vacuum.", "https://example.org/p1")


def test_empty_records_are_warned_about_and_counted_but_exit_0(tmp_path: Path, run_cli) -> None:
    corpus = tmp_path / "cranfield" / "corpus.jsonl"
    corpus.parent.mkdir()
    records = [{"_id": "1", "title": "Boundary layers", "text": "Slip flow near the wall.", "metadata": {}},
               {"_id": "471", "title": "", "text": "", "metadata": {}},
               {"_id": "995", "title": " ", "text": "", "metadata": {}}]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    home = tmp_path / "home"
    code, out, err = run_cli("--home", str(home), "ingest", str(corpus.parent))
    assert code == 0, err
    assert f"warning: {corpus}:2: record 471 has no title, abstract or text; skipped" in err
    assert f"warning: {corpus}:3: record 995 has no title, abstract or text; skipped" in err
    assert "added 1, replaced 0, unchanged 0, failed 0, empty 2 " in err and out == ""
    code, out, err = run_cli("--home", str(home), "ingest", str(corpus.parent), "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert (summary["unchanged"], summary["failed"], summary["empty"], summary["empty_ids"]) == (1, [], 2, ["471", "995"])
    assert count(home) == 1


def test_failures_of_one_file_and_reason_share_a_line() -> None:
    from navicite.cli.ingest_cmd import failure_lines
    from navicite.ingest import Failure

    failures = [Failure("/d/a.jsonl:2", "malformed JSON (x)"), Failure("/d/a.jsonl:7", "malformed JSON (x)"),
                Failure("/d/a.jsonl:9", "record has no title and no text"), Failure("/d/b.pdf", "cannot read PDF (y)")]
    assert failure_lines(failures) == [
        "/d/a.jsonl: malformed JSON (x) (2 records: :2, :7)",
        "/d/a.jsonl:9: record has no title and no text",
        "/d/b.pdf: cannot read PDF (y)",
    ]


def test_a_folder_linking_to_itself_is_read_once_and_named(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "sub" / "otters.md").write_text("# Otters\n\nSea otters use stones as tools.", encoding="utf-8")
    (docs / "self").symlink_to(".")  # a loop
    (docs / "sub" / "up").symlink_to("..")  # another loop, one level down
    (docs / "a").symlink_to("b")  # a link chain that resolves to nothing
    (docs / "b").symlink_to("a")
    home = tmp_path / "home"
    try:
        done = subprocess.run([sys.executable, "-m", "navicite", "--home", str(home), "ingest", str(docs), "--json"],
                              capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        raise AssertionError("ingest of a folder holding a link loop did not end within 60 s") from None
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["added"] == 1
    assert sorted(summary["repeated_folders"]) == [str(docs / "self"), str(docs / "sub" / "up")]
    assert "skipped 2 folder(s) reached again through a symbolic link" in done.stderr


def test_trees_are_built_from_headings_without_the_model_and_the_rest_left(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    sections = [f"## {name}\n\n" + " ".join(f"The {name.lower()} notes record fact {i} of the survey." for i in range(60))
                for name in ("Otters", "Kelp", "Urchins", "Seals")]
    (docs / "survey.md").write_text("# Coastal survey\n\n" + "\n\n".join(sections), encoding="utf-8")
    (docs / "diary.txt").write_text(" ".join(f"Day {i} the tide came in slowly over the sand." for i in range(300)), encoding="utf-8")
    home = tmp_path / "home"
    result = run(home, str(docs), "--trees", "--json")
    assert result.returncode == 0, result.stderr
    trees = {t["doc_id"]: t for t in json.loads(result.stdout)["trees"]}
    by_status = sorted((t["status"], t["source"]) for t in trees.values())
    assert by_status == [("built", "headings"), ("left", "llm")]
    assert all(t["cost"] is None or t["cost"]["calls"] == 0 for t in trees.values())
    text = run(home, str(docs), "--trees")
    assert "up to date 1" in text.stderr and "left 1 without headings" in text.stderr
