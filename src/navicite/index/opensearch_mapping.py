"""The OpenSearch index of a navicite collection: analysis, mapping and document conversion.

Analysis is navicite's own (``navicite.index.words``), rebuilt from OpenSearch parts:

* words: split on anything but letters and digits, drop words of 40 bytes or more, lower-case,
  English (Porter2, the Snowball "English" stemmer tantivy also uses) stemming;
* CJK: the character pairs of :mod:`navicite.index.cjk`, computed here and indexed with the
  whitespace tokenizer into ``*_cjk`` fields. analysis-common's ``cjk_bigram`` filter pairs the
  tokens of the standard tokenizer, whose word boundaries differ from navicite's CJK runs (it keeps
  "BERT를" whole, splits ideographs one by one), so the pairs would differ from the tantivy
  backend's; computing them once, in one place, makes both backends index the same pairs.

As with tantivy, field-less words are scored against one combined ``all`` field (filled by
``copy_to``, one value per part, so a phrase never runs from the title into the abstract).
"""

from __future__ import annotations

import json
from typing import Any

from navicite.documents import PARENT_KEY, Document
from navicite.index import INDEX_FORMATS, cjk
from navicite.index.query import FIELDS
from navicite.index.tantivy_schema import utf8_safe

#: Bumped (in navicite.index.INDEX_FORMATS) when the mapping or analysis changes.
FORMAT = INDEX_FORMATS["opensearch"]
ALL = "all"
WORDS, PLAIN, PAIRS = "navicite_words", "navicite_plain", "whitespace"
#: tantivy's word tokenizer keeps runs of alphanumeric characters (Unicode Alphabetic or Numeric).
_WORD_SPLIT = r"[^\p{IsAlphabetic}\p{N}]+"
#: Longest word kept, in characters (tantivy: fewer than 40 bytes; the same for ASCII).
_MAX_WORD = 39


def cjk_field(field: str) -> str:
    """Name of the field holding the CJK pairs of a text field."""
    return f"{field}_cjk"


def glued_field(field: str) -> str:
    """Field of the letters and digits glued to CJK characters in one part ("BERT" of "BERT를");
    the combined field holds them itself."""
    return f"{field}_glued"


def analysis(stemming: bool) -> dict[str, Any]:
    """The ``index.analysis`` settings: the word analyzer with and without stemming."""
    stem = ["navicite_stem"] if stemming else []
    return {
        "tokenizer": {"navicite_split": {"type": "pattern", "pattern": _WORD_SPLIT}},
        "filter": {
            "navicite_long": {"type": "length", "max": _MAX_WORD},
            "navicite_stem": {"type": "snowball", "language": "English"},
        },
        "analyzer": {
            WORDS: {"type": "custom", "tokenizer": "navicite_split", "filter": ["navicite_long", "lowercase", *stem]},
            PLAIN: {"type": "custom", "tokenizer": "navicite_split", "filter": ["navicite_long", "lowercase"]},
        },
    }


def mapping(stemming: bool, exact_fields: bool, vector_dims: int = 0) -> dict[str, Any]:
    """Field mapping; ``_meta`` records what a reader needs to check (format, analysis)."""
    properties: dict[str, Any] = {
        "id": {"type": "keyword"},
        "link": {"type": "keyword", "index": False},
        "parent": {"type": "keyword"},
        "fingerprint": {"type": "keyword", "index": False},
        "language": {"type": "keyword"},
        "metadata": {"type": "object", "enabled": False},
        ALL: {"type": "text", "analyzer": WORDS},
        cjk_field(ALL): {"type": "text", "analyzer": PAIRS},
    }
    for name in FIELDS:
        own = name == "title" or exact_fields
        # Parts without a word field of their own stay in the source for display and snippets.
        properties[name] = {"type": "text", "analyzer": WORDS, "index": own, "copy_to": [ALL]}
        # Its own field, not copied into the part's: a copy_to target loses its highlighting.
        properties[glued_field(name)] = {"type": "text", "analyzer": WORDS, "index": own, "copy_to": [ALL]}
        if own:
            properties[cjk_field(name)] = {"type": "text", "analyzer": PAIRS}
    if vector_dims:
        properties["vector"] = {
            "type": "knn_vector",
            "dimension": vector_dims,
            "method": {"name": "hnsw", "engine": "lucene", "space_type": "cosinesimil"},
        }
    return {
        "_meta": {"navicite_format": FORMAT, "stemming": stemming, "exact_fields": exact_fields},
        # Pairs and glued words are derived from the texts: no need to keep them twice.
        "_source": {"excludes": ["*_cjk", "*_glued"]},
        "dynamic": "strict",
        "properties": properties,
    }


def to_source(doc: Document, fingerprint: str, language: str, exact_fields: bool) -> dict[str, Any]:
    """A navicite Document as the ``_source`` of an OpenSearch document (empty parts left out)."""
    # Lone surrogates (from undecodable bytes) are not valid JSON text: replaced, as for tantivy.
    source: dict[str, Any] = {"id": utf8_safe(doc.id), "fingerprint": fingerprint, "language": language}
    all_pairs: list[str] = []
    for name, text in (("title", doc.title), ("abstract", doc.abstract), ("body", doc.text)):
        if not text:
            continue
        text = utf8_safe(text)
        source[name] = text
        if text.isascii() or not cjk.has_cjk(text):
            continue
        pairs = cjk.bigram_text(text)
        all_pairs.append(pairs)
        if name == "title" or exact_fields:
            source[cjk_field(name)] = pairs
        glued = " ".join(cjk.glued_words(text))
        if glued:
            source[glued_field(name)] = glued
    if all_pairs:
        source[cjk_field(ALL)] = all_pairs
    if doc.link:
        source["link"] = utf8_safe(doc.link)
    parent = doc.metadata.get(PARENT_KEY) if doc.metadata else None
    if parent:
        source["parent"] = utf8_safe(str(parent))
    if doc.metadata:
        # Round-tripped through JSON as tantivy's backend does, so odd values become strings alike.
        source["metadata"] = json.loads(utf8_safe(json.dumps(doc.metadata, ensure_ascii=False, default=str)))
    return source


def from_source(source: dict[str, Any]) -> Document:
    """The navicite Document kept in an OpenSearch ``_source``."""
    return Document(
        id=source.get("id", ""),
        title=source.get("title", ""),
        abstract=source.get("abstract", ""),
        text=source.get("body", ""),
        link=source.get("link", ""),
        metadata=source.get("metadata") or {},
    )
