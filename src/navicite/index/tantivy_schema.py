"""The tantivy schema of a navicite collection, its analyzers, and document conversion."""

from __future__ import annotations

import json
from dataclasses import dataclass

import tantivy

from navicite.documents import PARENT_KEY, Document
from navicite.index import INDEX_FORMATS, cjk
from navicite.index.query import FIELDS
from navicite.text.utf8 import utf8_safe  # noqa: F401  (tantivy_index and tantivy_render use it from here)

#: Bumped (in navicite.index.INDEX_FORMATS) whenever the schema or analysis changes; an
#: index of another format must be rebuilt.
FORMAT = INDEX_FORMATS["tantivy"]
#: Longest word kept; longer tokens are usually base64, hashes or broken extraction.
MAX_WORD_BYTES = 40

ID, LINK, FINGERPRINT, LANGUAGE, METADATA = "id", "link", "fingerprint", "language", "metadata"
#: Raw field naming the document a passage belongs to, so all of a document's passages go with
#: one delete (set from the entry's ``metadata[PARENT_KEY]``; absent on whole documents).
PARENT = "parent"
#: Stored-only copies of the abstract and body. Their word fields of the same name are
#: unstored and filled only with ``exact_fields``: analysing every text twice (once for
#: its own field, once for the combined one) was half of tantivy's indexing time.
STORED_TEXT = {"abstract": "abstract_text", "body": "body_text"}
#: Unstored field holding title, abstract and body together: field-less words are scored
#: against it, so BM25 sees one document length and one term frequency per document (the
#: per-field sum over-rewards a word found in several short fields).
ALL = "all"
# tantivy's built-in analyzers: "en_stem" and "default" are the word analyzers below
# (with and without stemming), "whitespace" reads the CJK bigrams. Built-ins index
# about twice as fast as the same chain registered from Python.
WORDS_STEMMED, WORDS_PLAIN, CJK_PAIRS = "en_stem", "default", "whitespace"


def cjk_field(field: str) -> str:
    """Name of the field holding the CJK bigrams of a text field."""
    return f"{field}_cjk"


def word_analyzer(stemming: bool) -> tantivy.TextAnalyzer:
    """For queries: the same chain as tantivy's ``en_stem`` (stemming) or ``default`` analyzer.

    Split on non-alphanumerics, drop tokens over 40 bytes, lower-case, optionally
    English-stem. A test checks that both sides produce the same tokens.
    """
    builder = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(MAX_WORD_BYTES))
        .filter(tantivy.Filter.lowercase())
    )
    if stemming:
        builder = builder.filter(tantivy.Filter.stemmer("english"))
    return builder.build()


@dataclass(frozen=True)
class Analysis:
    """How an index analyses text (fixed when it is created).

    ``exact_fields``: abstract and body also get word fields of their own; without
    them, a query naming one of these parts is answered by the combined field.
    """

    stemming: bool
    exact_fields: bool = False

    @property
    def words_tokenizer(self) -> str:
        return WORDS_STEMMED if self.stemming else WORDS_PLAIN

    @property
    def field_routes(self) -> dict[str, str]:
        """The indexed field that answers a query naming each document part."""
        return {name: name if name == "title" or self.exact_fields else ALL for name in FIELDS}


def build_schema(analysis: Analysis) -> tantivy.Schema:
    """id, title/abstract/body/all (+ their CJK bigram fields), link, fingerprint, language, metadata,
    and the stored abstract and body texts.

    The abstract and body word fields are in every schema (empty unless ``exact_fields``),
    so field numbers do not depend on the setting.
    """
    builder = tantivy.SchemaBuilder()
    builder.add_text_field(ID, stored=True, tokenizer_name="raw", index_option="basic")
    for name in FIELDS:
        builder.add_text_field(name, stored=name == "title", tokenizer_name=analysis.words_tokenizer)
        builder.add_text_field(cjk_field(name), stored=False, tokenizer_name=CJK_PAIRS)
    builder.add_text_field(ALL, stored=False, tokenizer_name=analysis.words_tokenizer)
    builder.add_text_field(cjk_field(ALL), stored=False, tokenizer_name=CJK_PAIRS)
    builder.add_text_field(LINK, stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_text_field(PARENT, stored=True, tokenizer_name="raw", index_option="basic")
    # Only read back, never searched: a stored-only bytes field costs no term dictionary.
    builder.add_bytes_field(FINGERPRINT, stored=True, indexed=False)
    builder.add_text_field(LANGUAGE, stored=True, tokenizer_name="raw", index_option="basic", fast=True)
    builder.add_bytes_field(METADATA, stored=True, indexed=False)
    for name in STORED_TEXT.values():
        builder.add_bytes_field(name, stored=True, indexed=False)
    return builder.build()


def to_tantivy(doc: Document, fingerprint: str, language: str, exact_fields: bool = False) -> tantivy.Document:
    """A navicite Document as a tantivy document (empty parts are left out)."""
    # Filled with add_* calls: tantivy.Document(**fields) converts each value through a
    # generic path and took about five times as long, a visible share of ingest time.
    out = tantivy.Document()
    out.add_text(ID, utf8_safe(doc.id))
    out.add_bytes(FINGERPRINT, fingerprint.encode("ascii"))
    out.add_text(LANGUAGE, language)
    # One ``all`` value per part: tantivy leaves a position gap between values, so a
    # phrase cannot run from the end of the title into the abstract.
    cjk_parts: list[str] = []
    for name, text in (("title", doc.title), ("abstract", doc.abstract), ("body", doc.text)):
        if not text:
            continue
        # isascii (C speed) settles most texts: no lone surrogates, no CJK characters.
        plain = text.isascii()
        if not plain:
            text = utf8_safe(text)
        if name == "title":
            out.add_text(name, text)
        else:
            out.add_bytes(STORED_TEXT[name], text.encode("utf-8"))
            if exact_fields:
                out.add_text(name, text)
        out.add_text(ALL, text)
        if not plain and cjk.has_cjk(text):
            pairs = cjk.bigram_text(text)
            glued = " ".join(cjk.glued_words(text))
            if name == "title" or exact_fields:
                out.add_text(cjk_field(name), pairs)
                if glued:
                    out.add_text(name, glued)
            if glued:
                out.add_text(ALL, glued)
            cjk_parts.append(pairs)
    for pairs in cjk_parts:
        out.add_text(cjk_field(ALL), pairs)
    if doc.link:
        out.add_text(LINK, utf8_safe(doc.link))
    parent = doc.metadata.get(PARENT_KEY) if doc.metadata else None
    if parent:
        out.add_text(PARENT, utf8_safe(str(parent)))
    if doc.metadata:
        out.add_bytes(METADATA, json.dumps(doc.metadata, ensure_ascii=False, default=str).encode("utf-8"))
    return out


def stored_text(stored: tantivy.Document, name: str) -> str:
    """The text of one document part (title, abstract, body) in a stored tantivy document."""
    if name == "title":
        return stored.get_first(name) or ""
    raw = stored.get_first(STORED_TEXT[name])
    return bytes(raw).decode("utf-8") if raw else ""


def from_tantivy(stored: tantivy.Document) -> Document:
    """The navicite Document kept in a stored tantivy document."""
    raw_meta = stored.get_first(METADATA)
    return Document(
        id=stored.get_first(ID) or "",
        title=stored_text(stored, "title"),
        abstract=stored_text(stored, "abstract"),
        text=stored_text(stored, "body"),
        link=stored.get_first(LINK) or "",
        metadata=json.loads(bytes(raw_meta).decode("utf-8")) if raw_meta else {},
    )
