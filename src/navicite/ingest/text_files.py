"""Whole files as documents: Markdown, plain text and HTML."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from navicite.documents import Document
from navicite.ingest.base import Failure, LoadStream, file_id, file_link, one_line, path_text, read_text_file
from navicite.text.sections import Section, markdown_sections, plain_text_sections, section

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*(?:\n|\Z)", re.DOTALL)
_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_SETEXT_HEADING = re.compile(r"^(?! {4})(\S[^\n]*)\n {0,3}(=+|-+)[ \t]*$", re.MULTILINE)
_DOCUMENT_FIELDS = ("id", "title", "abstract", "link")


def _title_from_name(path: Path) -> str:
    return path_text(path.stem).replace("_", " ").strip()


def _read(path: Path) -> str | Failure:
    try:
        return read_text_file(path)
    except (OSError, ValueError) as exc:
        return Failure(str(path), f"cannot read ({one_line(exc)})")


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    """Simple ``key: value`` front matter between ``---`` lines, and the text after it."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    meta: dict[str, str] = {}
    for line in match.group(1).splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip():
            meta[key.strip().lower()] = value.strip().strip("\"'")
    return meta, text[match.end():]


def markdown_title(text: str) -> str:
    """The first heading of a Markdown text (ATX ``# x`` or setext ``x\\n===``), or ''."""
    candidates = [m for m in (_ATX_HEADING.search(text), _SETEXT_HEADING.search(text)) if m]
    if not candidates:
        return ""
    first = min(candidates, key=lambda m: m.start())
    return first.group(1).strip()


def _whole_file(
    path: Path, fmt: str, text: str, title: str, extra: dict[str, str], sections: list[Section] | None = None
) -> LoadStream:
    """One document of ``text``; ``sections`` (word offsets into ``text``) go to ``metadata['sections']``."""
    # Stripping the ends leaves every word where it was, so section offsets stay valid.
    text = text.strip()
    if not text:
        # The title alone would come from the file name: nothing worth indexing.
        yield Failure(str(path), "file is empty (no text)")
        return
    metadata: dict[str, object] = {k: v for k, v in extra.items() if k not in _DOCUMENT_FIELDS}
    metadata.update({"source": path_text(path), "format": fmt})
    if sections:
        metadata["sections"] = sections
    yield Document(
        id=extra.get("id") or file_id(path),
        title=title,
        abstract=extra.get("abstract", ""),
        text=text,
        link=extra.get("link") or file_link(path),
        metadata=metadata,
    )


def load_markdown(path: Path) -> LoadStream:
    """A Markdown file; the title is the front-matter title, the first heading, or the file name.

    The text is the Markdown as written (after the front matter); its headings become
    ``metadata['sections']`` (see :func:`navicite.text.sections.markdown_sections`).

    Front matter (``---`` / ``key: value`` / ``---``) may set ``id``, ``title``,
    ``abstract`` and ``link``; other keys go to the metadata.
    """
    raw = _read(path)
    if isinstance(raw, Failure):
        yield raw
        return
    meta, body = _front_matter(raw)
    title = meta.get("title") or markdown_title(body) or _title_from_name(path)
    yield from _whole_file(path, "md", body, title, meta, markdown_sections(body))


def load_text(path: Path) -> LoadStream:
    """A plain-text file; the title is the file name, its numbered or unnumbered heading lines
    are ``metadata['sections']`` (see :func:`navicite.text.sections.plain_text_sections`)."""
    raw = _read(path)
    if isinstance(raw, Failure):
        yield raw
        return
    yield from _whole_file(path, "txt", raw, _title_from_name(path), {}, plain_text_sections(raw))


#: A table with a cell longer than this (in words) lays out the page rather than listing facts.
LAYOUT_CELL_WORDS = 120
#: Longest header (in words, all columns) repeated in front of each row's cells.
MAX_ROW_HEADER_WORDS = 10


