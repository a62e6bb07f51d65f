#!/usr/bin/env bash
# The opensearch backend against tantivy on SciFact train (issue 42), each figure from both backends
# in one run: flat BM25 over all 809 claims; MPR (statistical keyword analysis, no LLM, no portfolio D,
# pool in fused order) and mpr-rerank (the same pool through the hybrid reranker, which embeds the
# corpus once) over the first N claims. One data directory for both, so the corpus embeddings are
# computed once; the eval caches keep each backend's index apart. Needs a node:
# scripts/search-node.sh start (NAVICITE_TEST_OPENSEARCH or http://127.0.0.1:9250). The OpenSearch
# index gets two shards, so scores must not depend on sharding.
#   bash bench/opensearch_bench.sh [OUT_DIR] [MPR_QUESTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-/tmp/opensearch-bench}
N=${2:-100}
URL=${NAVICITE_TEST_OPENSEARCH:-http://127.0.0.1:9250}
PY=${PYTHON:-.venv/bin/python}
DATA=${SCIFACT:-../shared/data/scifact}
mkdir -p "$OUT"
run() {  # backend, label, eval args...
  local backend=$1 label=$2; shift 2
  local extra=()
  if [ "$backend" = opensearch ]; then
    extra=(-s index.backend=opensearch -s "index.opensearch.hosts=[\"$URL\"]" -s index.opensearch.shards=2
           -s index.opensearch.replicas=0 -s index.opensearch.index_prefix=bench-scifact)
  fi
  /usr/bin/time -f "$label: %e s wall" "$PY" -m navicite --home "$OUT/home" -s llm.backend=none "${extra[@]}" \
    eval retrieval -d "beir:$DATA" --split train "$@" --out "$OUT/$label" --json > "$OUT/$label.json"
  "$PY" -c "import json,sys; r=json.load(open(sys.argv[1])); m=r.get('methods', r)
for k, v in m.items(): print(sys.argv[2], k, 'nDCG@10 %.4f recall@100 %.4f' % (v['metrics']['ndcg@10'], v['metrics']['recall@100']))" \
    "$OUT/$label.json" "$label"
}
for backend in tantivy opensearch; do
  run "$backend" "$backend-bm25" -m bm25
  NAVICITE_RETRIEVE__DENSE_PORTFOLIO=false run "$backend" "$backend-mpr" -m mpr --limit "$N"
  NAVICITE_RETRIEVE__DENSE_PORTFOLIO=false run "$backend" "$backend-mpr-rerank" -m mpr-rerank --limit "$N"
done
