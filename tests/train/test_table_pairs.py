"""Table-row training pairs: tables are found as navicite writes them, and each spoiler misreads the row it names."""

from __future__ import annotations

import random
from collections import Counter

from navicite.ingest.loaders import load
from navicite.train.support_pairs import PairMaker, document_values
from navicite.train.table_pairs import TablePairMaker, table_pairs, tables

# The SQLite file format's database header, as an HTML page of the format's documentation writes it.
HEADER_HTML = """<html><head><title>Database header</title></head><body>
<p>The first 100 bytes of the database file comprise the database file header.</p>
<table><tr><th>Offset</th><th>Size</th><th>Description</th></tr>
<tr><td>0</td><td>16</td><td>The header string</td></tr>
<tr><td>16</td><td>2</td><td>The database page size in bytes</td></tr>
<tr><td>18</td><td>1</td><td>File format write version</td></tr>
<tr><td>19</td><td>1</td><td>File format read version</td></tr>
<tr><td>20</td><td>1</td><td>Bytes of unused reserved space at the end of each page</td></tr>
</table></body></html>"""

# Node.js's dns documentation (Debian's nodejs-doc), a Markdown table.
DNS_MD = """Resolves a hostname into an array of resource records.

| `rrtype`  | `records` contains   | Result type |
| --------- | -------------------- | ----------- |
| `'A'`     | IPv4 addresses       | {string}    |
| `'MX'`    | mail exchange records| {Object}    |
| `'NS'`    | name server records  | {string}    |
| `'SOA'`   | start of authority   | {Object}    |

On error, `err` is an `Error` object.
"""


def _html_text(tmp_path) -> str:
    page = tmp_path / "header.html"
    page.write_text(HEADER_HTML, encoding="utf-8")
    [doc] = list(load(page, "html"))
    return doc.text


def test_an_html_table_as_loaded_and_a_markdown_table_are_found_with_their_columns(tmp_path) -> None:
    [html] = tables(_html_text(tmp_path))
    assert html.columns == ("Offset", "Size", "Description")
    assert html.rows[1] == ("16", "2", "The database page size in bytes")
    [md] = tables(DNS_MD)
    assert md.columns == ("`rrtype`", "`records` contains", "Result type")
    assert [r[0] for r in md.rows] == ["`'A'`", "`'MX'`", "`'NS'`", "`'SOA'`"]
    assert md.head.startswith("| `rrtype`")
    assert tables("Plain prose | with a bar, and no table.") == []


def test_supported_rows_hold_their_claim_and_spoiled_rows_misread_it(tmp_path) -> None:
    maker = TablePairMaker(random.Random(5))
    html = [ex for r in range(30) for ex in table_pairs(maker, f"d{r}", "Database header", _html_text(tmp_path))]
    dns = [ex for r in range(30) for ex in table_pairs(maker, f"m{r}", "dns", DNS_MD)]
    kinds = Counter((ex.kind, ex.label) for ex in html + dns)
    assert kinds[("table", 1)] and kinds[("table-cell", 0)] and kinds[("table-row", 0)], kinds
    [table] = tables(DNS_MD)
    values = {cell for row in table.rows for cell in row[1:]}
    for ex in dns:
        [label] = [row[0] for row in table.rows if row[0] in ex.claim]
        [value] = [v for v in values if v in ex.claim]
        [line] = [line for line in ex.window.splitlines() if label in line] or [""]
        # Supported: the label's own row is in the window with that value; spoiled: it is not.
        assert (value in line) == (ex.label == 1), (ex.kind, ex.claim, ex.window)
    for ex in html:
        assert ex.window.count("Offset: ") >= 1 and ("Offset " in ex.claim or "Offset" not in ex.window)


def test_a_reworded_claim_is_spoiled_like_a_document_sentence() -> None:
    sentences = ["The option --parallel=N runs N sorts at once, and the default is 8 threads on a large input.",
                 "Stable sorting is not the default, so equal lines may change their order."]
    numbers, names = document_values(sentences)
    maker = PairMaker(random.Random(2))
    made = [maker.spoiled("d", "sort", "By default, sort uses 8 threads for a large input.", "sentence", sentences, 0, 1,
                          numbers, names) for _ in range(20)]
    kinds = Counter(ex.kind for ex in made if ex is not None)
    assert kinds["number"] and kinds["neighbour"], kinds
    for ex in made:
        if ex is not None and ex.kind == "number":
            assert " 8 threads" not in ex.claim
        assert ex is None or ex.label == 0