@dataclass
class _Table:
    """An HTML table being read: its rows of cells, each cell a list of text chunks."""

    rows: list[list[tuple[bool, list[str]]]] = field(default_factory=list)
    cell: list[str] | None = None

    def start_row(self) -> None:
        self.rows.append([])
        self.cell = None

    def start_cell(self, header: bool) -> None:
        if not self.rows:
            self.rows.append([])
        self.cell = []
        self.rows[-1].append((header, self.cell))

    def text(self) -> str:
        """The table as text: a data table one row a line, a layout table its cells' text as written.

        Each data row is one line, its cells separated by `` | ``; when the table opens with one
        header row of as many cells as the row, each cell carries its column's name
        (``Offset: 0 | Size: 16 | Description: The header string``), so a row cut out of the table
        into a passage still says what its values are.
        """
        rows = [[(h, "".join(chunks)) for h, chunks in row] for row in self.rows if row]
        if any(len(text.split()) > LAYOUT_CELL_WORDS for row in rows for _, text in row):
            return "\n" + "\n".join(text for row in rows for _, text in row) + "\n"
        flat = [[(h, " ".join(text.split())) for h, text in row] for row in rows]
        header = [text for _, text in flat[0]] if flat and all(h for h, _ in flat[0]) else []
        named = header and sum(len(name.split()) for name in header) <= MAX_ROW_HEADER_WORDS
        lines = []
        for n, row in enumerate(flat):
            cells = [text for _, text in row]
            if named and n and len(cells) == len(header) and not all(h for h, _ in row):
                cells = [f"{name}: {text}" if name and text else text for name, text in zip(header, cells)]
            if any(cells):
                lines.append(" | ".join(cells))
        return "\n" + "\n".join(lines) + "\n"


