"""The shared tantivy writer slot."""

from __future__ import annotations

from pathlib import Path

import tantivy

from navicite.index import tantivy_schema as ts
from navicite.index.tantivy_writer import MIN_HEAP_PER_THREAD, WriterSlot


def test_small_heap_uses_fewer_threads_instead_of_failing(tmp_path: Path) -> None:
    schema = ts.build_schema(ts.Analysis(stemming=True))
    index = tantivy.Index(schema, path=str(tmp_path))
    # Four threads would leave each less than tantivy's minimum arena; the slot runs one.
    slot = WriterSlot(index, str(tmp_path), MIN_HEAP_PER_THREAD + 1_000_000, 4, lock_wait_s=0, linger_s=0)
    with slot.commit() as writer:
        writer.add_document(tantivy.Document(id="a", title="kinase"))
    assert index.searcher().num_docs == 1
