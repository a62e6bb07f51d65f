"""Fill the collection's vector store ahead of time (``navicite ingest --embed``).

Re-ranking embeds every candidate it has not seen before; on a CPU that is most of a
question's retrieval time for a new collection. Embedding the whole collection once,
at ingest, moves that cost out of the first questions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from navicite.embed import Embedder
from navicite.index.base import LexicalIndex
from navicite.rerank.base import candidate_text
from navicite.vectors import VectorStore, text_key


@dataclass(frozen=True)
class EmbedReport:
    """Documents looked at, and how many of their texts had to be embedded now."""

    documents: int
    embedded: int


def embed_collection(
    index: LexicalIndex,
    store: VectorStore,
    embedder: Embedder,
    batch_size: int = 256,
    progress: Callable[[int, int], None] | None = None,
) -> EmbedReport:
    """Embed every document's reranker text that ``store`` does not hold yet.

    Args:
        progress: called with (texts embedded so far, texts to embed) after each batch.
    """
    texts: dict[str, str] = {}
    owners: dict[str, str] = {}
    for doc_id in index.ids():
        doc = index.get(doc_id)
        if doc is None:
            continue
        text = candidate_text(doc)
        owners[doc_id] = text_key(text)
        texts[owners[doc_id]] = text
    known = store.get_many(texts)
    todo = [(key, text) for key, text in texts.items() if key not in known]
    done = 0
    for start in range(0, len(todo), batch_size):
        chunk = todo[start : start + batch_size]
        vectors = embedder.embed([text for _, text in chunk])
        store.put_many({key: vec for (key, _), vec in zip(chunk, vectors)})
        done += len(chunk)
        if progress is not None:
            progress(done, len(todo))
    store.put_documents(owners)
    return EmbedReport(len(owners), len(todo))