class _MainTextParser(HTMLParser):
    """Collects an HTML page's title, description, canonical link and visible text.

    Text inside scripts, styles and page furniture (navigation, header, footer,
    asides, forms, and blocks of a navigation class such as texinfo's ``header``) is dropped; a table's rows each become one line (:class:`_Table`); when the page marks its content with ``<main>``
    or ``<article>``, only that content is kept. Headings ``<h1>``-``<h6>`` of the
    kept text are remembered with the place where they start (:meth:`main_sections`).
    """

    HEADINGS = {f"h{n}": n for n in range(1, 7)}

    SKIP = frozenset({"script", "style", "noscript", "template", "svg", "nav", "header", "footer", "aside", "form", "head"})
    MAIN = frozenset({"main", "article"})
    # Classes of navigation blocks that are not marked with <nav> (texinfo's "Next: ..., Up: ..." lines).
    NAV_CLASSES = frozenset({"header", "nav-panel", "navigation", "navbar", "breadcrumb", "breadcrumbs"})
    BLOCK = frozenset({"p", "div", "br", "li", "ul", "ol", "tr", "table", "section", "blockquote", "pre",
                       "h1", "h2", "h3", "h4", "h5", "h6", "dd", "dt", "figcaption", "hr"})
    VOID = frozenset({"br", "hr", "img", "meta", "link", "input", "area", "base", "col", "embed", "source", "wbr"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.h1 = ""
        self.description = ""
        self.canonical = ""
        self._skip_depth = 0
        self._main_depth = 0
        self._in_title = False
        self._in_h1 = False
        self._all: list[str] = []
        self._main: list[str] = []
        # Open heading: (level, chunk count of _all and _main where it began, whether inside main, its text,
        # its anchor: its id, or that of the element just before it, as texinfo writes them).
        self._heading: tuple[int, int, int, bool, list[str], str] | None = None
        self._headings: list[tuple[int, int, int, bool, str, str]] = []
        # Tables being read, innermost last: their cells' text is held until the table ends.
        self._tables: list[_Table] = []
        # A navigation block skipped by its class: its tag and how deep that tag is nested in it.
        self._nav: tuple[str, int] | None = None
        # The last id attribute met, while no text has come after it: a heading's anchor when it has none.
        self._pending_id = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: (v or "") for k, v in attrs}
        if tag == "title":
            self._in_title = True
        elif tag == "meta" and values.get("name", "").lower() == "description":
            self.description = values.get("content", "").strip()
        elif tag == "link" and "canonical" in values.get("rel", "").lower().split():
            self.canonical = values.get("href", "").strip()
        if tag in self.VOID:
            if tag in self.BLOCK:
                self._emit("\n")
            return
        if self._nav is not None and tag == self._nav[0]:
            self._nav = (tag, self._nav[1] + 1)
        elif self._nav is None and set(values.get("class", "").lower().split()) & self.NAV_CLASSES:
            self._nav = (tag, 1)
            self._skip_depth += 1
        if values.get("id"):
            self._pending_id = values["id"]
        if tag in self.SKIP:
            self._skip_depth += 1
        if not self._skip_depth and self._table_tag(tag, opening=True):
            return
        if tag in self.MAIN:
            self._main_depth += 1
        if tag == "h1":
            self._in_h1 = True
        if tag in self.BLOCK:
            self._emit("\n")
        if tag in self.HEADINGS and not self._skip_depth:
            self._heading = (self.HEADINGS[tag], len(self._all), len(self._main), self._main_depth > 0, [], self._pending_id)

    def handle_endtag(self, tag: str) -> None:
        if self._nav is not None and tag == self._nav[0]:
            self._nav = (tag, self._nav[1] - 1) if self._nav[1] > 1 else None
            if self._nav is None:
                self._skip_depth -= 1
                return
        if not self._skip_depth and self._table_tag(tag, opening=False):
            return
        if tag in self.HEADINGS and self._heading is not None:
            level, at_all, at_main, in_main, parts, anchor = self._heading
            self._heading = None
            text = " ".join("".join(parts).split())
            if text:
                self._headings.append((level, at_all, at_main, in_main, text, anchor))
        if tag == "title":
            self._in_title = False
        if tag in self.SKIP and self._skip_depth:
            self._skip_depth -= 1
        if tag in self.MAIN and self._main_depth:
            self._main_depth -= 1
        if tag == "h1":
            self._in_h1 = False
        if tag in self.BLOCK:
            self._emit("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
            return
        if self._in_h1 and not self._skip_depth:
            self.h1 += data
        if not self._skip_depth:
            self._emit(data)
            if self._heading is not None:
                self._heading[4].append(data)
            elif data.strip():
                self._pending_id = ""

    def _table_tag(self, tag: str, opening: bool) -> bool:
        """Table structure (a table, row or cell opening or closing): True when ``tag`` was one."""
        if tag == "table":
            if opening:
                self._tables.append(_Table())
            elif self._tables:
                self._emit(self._tables.pop().text())
            return True
        if not self._tables or tag not in ("tr", "td", "th"):
            return False
        table = self._tables[-1]
        if opening and tag == "tr":
            table.start_row()
        elif opening:
            table.start_cell(header=tag == "th")
        return True

    def _emit(self, data: str) -> None:
        if self._tables:
            # Inside a table only cell text counts (whitespace between rows and cells is layout).
            if self._tables[-1].cell is not None:
                self._tables[-1].cell.append(data)
            return
        self._all.append(data)
        if self._main_depth:
            self._main.append(data)

    def _uses_main(self) -> bool:
        return bool("".join(self._main).strip())

    def main_text(self) -> str:
        chunks = self._main if self._uses_main() else self._all
        lines = (" ".join(line.split()) for line in "".join(chunks).splitlines())
        return "\n".join(line for line in lines if line)

    def main_sections(self) -> list[Section]:
        """The headings of :meth:`main_text`, with word offsets into it.

        A heading begins after a line break that its block tag emitted, so the words of
        the chunks before it are exactly the words before it in the text.
        """
        uses_main = self._uses_main()
        chunks = self._main if uses_main else self._all
        out: list[Section] = []
        done, words = 0, 0
        for level, at_all, at_main, in_main, text, anchor in self._headings:
            if uses_main and not in_main:
                continue
            at = at_main if uses_main else at_all
            words += len("".join(chunks[done:at]).split())
            done = at
            out.append(section(words, level, text, anchor))
        return out


def load_html(path: Path) -> LoadStream:
    """An HTML page: title from ``<title>`` (else the first ``<h1>``, else the file name), main text,
    and its ``<h1>``-``<h6>`` headings as ``metadata['sections']``."""
    raw = _read(path)
    if isinstance(raw, Failure):
        yield raw
        return
    parser = _MainTextParser()
    try:
        parser.feed(raw)
        parser.close()
    except Exception as exc:  # html.parser is lenient; anything it raises is a bad file, not a bug
        yield Failure(str(path), f"cannot parse HTML ({one_line(exc)})")
        return
    title = " ".join(parser.title.split()) or " ".join(parser.h1.split()) or _title_from_name(path)
    extra = {"abstract": parser.description}
    if parser.canonical.startswith(("http://", "https://")):
        extra["link"] = parser.canonical
    yield from _whole_file(path, "html", parser.main_text(), title, extra, parser.main_sections())
