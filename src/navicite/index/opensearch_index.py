"""The lexical index in an OpenSearch cluster (``index.backend = opensearch``).

One OpenSearch index per collection part (``<prefix>-documents``, ``<prefix>-passages``),
created on the first write. Writes go out as bulk requests and end with one refresh, so a
search right after a call sees all of it (OpenSearch has no multi-document transaction: a
call that fails half-way leaves the documents written so far, which the next ingest of the
same files finds unchanged or repairs). Searches use ``dfs_query_then_fetch``, so BM25 reads
term statistics of the whole index and a document's score does not depend on its shard.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from opensearchpy import OpenSearch, helpers
from opensearchpy.exceptions import ConnectionError as OSConnectionError
from opensearchpy.exceptions import NotFoundError, OpenSearchException, RequestError, TransportError

from navicite.config import IndexSettings, OpenSearchSettings
from navicite.documents import Document
from navicite.errors import IndexStoreError, UserInputError
from navicite.index import opensearch_mapping as om
from navicite.index.base import Hit, IndexStats, UpsertReport, latest_by_id
from navicite.index.cjk import cjk_runs
from navicite.index.opensearch_render import Renderer
from navicite.index.query import FIELDS, Query, Term, leaves
from navicite.index.tantivy_schema import utf8_safe
from navicite.index.snippet_text import SNIPPET_CHARS, SNIPPET_FIELDS, cjk_pattern, cjk_snippet, opening
from navicite.text.language import detect_language

#: Ids per multi-get or terms lookup.
_LOOKUP_CHUNK = 1000
#: Longest ``_id`` OpenSearch takes is 512 bytes; longer navicite ids are stored under their hash.
_MAX_ID_BYTES = 500
_HIT_FIELDS = ["id", "title", "link", "parent"]
#: Most hits one search returns (OpenSearch's default index.max_result_window).
_MAX_HITS = 10_000


def connect(settings: OpenSearchSettings) -> OpenSearch:
    """A client for the configured cluster (no request is made yet)."""
    options: dict[str, Any] = {
        "hosts": settings.hosts,
        "timeout": settings.timeout_s,
        "max_retries": settings.max_retries,
        "retry_on_timeout": settings.max_retries > 0,
        "verify_certs": settings.verify_certs,
        "ssl_show_warn": settings.verify_certs,
    }
    if settings.ca_certs:
        options["ca_certs"] = settings.ca_certs
    if settings.api_key:
        options["headers"] = {"Authorization": f"ApiKey {settings.api_key}"}
    elif settings.username:
        options["http_auth"] = (settings.username, settings.password or "")
    return OpenSearch(**options)


def cluster_error(settings: OpenSearchSettings, exc: Exception) -> IndexStoreError:
    """One line saying the cluster failed a request, why, and what to check."""
    hosts = ", ".join(settings.hosts)
    if isinstance(exc, OSConnectionError):
        return IndexStoreError(
            f"cannot reach the OpenSearch cluster at {hosts}; start it (scripts/search-node.sh start for a local one) "
            "or check index.opensearch.hosts"
        )
    status = getattr(exc, "status_code", "")
    detail = getattr(exc, "error", "") or type(exc).__name__
    info = getattr(exc, "info", None)
    if isinstance(info, dict) and isinstance(info.get("error"), dict):
        detail = info["error"].get("reason") or info["error"].get("type") or detail
    return IndexStoreError(f"the OpenSearch cluster at {hosts} failed a request ({status} {detail}); check its health")


def cluster_health(settings: OpenSearchSettings) -> dict[str, Any]:
    """The cluster's state for a health report: status (green/yellow/red or unreachable), nodes, shards."""
    try:
        health = connect(settings).cluster.health(params={"request_timeout": min(settings.timeout_s, 5.0)})
    except OpenSearchException as exc:
        return {"status": "unreachable", "error": str(cluster_error(settings, exc))}
    keys = ("cluster_name", "status", "number_of_nodes", "active_shards", "unassigned_shards")
    return {key: health.get(key) for key in keys}


