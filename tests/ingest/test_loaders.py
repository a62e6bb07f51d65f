"""The format dispatch: a bad file always becomes a failure, never an exception."""

from __future__ import annotations

from pathlib import Path

from navicite.ingest import Failure, load


def test_unknown_format_and_unreadable_paths_are_failures(tmp_path: Path) -> None:
    blob = tmp_path / "blob"
    blob.write_bytes(b"\x00\x01")
    [unknown] = list(load(blob, "unknown"))
    assert unknown == Failure(str(blob), "unknown file format (pass --format to say which it is)")
    # A folder where a file is expected: the OS error becomes the reason.
    [folder] = list(load(tmp_path, "jsonl"))
    assert isinstance(folder, Failure) and folder.path == str(tmp_path) and "cannot read" in folder.reason
    [gone] = list(load(tmp_path / "deleted-meanwhile.md", "md"))
    assert isinstance(gone, Failure) and "No such file" in gone.reason


def test_documents_before_a_bad_line_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b'{"id": "1", "text": "ok"}\n\xff\xfe not utf-8\n{"id": "3", "text": "ok too"}\n')
    items = list(load(path, "jsonl"))
    assert [getattr(i, "id", None) for i in items] == ["1", None, "3"]
    assert items[1].path == f"{path}:2" and "malformed JSON" in items[1].reason
