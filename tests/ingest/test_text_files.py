"""Markdown, plain text and HTML files."""

from __future__ import annotations

from pathlib import Path

from navicite.documents import Document
from navicite.ingest.base import Failure
from navicite.ingest.text_files import load_html, load_markdown, load_text, markdown_title


def only(items: list) -> Document:
    assert len(items) == 1 and isinstance(items[0], Document), items
    return items[0]


def test_markdown_title_from_first_heading(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("Some intro line.\n\n## Methods\n\ntext\n\n# Later top heading\n", encoding="utf-8")
    doc = only(list(load_markdown(path)))
    assert doc.title == "Methods"
    assert "Some intro line." in doc.text and doc.metadata["format"] == "md"
    assert doc.link == path.resolve().as_uri()


def test_markdown_setext_heading_and_file_name_fallback(tmp_path: Path) -> None:
    assert markdown_title("Big Title\n=========\n\nbody") == "Big Title"
    assert markdown_title("plain words only") == ""
    path = tmp_path / "my_field_notes.md"
    path.write_text("no heading here", encoding="utf-8")
    assert only(list(load_markdown(path))).title == "my field notes"


def test_markdown_front_matter_sets_id_title_link(tmp_path: Path) -> None:
    path = tmp_path / "p.md"
    path.write_text("---\nid: paper-1\ntitle: \"Given Title\"\nlink: https://x.org/1\nlicense: CC BY 4.0\n---\n# Heading\nbody\n",
                    encoding="utf-8")
    doc = only(list(load_markdown(path)))
    assert (doc.id, doc.title, doc.link) == ("paper-1", "Given Title", "https://x.org/1")
    assert doc.metadata["license"] == "CC BY 4.0" and "id:" not in doc.text


def test_same_file_keeps_its_id_when_edited(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("first version", encoding="utf-8")
    before = only(list(load_text(path)))
    path.write_text("second version", encoding="utf-8")
    after = only(list(load_text(path)))
    assert before.id == after.id and before.fingerprint != after.fingerprint


def test_text_title_is_file_name_and_legacy_encoding_loads(tmp_path: Path) -> None:
    path = tmp_path / "caf_menu.txt"
    path.write_bytes("Café crème\nsecond line".encode("cp1252"))
    doc = only(list(load_text(path)))
    assert doc.title == "caf menu" and doc.text.startswith("Café crème")


def test_empty_and_binary_text_files_fail(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("   \n", encoding="utf-8")
    binary = tmp_path / "blob.txt"
    binary.write_bytes(b"\x00\x01\x02abc")
    for path, reason in ((empty, "empty"), (binary, "binary")):
        items = list(load_text(path))
        assert len(items) == 1 and isinstance(items[0], Failure) and reason in items[0].reason, items


HTML = """<!doctype html><html><head><title> Tide  Pools </title>
<meta name="description" content="Life between the tides.">
<link rel="canonical" href="https://example.org/tide">
<style>body { color: red }</style><script>var tracking = 1;</script></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<header>Site banner</header>
<main><h1>Rock pools</h1><p>Anemones &amp; crabs live in <b>rock</b> pools.</p><ul><li>Starfish</li></ul></main>
<footer>Copyright notice</footer><script>more()</script></body></html>"""


def test_html_main_text_without_scripts_styles_and_nav(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text(HTML, encoding="utf-8")
    doc = only(list(load_html(path)))
    assert doc.title == "Tide Pools"
    assert doc.abstract == "Life between the tides."
    assert doc.link == "https://example.org/tide"
    assert doc.text.splitlines() == ["Rock pools", "Anemones & crabs live in rock pools.", "Starfish"]
    for noise in ("tracking", "color", "Home", "banner", "Copyright", "more()"):
        assert noise not in doc.text


def test_html_without_main_keeps_body_and_takes_h1_title(tmp_path: Path) -> None:
    path = tmp_path / "bare.htm"
    path.write_text("<html><body><h1>Heading One</h1><p>Para one.</p><div>Para two.</div></body></html>", encoding="utf-8")
    doc = only(list(load_html(path)))
    assert doc.title == "Heading One"
    assert doc.text.splitlines() == ["Heading One", "Para one.", "Para two."]
    assert doc.link == path.resolve().as_uri()


def test_mixed_encoding_is_decoded_line_by_line(tmp_path: Path) -> None:
    path = tmp_path / "mixed.txt"
    # A UTF-8 file with one line pasted from a Windows-1252 document.
    path.write_bytes("Café crème, déjà vu\n".encode() + "Naïve résumé\n".encode("cp1252") + "Ελληνικά ok\n".encode())
    text = only(list(load_text(path))).text
    assert text.splitlines() == ["Café crème, déjà vu", "Naïve résumé", "Ελληνικά ok"]


def test_utf16_and_utf32_with_a_byte_order_mark_load(tmp_path: Path) -> None:
    words = "Grüße aus Köln: the otters of the Rhine"
    for encoding in ("utf-16", "utf-16-be", "utf-32"):
        path = tmp_path / f"{encoding}.txt"
        raw = words.encode(encoding)
        path.write_bytes(raw if encoding != "utf-16-be" else b"\xfe\xff" + raw)
        assert only(list(load_text(path))).text == words, encoding


def test_random_bytes_without_nul_are_binary_not_a_document(tmp_path: Path) -> None:
    import random

    rng = random.Random(5)
    path = tmp_path / "noise.txt"
    path.write_bytes(bytes(rng.randrange(1, 256) for _ in range(65536)))  # no NUL byte to give it away
    items = list(load_text(path))
    assert len(items) == 1 and isinstance(items[0], Failure) and "binary" in items[0].reason, items
    coloured = tmp_path / "build.log"  # a log with colour codes is still text
    coloured.write_text("\x1b[32mok\x1b[0m compiled module number one\n" * 50, encoding="utf-8")
    assert "compiled module" in only(list(load_text(coloured))).text


def test_a_file_name_that_is_not_utf8_is_read_and_shown_as_text(tmp_path: Path) -> None:
    import os

    folder = os.fsencode(tmp_path)
    with open(folder + b"/caf\xe9 menu.txt", "wb") as handle:  # a Windows-1252 name on a UTF-8 system
        handle.write(b"Coffee and cake are served all day.")
    path = next(tmp_path.iterdir())
    doc = only(list(load_text(path)))
    assert doc.title == "café menu" and doc.metadata["source"].endswith("café menu.txt")
TABLE_PAGE = """<html><body><h1>File format</h1><p>The header is laid out as the table shows.</p>
<table border="1"><tr><th>Offset</th><th>Size</th><th>Description
</th></tr><tr><td>0</td><td>16</td><td>
The header string.
</td></tr><tr><td>16</td><td>2</td><td>
The page size in bytes, a power of two between 512
and 32768.<ul><li>One more rule.</li></ul>
</td></tr></table>
<h2>Pages</h2><p>Pages are numbered from one.</p>
<table><tr><td>%s</td><td>Side column</td></tr></table></body></html>"""


def test_html_table_rows_stay_on_one_line_with_their_header(tmp_path: Path) -> None:
    path = tmp_path / "format.html"
    layout_cell = "Long layout text. " * 70
    path.write_text(TABLE_PAGE % layout_cell, encoding="utf-8")
    doc = only(list(load_html(path)))
    lines = doc.text.split("\n")
    assert "Offset | Size | Description" in lines
    assert "Offset: 0 | Size: 16 | Description: The header string." in lines
    assert ("Offset: 16 | Size: 2 | Description: The page size in bytes, a power of two between 512 and 32768. "
            "One more rule.") in lines
    # A table that lays out the page (a cell of prose) keeps its cells as text, not as one row.
    assert "Side column" in lines and not any("|" in line and "Long layout" in line for line in lines)
    # Headings after a table still start where their words are.
    words = doc.text.split()
    pages = next(s for s in doc.metadata["sections"] if s["title"] == "Pages")
    assert words[pages["start"]] == "Pages"


MANUAL = """<html><body><div class="header"><p>Next: <a href="#Quoting">Quoting</a>, Up: <a href="#Top">Top</a></p></div>
<div class="section" id="Shell-Syntax"><span id="Shell-Syntax-1"></span><h3>3.1 Shell Syntax</h3>
<p>When the shell reads input, it proceeds through a sequence of operations.</p>
<div class="header"><p>Previous: <a href="#Shell-Syntax">Shell Syntax</a></p></div>
<h3 id="Quoting">3.2 Quoting</h3><p>Quoting removes the special meaning of characters.</p></div></body></html>"""


def test_html_navigation_lines_go_and_headings_keep_their_anchors(tmp_path: Path) -> None:
    path = tmp_path / "manual.html"
    path.write_text(MANUAL, encoding="utf-8")
    doc = only(list(load_html(path)))
    assert "Next:" not in doc.text and "Previous:" not in doc.text
    sections = doc.metadata["sections"]
    assert [(s["title"], s.get("anchor")) for s in sections] == [("3.1 Shell Syntax", "Shell-Syntax-1"), ("3.2 Quoting", "Quoting")]
    words = doc.text.split()
    assert [words[s["start"]] for s in sections] == ["3.1", "3.2"]