def index_name(settings: IndexSettings, home: str, part: str) -> str:
    """``<prefix>-<part>``; without a prefix, one derived from the data directory's path."""
    prefix = settings.opensearch.index_prefix or "navicite-" + hashlib.sha256(home.encode()).hexdigest()[:12]
    return f"{prefix.lower()}-{part}"


def doc_key(doc_id: str) -> str:
    """The ``_id`` of a navicite id: itself, or its hash when longer than OpenSearch allows."""
    if len(doc_id.encode("utf-8", "replace")) <= _MAX_ID_BYTES:
        return doc_id
    return "sha256:" + hashlib.sha256(doc_id.encode("utf-8", "replace")).hexdigest()


class OpenSearchIndex:
    """A :class:`navicite.index.base.LexicalIndex` held in the OpenSearch index ``name``."""

    def __init__(self, name: str, settings: IndexSettings, client: OpenSearch | None = None) -> None:
        self.name = name
        self.settings = settings
        self.cluster = settings.opensearch
        self.client = client if client is not None else connect(self.cluster)
        self._lock = threading.Lock()
        self._checked = False
        self._stemming, self._exact = settings.stemming, settings.exact_fields
        self._renderer: Renderer | None = None

    # -- opening -----------------------------------------------------------------------

    def _call(self, method: Any, *args: Any, **kwargs: Any) -> Any:
        """A client call; a cluster failure becomes one IndexStoreError line."""
        try:
            return method(*args, **kwargs)
        except NotFoundError:
            raise
        except (TransportError, OpenSearchException) as exc:
            raise cluster_error(self.cluster, exc) from exc

    def _exists(self) -> bool:
        """Whether the index exists; its recorded analysis is read the first time."""
        if self._checked:
            return True
        with self._lock:
            if self._checked:
                return True
            try:
                found = self._call(self.client.indices.get_mapping, index=self.name)
            except NotFoundError:
                return False
            meta = next(iter(found.values()))["mappings"].get("_meta", {})
            if meta.get("navicite_format") != om.FORMAT:
                raise IndexStoreError(
                    f"the OpenSearch index {self.name} has format {meta.get('navicite_format')}, this navicite "
                    f"writes format {om.FORMAT}: delete that index (or choose another index.opensearch.index_prefix) "
                    "and ingest again"
                )
            # Analysis is fixed when the index is created; a changed setting applies to the next new index.
            self._stemming, self._exact = bool(meta.get("stemming", True)), bool(meta.get("exact_fields", False))
            self._checked = True
            return True

    def _create(self) -> None:
        if self._exists():
            return
        body = {
            "settings": {
                "index": {"number_of_shards": self.cluster.shards, "number_of_replicas": self.cluster.replicas},
                "analysis": om.analysis(self._stemming),
            },
            "mappings": om.mapping(self._stemming, self._exact),
        }
        try:
            self.client.indices.create(index=self.name, body=body)
        except RequestError as exc:
            # Another process created it first, or a retried request after a timeout found the
            # index its first attempt made.
            if exc.error != "resource_already_exists_exception":
                raise cluster_error(self.cluster, exc) from exc
        except OpenSearchException as exc:
            raise cluster_error(self.cluster, exc) from exc
        self._checked = False
        self._exists()

    def _renderers(self) -> Renderer:
        if self._renderer is None:
            routes = {name: name if name == "title" or self._exact else om.ALL for name in FIELDS}
            boosts = {om.ALL: 1.0, "title": self.settings.title_boost}
            self._renderer = Renderer(self._stemming, boosts, routes)
        return self._renderer

    def shared_info(self) -> dict[str, Any] | None:
        """What the collection recorded about this index (e.g. how passages were cut), kept in the
        index's ``_meta`` so that every process using the cluster reads the same; None if nothing."""
        if not self._exists():
            return None
        found = self._call(self.client.indices.get_mapping, index=self.name)
        info = next(iter(found.values()))["mappings"].get("_meta", {}).get("navicite_collection")
        return dict(info) if isinstance(info, dict) else None

    def record_shared_info(self, info: dict[str, Any]) -> None:
        """Keep ``info`` with the index (replacing what was recorded); created if need be."""
        self._create()
        found = self._call(self.client.indices.get_mapping, index=self.name)
        meta = dict(next(iter(found.values()))["mappings"].get("_meta", {}))
        if meta.get("navicite_collection") != info:
            meta["navicite_collection"] = info
            self._call(self.client.indices.put_mapping, index=self.name, body={"_meta": meta})

    # -- writing -----------------------------------------------------------------------

    def close(self) -> None:
        """Nothing to release: every call ends with its refresh."""

    def upsert(self, documents: Iterable[Document]) -> UpsertReport:
        """Add new documents, replace changed ones, skip unchanged ones; one refresh.

        Within one call a later document with the same id wins.
        """
        batch = latest_by_id(documents, utf8_safe)
        report = UpsertReport()
        if not batch:
            return report
        self._create()
        existing = self._fingerprints(list(batch))
        actions = []
        for doc_id, doc in batch.items():
            fingerprint = doc.fingerprint
            old = existing.get(doc_id)
            if old == fingerprint:
                report.unchanged.append(doc_id)
                continue
            (report.replaced if old is not None else report.added).append(doc_id)
            language = detect_language(doc.title, doc.abstract, doc.text)
            source = om.to_source(doc, fingerprint, language, self._exact)
            actions.append({"_op_type": "index", "_index": self.name, "_id": doc_key(doc_id), "_source": source})
        if actions:
            self._bulk(actions)
        return report

    def delete(self, doc_ids: Iterable[str]) -> list[str]:
        """Remove documents by id, with every passage entry naming one of them as its parent; one refresh.

        Returns the ids that existed (as entries or as parents), in the order given.
        """
        wanted = list(dict.fromkeys(utf8_safe(doc_id) for doc_id in doc_ids))
        if not wanted or not self._exists():
            return []
        present = self._fingerprints(wanted)
        parents = self._parents(wanted)
        existed = [doc_id for doc_id in wanted if doc_id in present or doc_id in parents]
        if not existed:
            return []
        # Passages go by id too: delete-by-query lives in the reindex module, which a cluster may lack.
        doomed = [d for d in existed if d in present] + self._children([d for d in existed if d in parents])
        self._bulk([{"_op_type": "delete", "_index": self.name, "_id": doc_key(d)} for d in doomed], refresh=False)
        self._refresh()
        return existed

    def _bulk(self, actions: list[dict[str, Any]], refresh: bool = True) -> None:
        try:
            _ok, errors = helpers.bulk(
                self.client, actions, chunk_size=self.cluster.bulk_docs, raise_on_error=False,
                max_retries=self.cluster.max_retries, params={"refresh": "false"},
            )
        except (TransportError, OpenSearchException) as exc:
            raise cluster_error(self.cluster, exc) from exc
        # A delete of an entry already gone is not an error: it is gone.
        failed = [e for e in errors if next(iter(e.values())).get("status") != 404]
        if failed:
            first = next(iter(failed[0].values()))
            reason = (first.get("error") or {}).get("reason", first.get("error"))
            raise IndexStoreError(
                f"the OpenSearch cluster refused {len(failed)} of {len(actions)} writes to {self.name} "
                f"(first: {first.get('_id')}: {reason}); the rest were written: fix the cause and ingest again"
            )
        if refresh:
            self._refresh()

    def _refresh(self) -> None:
        self._call(self.client.indices.refresh, index=self.name)

    def _fingerprints(self, doc_ids: list[str]) -> dict[str, str]:
        """Fingerprints of the given ids that are in the index."""
        if not self._exists():
            return {}
        found: dict[str, str] = {}
        for start in range(0, len(doc_ids), _LOOKUP_CHUNK):
            chunk = doc_ids[start : start + _LOOKUP_CHUNK]
            reply = self._call(
                self.client.mget, index=self.name, body={"ids": [doc_key(d) for d in chunk]},
                params={"_source_includes": "id,fingerprint", "realtime": "true"},
            )
            for doc in reply["docs"]:
                if doc.get("found"):
                    found[doc["_source"]["id"]] = doc["_source"].get("fingerprint", "")
        return found

    def _parents(self, doc_ids: list[str]) -> set[str]:
        """The given ids that some entry names as its parent."""
        found: set[str] = set()
        for start in range(0, len(doc_ids), _LOOKUP_CHUNK):
            chunk = doc_ids[start : start + _LOOKUP_CHUNK]
            body = {
                "size": 0,
                "query": {"terms": {"parent": chunk}},
                "aggs": {"parents": {"terms": {"field": "parent", "size": len(chunk)}}},
            }
            reply = self._call(self.client.search, index=self.name, body=body)
            found.update(str(b["key"]) for b in reply["aggregations"]["parents"]["buckets"])
        return found

    def _children(self, parents: list[str]) -> list[str]:
        """Ids of the entries naming one of ``parents`` as their parent."""
        found: list[str] = []
        for start in range(0, len(parents), _LOOKUP_CHUNK):
            body = {"query": {"terms": {"parent": parents[start : start + _LOOKUP_CHUNK]}}, "sort": ["_doc"], "_source": ["id"]}
            found.extend(hit["_source"]["id"] for hit in self._scan(body))
        return found

    def _scan(self, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        try:
            yield from helpers.scan(self.client, index=self.name, query=body, size=1000, preserve_order=True)
        except (TransportError, OpenSearchException) as exc:
            raise cluster_error(self.cluster, exc) from exc

    # -- reading -----------------------------------------------------------------------

    def search_body(self, query: Query, k: int, snippets: bool = False) -> dict[str, Any] | None:
        """The request body of one search, or None when nothing can match."""
        if k <= 0 or not self._exists():
            return None
        rendered = self._renderers().render(query)
        if rendered is None:
            return None
        # OpenSearch refuses a window over index.max_result_window (10,000 by default).
        body: dict[str, Any] = {"query": rendered, "size": min(k, _MAX_HITS), "track_total_hits": False, "_source": _HIT_FIELDS}
        if snippets:
            body["_source"] = [*_HIT_FIELDS, *FIELDS]
            highlight = Renderer(self._stemming, {om.ALL: 1.0}, dict.fromkeys(FIELDS, om.ALL)).render(query)
            body["highlight"] = {
                "fields": {name: {} for name in SNIPPET_FIELDS},
                "highlight_query": highlight or rendered,
                "require_field_match": False,
                "type": "unified",
                "fragment_size": SNIPPET_CHARS,
                "number_of_fragments": 1,
                "no_match_size": 0,
                "pre_tags": ["**"],
                "post_tags": ["**"],
            }
        return body

    def search(self, query: Query, k: int = 10, snippets: bool = False) -> list[Hit]:
        """Top ``k`` documents for a query AST, best first, optionally with highlighted snippets."""
        return self.search_many([query], k, snippets)[0]

    def search_many(self, queries: Sequence[Query], k: int = 10, snippets: bool = False) -> list[list[Hit]]:
        """The hits of several queries, sent in one ``_msearch`` request (a question's portfolios).

        Raises:
            IndexStoreError: the cluster failed one of the searches (its reason in the message).
        """
        bodies = [self.search_body(q, k, snippets) for q in queries]
        lines: list[dict[str, Any]] = []
        for body in bodies:
            if body is not None:
                lines.extend(({"index": self.name, "search_type": "dfs_query_then_fetch"}, body))
        if not lines:
            return [[] for _ in queries]
        reply = self._call(self.client.msearch, body=lines)
        responses = iter(reply["responses"])
        out: list[list[Hit]] = []
        for query, body in zip(queries, bodies):
            if body is None:
                out.append([])
                continue
            response = next(responses)
            if "error" in response:
                error = response["error"]
                reason = error.get("reason", error) if isinstance(error, dict) else error
                if isinstance(error, dict) and error.get("type") == "too_many_clauses":
                    raise UserInputError(f"the query has too many terms for the cluster ({reason}); shorten it")
                raise IndexStoreError(f"the OpenSearch index {self.name} failed a search: {reason}")
            out.append(self._hits(response["hits"]["hits"], query if snippets else None))
        return out

    def _hits(self, raw: list[dict[str, Any]], query: Query | None) -> list[Hit]:
        pattern = None
        if query is not None:
            pattern = cjk_pattern([t for leaf in leaves(query) for run in cjk_runs(leaf.text) for t in (run, run[:2])])
        hits = []
        for hit in raw:
            source = hit["_source"]
            snippet = "" if query is None else _snippet(source, hit.get("highlight", {}), pattern)
            hits.append(
                Hit(
                    doc_id=source.get("id", ""),
                    score=float(hit["_score"]),
                    title=source.get("title", ""),
                    snippet=snippet,
                    link=source.get("link", ""),
                    parent=source.get("parent", ""),
                )
            )
        return hits

    def doc_freq(self, word: str) -> int:
        """How many documents a field-less search for ``word`` matches (a count, no hits fetched)."""
        if not self._exists():
            return 0
        rendered = self._renderers().render(Term(word))
        if rendered is None:
            return 0
        return int(self._call(self.client.count, index=self.name, body={"query": rendered})["count"])

    def get(self, doc_id: str) -> Document | None:
        """The stored document, or None."""
        if not self._exists():
            return None
        try:
            reply = self._call(self.client.get, index=self.name, id=doc_key(utf8_safe(doc_id)))
        except NotFoundError:
            return None
        return om.from_source(reply["_source"]) if reply.get("found") else None

    def ids(self) -> Iterator[str]:
        """Every document id (a snapshot taken when iteration starts)."""
        if not self._exists():
            return
        body = {"query": {"match_all": {}}, "sort": ["_doc"], "_source": ["id"]}
        for hit in self._scan(body):
            yield hit["_source"]["id"]

    def count(self) -> int:
        """Number of documents."""
        if not self._exists():
            return 0
        return int(self._call(self.client.count, index=self.name)["count"])

    def stats(self) -> IndexStats:
        """Document count, documents per detected language, bytes stored (primaries)."""
        if not self._exists():
            return IndexStats(documents=0)
        body = {"size": 0, "aggs": {"languages": {"terms": {"field": "language", "size": 1000}}}}
        reply = self._call(self.client.search, index=self.name, body=body, params={"track_total_hits": "true"})
        languages = {str(b["key"]): int(b["doc_count"]) for b in reply["aggregations"]["languages"]["buckets"]}
        size = self._call(self.client.indices.stats, index=self.name, metric="store")
        stored = size["indices"].get(self.name, {}).get("primaries", {}).get("store", {}).get("size_in_bytes", 0)
        return IndexStats(documents=int(reply["hits"]["total"]["value"]), languages=languages, size_bytes=int(stored))


def _snippet(source: dict[str, Any], highlight: dict[str, list[str]], pattern: Any) -> str:
    """Matches in the body, else the abstract, else the title; else the opening of the first text."""
    texts = []
    for name in SNIPPET_FIELDS:
        text = source.get(name, "")
        if not text:
            continue
        if highlight.get(name):
            return " ".join(highlight[name][0].split())
        if pattern is not None:
            found = cjk_snippet(pattern, text)
            if found:
                return found
        texts.append(text)
    return opening(texts[0]) if texts else ""
