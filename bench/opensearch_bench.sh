#!/usr/bin/env bash
# The opensearch backend against tantivy on SciFact train (issue 42): flat BM25 over all 809 claims
# and mpr-rerank (statistical keyword analysis, no LLM) over the first N claims, in one run, each
# backend with its own cache folder. Needs a node: scripts/search-node.sh start (NAVICITE_TEST_OPENSEARCH
# or http://127.0.0.1:9250). The OpenSearch indexes get two shards (scores must not depend on sharding).
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
  /usr/bin/time -f "$label: %e s wall" "$PY" -m navicite --home "$OUT/home-$backend" -s llm.backend=none "${extra[@]}" \
    eval retrieval -d "beir:$DATA" --split train "$@" --out "$OUT/$label" --json > "$OUT/$label.json"
  "$PY" -c "import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[2], json.dumps(r.get('methods', r), indent=None)[:600])" \
    "$OUT/$label.json" "$label"
}
run tantivy tantivy-bm25 -m bm25
run opensearch opensearch-bm25 -m bm25
run tantivy tantivy-mpr -m mpr-rerank --limit "$N"
run opensearch opensearch-mpr -m mpr-rerank --limit "$N"
