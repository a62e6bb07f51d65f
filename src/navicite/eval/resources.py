"""What methods under evaluation share: the data set's indexes and the models, built once.

Indexes live in a cache folder keyed by the corpus files' hash (plus the settings
that change the index), so a second run on the same data set reuses them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from navicite.config import Settings
from navicite.eval.datasets import EvalDataset

if TYPE_CHECKING:
    from navicite.embed import Embedder
    from navicite.index.base import LexicalIndex
    from navicite.index.dense import DenseIndex
    from navicite.llm.base import LLM

#: Called with (what, done, total) while an index is built, for progress display.
BuildProgress = Callable[[str, int, int], None]

_COMPLETE = "complete.json"


def document_text(title: str, *parts: str) -> str:
    """The text a dense model sees for a document: title and body, as BEIR's dense baselines do."""
    return " ".join(p for p in (title, *parts) if p).strip()


class EvalResources:
    """Lazily built indexes and models for one data set."""

    def __init__(self, dataset: EvalDataset, settings: Settings, progress: BuildProgress | None = None) -> None:
        self.dataset = dataset
        self.settings = settings
        self.progress = progress or (lambda what, done, total: None)
        #: Everything cached for this corpus; embeddings (keyed by model and text) sit here directly.
        self.folder: Path = settings.cache_dir / "eval" / dataset.corpus_key()
        # The stored index depends on the backend's on-disk format and the settings that change
        # analysis (boosts apply at query time), so each such combination gets its own folder;
        # embeddings are shared.
        index_key = hashlib.sha256(json.dumps(self.ranking_settings()["index"], sort_keys=True).encode()).hexdigest()[:8]
        self.index_folder: Path = self.folder / f"lexical-{index_key}"

    def ranking_settings(self) -> dict[str, dict[str, object]]:
        """The settings that change rankings (not speed or locking), recorded with a run."""
        from navicite.index import INDEX_FORMATS

        index = self.settings.index.model_dump(include={"backend", "stemming", "exact_fields"})
        index["format"] = INDEX_FORMATS.get(self.settings.index.backend)
        boosts = self.settings.index.model_dump(include={"title_boost"})
        return {"index": index, "boosts": boosts, "embed": {"model": self.settings.embed.model}}

    @cached_property
    def lexical(self) -> LexicalIndex:
        """The data set's BM25 index, built on first use and reused from the cache afterwards."""
        from navicite import index as index_package

        index_settings = self.settings.model_copy(update={"home": self.index_folder})
        lexical = index_package.create(index_settings)
        marker = self.index_folder / _COMPLETE
        corpus = self.dataset.corpus
        if not marker.is_file() or lexical.count() != len({d.id for d in corpus}):
            batch = max(1, self.settings.ingest.batch_size)
            for start in range(0, len(corpus), batch):
                # upsert skips unchanged documents, so an interrupted build resumes cheaply.
                lexical.upsert(corpus[start : start + batch])
                self.progress("indexing", min(start + batch, len(corpus)), len(corpus))
            self.index_folder.mkdir(parents=True, exist_ok=True)  # a cluster backend writes nothing here itself
            marker.write_text(json.dumps({"documents": len(corpus), "dataset": self.dataset.name}))
        return lexical

    @cached_property
    def embedder(self) -> Embedder:
        """The embedding model of the settings."""
        from navicite import embed

        return embed.create(self.settings)

    @cached_property
    def dense(self) -> DenseIndex:
        """Exact-search index of the corpus embeddings (cached on disk per model and text)."""
        from navicite.embed import embed_cached
        from navicite.index.dense import DenseIndex

        corpus = self.dataset.corpus
        texts = [document_text(d.title, d.abstract, d.text) for d in corpus]
        self.progress("embedding corpus", 0, len(texts))
        vectors = embed_cached(self.embedder, texts, self.folder / "embeddings")
        self.progress("embedding corpus", len(texts), len(texts))
        return DenseIndex([d.id for d in corpus], vectors)

    @cached_property
    def llm(self) -> LLM:
        """The chat model of the settings (for LLM-driven methods)."""
        from navicite import llm

        return llm.create(self.settings)
