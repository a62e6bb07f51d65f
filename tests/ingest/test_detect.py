"""Folder walking and format detection."""

from __future__ import annotations

from collections.abc import Callable

from pathlib import Path

import pytest

from navicite.errors import UserInputError
from navicite.ingest.detect import plan_paths, sniff_format


def test_folder_is_walked_recursively_by_extension(tmp_path: Path, write_pdf: Callable[..., Path]) -> None:
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    (tmp_path / "a.md").write_text("# A", encoding="utf-8")
    (tmp_path / "sub" / "b.HTML").write_text("<p>b</p>", encoding="utf-8")
    write_pdf(tmp_path / "sub" / "deeper" / "c.pdf", [["c"]])
    (tmp_path / "sub" / "data.csv").write_text("x,y", encoding="utf-8")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "secret.md").write_text("# no", encoding="utf-8")
    plan = plan_paths([tmp_path])
    assert [(p.relative_to(tmp_path).as_posix(), f) for p, f in plan.items] == [
        ("a.md", "md"), ("sub/b.HTML", "html"), ("sub/deeper/c.pdf", "pdf")]
    assert [p.name for p in plan.skipped] == ["data.csv"]


def test_beir_folder_is_one_item_even_when_nested(tmp_path: Path, write_beir: Callable[..., Path]) -> None:
    write_beir(tmp_path / "sets" / "scifact", [{"_id": "1", "text": "x"}])
    (tmp_path / "readme.txt").write_text("about", encoding="utf-8")
    plan = plan_paths([tmp_path])
    assert [(p.name, f) for p, f in plan.items] == [("readme.txt", "txt"), ("scifact", "beir")]


def test_explicit_format_picks_matching_files(tmp_path: Path, write_jsonl: Callable[..., Path]) -> None:
    write_jsonl(tmp_path / "a.jsonl", [{"id": 1, "text": "x"}])
    (tmp_path / "b.json").write_text("{}", encoding="utf-8")
    plan = plan_paths([tmp_path], "hotpotqa")
    assert [(p.name, f) for p, f in plan.items] == [("b.json", "hotpotqa")]
    assert [p.name for p in plan.skipped] == ["a.jsonl"]


def test_named_file_without_known_extension_is_sniffed(tmp_path: Path) -> None:
    cases = {"doc": b"%PDF-1.7\n", "page": b"  <!DOCTYPE html><p>x", "lines": b'{"id": 1}\n', "arr": b"[]", "notes": b"hello",
             "blob": b"\x00\x01"}
    for name, content in cases.items():
        (tmp_path / name).write_bytes(content)
    assert {name: sniff_format(tmp_path / name) for name in cases} == {
        "doc": "pdf", "page": "html", "lines": "jsonl", "arr": "json", "notes": "txt", "blob": None}
    plan = plan_paths([tmp_path / "blob", tmp_path / "notes", tmp_path / "notes"])
    assert [(p.name, f) for p, f in plan.items] == [("blob", "unknown"), ("notes", "txt")]


def test_missing_paths_and_unknown_format_are_user_errors(tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match="nope.jsonl"):
        plan_paths([tmp_path, tmp_path / "nope.jsonl"])
    with pytest.raises(UserInputError, match="unknown format 'docx'"):
        plan_paths([tmp_path], "docx")


def test_utf16_text_without_an_extension_is_sniffed_by_its_byte_order_mark(tmp_path: Path) -> None:
    (tmp_path / "notes").write_bytes("Grüße aus Köln".encode("utf-16"))
    (tmp_path / "page").write_bytes("<!DOCTYPE html><p>Köln</p>".encode("utf-16"))
    assert (sniff_format(tmp_path / "notes"), sniff_format(tmp_path / "page")) == ("txt", "html")
