"""Portfolio D in the cluster: document vectors in a ``knn_vector`` field, searched with k-NN.

The k-NN plugin's Lucene engine (HNSW, cosine) holds one vector per passage of the collection in
``<prefix>-vectors-<model>``, so every process in front of the cluster finds the same nearest
passages; ``navicite ingest --embed`` fills it from the vectors it computed. A cluster without the
k-NN plugin gets a one-line error when the vectors are published.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from opensearchpy import helpers
from opensearchpy.exceptions import NotFoundError, OpenSearchException

from navicite.config import Settings
from navicite.embed import Embedder, reads
from navicite.errors import IndexStoreError
from navicite.index.opensearch_index import cluster_error, connect, doc_key, index_name


def vectors_index(settings: Settings) -> str:
    """Name of the collection's vector index for the configured embedding model."""
    model = re.sub(r"[^a-z0-9]+", "-", settings.embed.model.lower()).strip("-")[:60]
    return index_name(settings.index, str(settings.home.resolve()), f"vectors-{model}")


class ClusterDense:
    """Nearest passages by embedding through the cluster's k-NN search (a ``DenseSearch``)."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self.cluster = settings.index.opensearch
        self.embedder = embedder
        self.name = vectors_index(settings)
        self.client = connect(self.cluster)

    def publish(self, ids: list[str], vectors: np.ndarray) -> int:
        """Store one vector per id (replacing earlier ones; ids absent from ``ids`` are removed); returns the count."""
        try:
            if self.client.indices.exists(index=self.name):
                self.client.indices.delete(index=self.name)
            if not ids:
                return 0
            self.client.indices.create(index=self.name, body=_vector_index_body(int(vectors.shape[1]), self.cluster))
            actions = ({"_index": self.name, "_id": doc_key(doc_id), "_source": {"id": doc_id, "vector": row.tolist()}}
                       for doc_id, row in zip(ids, np.asarray(vectors, dtype=np.float32)))
            count, _ = helpers.bulk(self.client, actions, chunk_size=self.cluster.bulk_docs)
            self.client.indices.refresh(index=self.name)
        except OpenSearchException as exc:
            raise cluster_error(self.cluster, exc) from exc
        return int(count)

    def __len__(self) -> int:
        try:
            return int(self.client.count(index=self.name)["count"])
        except NotFoundError:
            return 0
        except OpenSearchException as exc:
            raise cluster_error(self.cluster, exc) from exc

    def search(self, question: str, k: int) -> list[tuple[str, float]] | None:
        """Up to ``k`` (passage id, cosine) pairs, best first; None when the cluster holds no
        vectors or the model does not read the question's language (no portfolio D then)."""
        if self.embedder is None or k <= 0 or not reads(self.embedder, question):
            return None
        if not len(self):
            return None
        vector = self.embedder.embed([question], query=True)[0]
        body = {"size": k, "_source": ["id"], "query": {"knn": {"vector": {"vector": [float(x) for x in vector], "k": k}}}}
        try:
            hits = self.client.search(index=self.name, body=body)["hits"]["hits"]
        except OpenSearchException as exc:
            raise cluster_error(self.cluster, exc) from exc
        # The Lucene engine scores cosine similarity as (1 + cos) / 2.
        found = [(hit["_source"]["id"], 2.0 * float(hit["_score"]) - 1.0) for hit in hits]
        return sorted(found, key=lambda pair: (-pair[1], pair[0]))[:k]

    def close(self) -> None:
        """Nothing to release."""


def _vector_index_body(dims: int, cluster: Any) -> dict[str, Any]:
    return {
        "settings": {"index": {"knn": True, "number_of_shards": cluster.shards, "number_of_replicas": cluster.replicas}},
        "mappings": {
            "dynamic": "strict",
            "properties": {
                "id": {"type": "keyword"},
                "vector": {"type": "knn_vector", "dimension": dims,
                           "method": {"name": "hnsw", "engine": "lucene", "space_type": "cosinesimil"}},
            },
        },
    }
