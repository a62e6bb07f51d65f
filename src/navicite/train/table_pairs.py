"""Support-judge training pairs read off table rows: a claim names a row, a column and its cell.

Tables reach the judge as text, one row a line: an HTML table as navicite's loader writes it
(``Offset: 0 | Size: 16 | Description: The header string``, each cell under its column's name)
and a Markdown table as written (a ``| a | b |`` header line, a ``|---|`` rule, a line a row).
:func:`tables` finds both in a document's text. From a row, :class:`TablePairMaker` makes a
claim that the row's first cell has a given value in another column ("For Offset 0, the Size
is 16."), read against a window of one to three rows that holds it, with the header line for
Markdown. Spoiled the way table misreadings look:

- ``table-cell``: the value of the same column in another row;
- ``table-row``: the right value given to another row's label (a neighbouring row of the window).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from navicite.train.support_pairs import SupportExample

_NAMED_CELL = re.compile(r"^([^:|]{1,40}):\s+(.+)$")
_RULE = re.compile(r"^\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?$")
#: Claim forms: the row's label, the column's name and the cell, said in a few ways.
_FORMS = (
    "For {label}, the {column} is {value}.",
    "The {column} of {label} is {value}.",
    "{label} has {value} as its {column}.",
    "{value} is the {column} given for {label}.",
)
MAX_VALUE_WORDS = 8


@dataclass(frozen=True)
class Table:
    """A table as text: its column names, its rows of cells, and how each row is written (``lines``)."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    lines: tuple[str, ...]
    #: A line shown above any rows of the window (the Markdown header and rule), else "".
    head: str = ""


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _named_table(block: list[str]) -> Table | None:
    parsed = [[_NAMED_CELL.match(c) for c in _cells(line)] for line in block]
    if any(not all(parsed_row) for parsed_row in parsed):
        return None
    columns = tuple(m.group(1).strip() for m in parsed[0])
    rows = [tuple(m.group(2).strip() for m in row) for row in parsed if tuple(m.group(1).strip() for m in row) == columns]
    return Table(columns, tuple(rows), tuple(block)) if len(rows) >= 2 and len(columns) >= 2 else None


def tables(text: str) -> list[Table]:
    """The tables of ``text`` with at least two rows and two named columns (HTML as loaded, or Markdown)."""
    lines = text.splitlines()
    found: list[Table] = []
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if i + 1 < len(lines) and line.count("|") >= 2 and _RULE.match(lines[i + 1].strip()):
            columns = tuple(_cells(line))
            j = i + 2
            while j < len(lines) and lines[j].strip().count("|") >= 1 and len(_cells(lines[j])) == len(columns):
                j += 1
            block = [lines[k].strip() for k in range(i + 2, j)]
            if len(block) >= 2 and len(columns) >= 2 and all(columns):
                found.append(Table(columns, tuple(tuple(_cells(b)) for b in block), tuple(block), f"{line}\n{lines[i + 1].strip()}"))
            i = j
            continue
        if " | " in line and _NAMED_CELL.match(_cells(line)[0]):
            j = i
            while j < len(lines) and " | " in lines[j]:
                j += 1
            table = _named_table([lines[k].strip() for k in range(i, j)])
            if table is not None:
                found.append(table)
            i = max(j, i + 1)
            continue
        i += 1
    return found


def _usable(value: str) -> bool:
    return 0 < len(value.split()) <= MAX_VALUE_WORDS and any(c.isalnum() for c in value)


class TablePairMaker:
    """Makes :class:`~navicite.train.support_pairs.SupportExample` pairs from a document's tables.

    Args:
        rng: the source of every choice (seeded by the caller).
        positive_share: the share of pairs labelled supported.
    """

    def __init__(self, rng: random.Random, positive_share: float = 0.5) -> None:
        self.rng = rng
        self.positive_share = positive_share
        self.counts: Counter[str] = Counter()

    def from_table(self, doc: str, title: str, table: Table, per_row: float = 1.0) -> Iterator[SupportExample]:
        """About ``per_row`` pairs per row of ``table`` whose first cell names it."""
        labels = [row[0] for row in table.rows]
        for i, row in enumerate(table.rows):
            if self.rng.random() >= per_row or not _usable(row[0]) or labels.count(row[0]) > 1:
                continue
            example = self._one(doc, title, table, i)
            if example is not None:
                self.counts[f"{example.kind}:{example.label}"] += 1
                yield example

    def _window(self, table: Table, i: int) -> tuple[int, int]:
        size = self.rng.choice((1, 2, 3))
        start = max(0, i - self.rng.randrange(size))
        return start, min(len(table.rows), start + size)

    def _text(self, table: Table, start: int, end: int) -> str:
        body = "\n".join(table.lines[start:end])
        return f"{table.head}\n{body}" if table.head else body

    def _claim(self, table: Table, label: str, column: int, value: str) -> str:
        # A named HTML cell reads "Offset: 0": the row's label is said with its column's name.
        row_name = f"{table.columns[0]} {label}" if not table.head and len(label.split()) <= 2 else label
        return self.rng.choice(_FORMS).format(label=row_name, column=table.columns[column], value=value)

    def _one(self, doc: str, title: str, table: Table, i: int) -> SupportExample | None:
        row = table.rows[i]
        columns = [c for c in range(1, len(row)) if _usable(row[c]) and table.columns[c] and row[c] != row[0]]
        if not columns:
            return None
        c = self.rng.choice(columns)
        start, end = self._window(table, i)
        if self.rng.random() < self.positive_share:
            claim = self._claim(table, row[0], c, row[c])
            return SupportExample(claim, title, self._text(table, start, end), 1, "table", doc)
        if self.rng.random() < 0.5:
            others = [r[c] for r in table.rows if _usable(r[c]) and r[c] != row[c]]
            if others:
                claim = self._claim(table, row[0], c, self.rng.choice(others))
                return SupportExample(claim, title, self._text(table, start, end), 0, "table-cell", doc)
        # The window holds a neighbouring row too: the value of this row given to that row's label.
        start, end = min(start, max(0, i - 1)), max(end, min(len(table.rows), i + 2))
        neighbours = [j for j in range(start, end)
                      if j != i and _usable(table.rows[j][0]) and table.rows[j][0] != row[0] and table.rows[j][c] != row[c]]
        if not neighbours:
            return None
        claim = self._claim(table, table.rows[self.rng.choice(neighbours)][0], c, row[c])
        return SupportExample(claim, title, self._text(table, start, end), 0, "table-row", doc)


def table_pairs(maker: TablePairMaker, doc: str, title: str, text: str, per_row: float = 1.0) -> Iterator[SupportExample]:
    """Every pair ``maker`` makes from the tables of one document's ``text``."""
    for table in tables(text):
        yield from maker.from_table(doc, title, table, per_row)


