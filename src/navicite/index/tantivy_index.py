"""The embedded lexical index: tantivy (BM25) in a folder of the data directory."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

import tantivy

from navicite.config import IndexSettings
from navicite.documents import Document
from navicite.errors import DiskFullError, IndexStoreError
from navicite.index import tantivy_schema as ts
from navicite.index.base import Hit, IndexStats, UpsertReport, latest_by_id
from navicite.index.cjk import cjk_runs
from navicite.index.query import FIELDS, Query, leaves
from navicite.index.tantivy_render import Renderer
from navicite.index.tantivy_snippets import Snippets
from navicite.index.tantivy_writer import WriterSlot, out_of_space
from navicite.text.language import detect_language

#: Written next to tantivy's files: what navicite needs to read the index back.
INFO_FILE = "navicite-index.json"
#: Ids looked up per term-set query when checking which documents already exist.
_LOOKUP_CHUNK = 4096


class TantivyIndex:
    """A :class:`navicite.index.base.LexicalIndex` stored in ``path``.

    Nothing is created on disk until the first write, so reading commands on a
    fresh data directory leave it untouched. Every ``upsert``/``delete`` ends
    with one commit; the writer (and tantivy's lock) is kept for
    ``writer_linger_s`` seconds so that consecutive batches share it.
    """

    def __init__(self, path: Path, settings: IndexSettings) -> None:
        self.path = Path(path)
        self.settings = settings
        self._index: tantivy.Index | None = None
        self._analysis = ts.Analysis(stemming=settings.stemming, exact_fields=settings.exact_fields)
        self._schema: tantivy.Schema | None = None
        self._renderer: Renderer | None = None
        self._highlighter: Renderer | None = None
        self._open_lock = threading.Lock()
        self._slot: WriterSlot | None = None

    # -- opening -----------------------------------------------------------------------

    def _open(self, create: bool) -> tantivy.Index | None:
        if self._index is not None:
            return self._index
        with self._open_lock:  # searches may run in threads; open the index once
            return self._index if self._index is not None else self._open_locked(create)

    def _open_locked(self, create: bool) -> tantivy.Index | None:
        info_path = self.path / INFO_FILE
        if info_path.is_file():
            self._analysis = self._read_info(info_path)
        elif not create:
            return None
        schema = ts.build_schema(self._analysis)
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            index = tantivy.Index(schema, path=str(self.path), reuse=True)
            if not info_path.is_file():
                info = {"format": ts.FORMAT, "stemming": self._analysis.stemming,
                        "exact_fields": self._analysis.exact_fields}
                info_path.write_text(json.dumps(info) + "\n")
        except (OSError, ValueError) as exc:
            if out_of_space(exc, str(self.path)):
                raise DiskFullError(str(self.path)) from exc
            raise IndexStoreError(
                f"cannot open the index at {self.path}: {exc}; if it was built by another program, move it away"
            ) from exc
        self._index, self._schema = index, schema
        boosts = {ts.ALL: 1.0, "title": self.settings.title_boost}
        self._renderer = Renderer(schema, self._analysis.stemming, boosts, self._analysis.field_routes)
        # The snippet generator works on the combined field, so it needs every word of the
        # query as a search of that field; this query is only read for its terms, never run.
        self._highlighter = Renderer(schema, self._analysis.stemming, {ts.ALL: 1.0}, dict.fromkeys(FIELDS, ts.ALL))
        return index

    def _read_info(self, info_path: Path) -> ts.Analysis:
        try:
            info = json.loads(info_path.read_text())
            fmt, stemming, exact = int(info["format"]), bool(info["stemming"]), bool(info.get("exact_fields", False))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise IndexStoreError(f"{info_path} is damaged ({exc}); delete {self.path} and ingest again") from exc
        if fmt != ts.FORMAT:
            raise IndexStoreError(
                f"the index at {self.path} has format {fmt}, this navicite reads format {ts.FORMAT}: "
                f"delete {self.path} and ingest again"
            )
        # Analysis is fixed when the index is built; a changed setting applies to the next new index.
        return ts.Analysis(stemming=stemming, exact_fields=exact)

    def _searcher(self) -> tantivy.Searcher | None:
        index = self._open(create=False)
        return None if index is None else index.searcher()

    # -- writing -----------------------------------------------------------------------

    def _writer(self) -> WriterSlot:
        if self._slot is None:
            index = self._open(create=True)
            assert index is not None
            with self._open_lock:
                if self._slot is None:
                    self._slot = WriterSlot(
                        index,
                        str(self.path),
                        heap_bytes=self.settings.writer_heap_mb * 1_000_000,
                        threads=self.settings.writer_threads,
                        lock_wait_s=self.settings.lock_wait_s,
                        linger_s=self.settings.writer_linger_s,
                    )
        return self._slot

    def close(self) -> None:
        """Release the writer now (it is also released after ``index.writer_linger_s`` idle seconds and at exit)."""
        if self._slot is not None:
            self._slot.close()

    def upsert(self, documents: Iterable[Document]) -> UpsertReport:
        """Add new documents, replace changed ones, skip unchanged ones; one commit.

        Within one call a later document with the same id wins.
        """
        batch = latest_by_id(documents, ts.utf8_safe)
        report = UpsertReport()
        if not batch:
            return report
        existing = self._fingerprints(list(batch))
        changes: list[tuple[str, Document, str, bool]] = []
        for doc_id, doc in batch.items():
            fingerprint = doc.fingerprint
            old = existing.get(doc_id)
            if old == fingerprint:
                report.unchanged.append(doc_id)
            else:
                changes.append((doc_id, doc, fingerprint, old is not None))
        if not changes:
            return report
        exact_fields = self._analysis.exact_fields
        # Documents go to tantivy one by one: its indexing thread analyses them while this
        # thread converts the next, so the Python-side work mostly overlaps tantivy's.
        with self._writer().commit() as writer:
            for doc_id, doc, fingerprint, replacing in changes:
                if replacing:
                    writer.delete_documents_by_term(ts.ID, doc_id)
                    report.replaced.append(doc_id)
                else:
                    report.added.append(doc_id)
                language = detect_language(doc.title, doc.abstract, doc.text)
                writer.add_document(ts.to_tantivy(doc, fingerprint, language, exact_fields))
        return report

    def delete(self, doc_ids: Iterable[str]) -> list[str]:
        """Remove documents by id, with every passage entry that names one of them as its parent.

        Returns the ids that existed (as entries or as parents), in the order given. One commit.
        """
        wanted = list(dict.fromkeys(ts.utf8_safe(doc_id) for doc_id in doc_ids))
        present = self._fingerprints(wanted)
        parents = self._parents(wanted)
        existed = [doc_id for doc_id in wanted if doc_id in present or doc_id in parents]
        if existed:
            with self._writer().commit() as writer:
                for doc_id in existed:
                    writer.delete_documents_by_term(ts.ID, doc_id)
                    writer.delete_documents_by_term(ts.PARENT, doc_id)
        return existed

    def _parents(self, doc_ids: list[str]) -> set[str]:
        """The given ids that some entry names as its parent."""
        searcher = self._searcher()
        if searcher is None or searcher.num_docs == 0 or not doc_ids:
            return set()
        found: set[str] = set()
        for doc_id in doc_ids:
            query = tantivy.Query.term_query(self._schema, ts.PARENT, doc_id)
            if searcher.search(query, 1, count=False).hits:
                found.add(doc_id)
        return found

    def _fingerprints(self, doc_ids: list[str]) -> dict[str, str]:
        """Fingerprints of the given ids that are in the index."""
        searcher = self._searcher()
        if searcher is None or searcher.num_docs == 0 or not doc_ids:
            return {}
        found: dict[str, str] = {}
        for start in range(0, len(doc_ids), _LOOKUP_CHUNK):
            chunk = doc_ids[start : start + _LOOKUP_CHUNK]
            query = tantivy.Query.term_set_query(self._schema, ts.ID, chunk)
            for _score, address in searcher.search(query, len(chunk), count=False).hits:
                stored = searcher.doc(address)
                found[stored.get_first(ts.ID)] = bytes(stored.get_first(ts.FINGERPRINT)).decode("ascii")
        return found

    # -- reading -----------------------------------------------------------------------

    def search(self, query: Query, k: int = 10, snippets: bool = False) -> list[Hit]:
        """Top ``k`` documents for a query AST, best first, optionally with highlighted snippets."""
        searcher = self._searcher()
        if searcher is None or k <= 0 or searcher.num_docs == 0:
            return []
        assert self._renderer is not None
        rendered = self._renderer.render(query)
        if rendered is None:
            return []
        hits = searcher.search(rendered, min(k, searcher.num_docs), count=False).hits
        makers = None
        if snippets and hits:
            # A run, or failing that its first pair: a word matches other inflected forms.
            cjk_texts = [text for leaf in leaves(query) for run in cjk_runs(leaf.text) for text in (run, run[:2])]
            assert self._highlighter is not None
            highlight = self._highlighter.render(query)
            makers = Snippets(searcher, highlight or rendered, self._schema, ts.ALL, cjk_texts)
        results = []
        for score, address in hits:
            stored = searcher.doc(address)
            results.append(
                Hit(
                    doc_id=stored.get_first(ts.ID) or "",
                    score=float(score),
                    title=stored.get_first("title") or "",
                    snippet=makers.snippet({name: ts.stored_text(stored, name) for name in FIELDS}) if makers else "",
                    link=stored.get_first(ts.LINK) or "",
                    parent=stored.get_first(ts.PARENT) or "",
                )
            )
        return results

    def get(self, doc_id: str) -> Document | None:
        """The stored document, or None."""
        searcher = self._searcher()
        if searcher is None:
            return None
        query = tantivy.Query.term_query(self._schema, ts.ID, ts.utf8_safe(doc_id))
        hits = searcher.search(query, 1, count=False).hits
        return ts.from_tantivy(searcher.doc(hits[0][1])) if hits else None

    def ids(self) -> Iterator[str]:
        """Every document id, in index order (a snapshot taken when iteration starts)."""
        searcher = self._searcher()
        if searcher is None or searcher.num_docs == 0:
            return
        hits = searcher.search(tantivy.Query.all_query(), searcher.num_docs, count=False).hits
        addresses = sorted((a for _s, a in hits), key=lambda a: (a.segment_ord, a.doc))
        for address in addresses:
            yield searcher.doc(address).get_first(ts.ID)

    def count(self) -> int:
        """Number of documents."""
        searcher = self._searcher()
        return 0 if searcher is None else searcher.num_docs

    def stats(self) -> IndexStats:
        """Document count, documents per detected language, bytes on disk."""
        searcher = self._searcher()
        if searcher is None:
            return IndexStats(documents=0)
        languages: dict[str, int] = {}
        if searcher.num_docs:
            result = searcher.aggregate(
                tantivy.Query.all_query(), {"languages": {"terms": {"field": ts.LANGUAGE, "size": 1000}}}
            )
            for bucket in result["languages"]["buckets"]:
                languages[str(bucket["key"])] = int(bucket["doc_count"])
        size = sum(p.stat().st_size for p in self.path.iterdir() if p.is_file())
        return IndexStats(documents=searcher.num_docs, languages=languages, size_bytes=size)
