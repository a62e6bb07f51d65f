#!/usr/bin/env bash
# Run the test tiers in sequence and print each tier's time.
#
#   bash scripts/test.sh              # every tier: fast, slow, model, browser
#   bash scripts/test.sh fast         # only the named tiers (fast is what to run while editing)
#   bash scripts/test.sh fast -x      # arguments after the tiers go to pytest
#
# fast:    no chat model, no browser (the real index, files, servers, clients and small embedding/reranking
#          models; a scripted or recorded chat model)
# slow:    no chat model either, but minutes each (training the cross-encoder, rebuilding its network)
# model:   the real embedded model (tests marked llm)
# browser: headless Chromium against `navicite serve` with the real model
# A tier whose tests are all skipped or deselected still counts as passed. Exit status: 1 if any tier failed.
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}

declare -A SELECT=(
  [fast]="not llm and not browser and not slow"
  [slow]="slow and not llm and not browser"
  [model]="llm and not browser"
  [browser]="browser"
)
ORDER=(fast slow model browser)

tiers=()
while [[ $# -gt 0 && -n "${SELECT[$1]:-}" ]]; do
  tiers+=("$1")
  shift
done
[[ ${#tiers[@]} -eq 0 ]] && tiers=("${ORDER[@]}")

summary=()
failed=0
for tier in "${tiers[@]}"; do
  echo "=== tier $tier: -m \"${SELECT[$tier]}\""
  start=$(date +%s)
  "$PYTHON" -m pytest -q -m "${SELECT[$tier]}" "$@"
  code=$?
  seconds=$(( $(date +%s) - start ))
  # 5: no test collected (every test of the tier deselected), not a failure.
  if [[ $code -eq 0 || $code -eq 5 ]]; then verdict=passed; else verdict="FAILED (exit $code)"; failed=1; fi
  summary+=("$(printf 'tier %-8s %-18s %5d s' "$tier" "$verdict" "$seconds")")
  echo "=== tier $tier: $verdict in ${seconds} s"
done

echo "=== summary ($(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown))"
printf '%s\n' "${summary[@]}"
exit $failed
