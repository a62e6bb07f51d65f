"""The lexical index: a query AST, its parsers and pluggable backends.

``create(settings)`` returns the configured backend; other backends (an
OpenSearch cluster, say) plug in with ``register_backend`` without editing
this package. Only the backend modules import their libraries.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from navicite.config import Settings
from navicite.errors import ConfigError
from navicite.index.base import Hit, IndexStats, LexicalIndex, UpsertReport
from navicite.index.parse import free_text, parse_boolean
from navicite.index.query import FIELDS, And, Not, Or, Phrase, Prefix, Query, Term, leaves, to_text

#: On-disk format of each built-in backend's index. Caches of built indexes include it in
#: their key, so an index built by an older navicite is never reused by mistake.
INDEX_FORMATS: dict[str, int] = {"tantivy": 6, "opensearch": 1}

#: Builds a backend from the settings of a collection and the part it holds.
BackendFactory = Callable[[Settings, "Part"], LexicalIndex]
#: The two indexes of a collection: whole documents (listing, lookup) and their passages (retrieval).
Part = Literal["documents", "passages"]

_BACKENDS: dict[str, BackendFactory] = {}


def register_backend(name: str, factory: BackendFactory) -> None:
    """Make a backend available under ``name`` (the value of ``index.backend``); replaces an earlier one."""
    _BACKENDS[name] = factory


def create(settings: Settings, part: Part = "documents") -> LexicalIndex:
    """One lexical index of the collection in ``settings.home``, with the configured backend.

    ``part``: ``documents`` holds every document whole; ``passages`` its passages, the unit
    retrieval ranks (kept in step with the documents by :class:`navicite.collection.Collection`).

    Raises:
        ConfigError: no backend of that name is registered.
    """
    name = settings.index.backend
    factory = _BACKENDS.get(name)
    if factory is None:
        known = ", ".join(sorted(_BACKENDS)) or "none"
        raise ConfigError(f"unknown index backend {name!r} (known: {known}); check the setting index.backend")
    return factory(settings, part)


def _tantivy(settings: Settings, part: Part) -> LexicalIndex:
    from navicite.index.tantivy_index import TantivyIndex  # imported on use: tantivy loads a native library

    return TantivyIndex(settings.index_dir if part == "documents" else settings.passage_index_dir, settings.index)


def _opensearch(settings: Settings, part: Part) -> LexicalIndex:
    try:
        from navicite.index.opensearch_index import OpenSearchIndex, index_name
    except ImportError as exc:  # the optional client is missing
        raise ConfigError(
            f"index.backend=opensearch needs the OpenSearch client ({exc.name} is missing): pip install 'navicite[opensearch]'"
        ) from exc
    return OpenSearchIndex(index_name(settings.index, str(settings.home.resolve()), part), settings.index)


def backend_health(settings: Settings) -> dict[str, object]:
    """The index backend's state for a health report: a cluster's status (green, yellow, red or
    unreachable) and nodes; a local backend is only named. Never raises."""
    if settings.index.backend == "opensearch":
        try:
            from navicite.index.opensearch_index import cluster_health
        except ImportError:
            return {"backend": "opensearch", "status": "client missing: pip install 'navicite[opensearch]'"}
        return {"backend": "opensearch", **cluster_health(settings.index.opensearch)}
    return {"backend": settings.index.backend}


register_backend("tantivy", _tantivy)
register_backend("opensearch", _opensearch)

__all__ = [
    "FIELDS",
    "INDEX_FORMATS",
    "And",
    "BackendFactory",
    "Hit",
    "IndexStats",
    "LexicalIndex",
    "Not",
    "Or",
    "Part",
    "Phrase",
    "Prefix",
    "Query",
    "Term",
    "UpsertReport",
    "backend_health",
    "create",
    "free_text",
    "leaves",
    "parse_boolean",
    "register_backend",
    "to_text",
]
