#!/usr/bin/env bash
# The README's first command on clean clones, one revision after another, each with an empty
# cache (pip's downloads and navicite's joined model live under XDG_CACHE_HOME, so each run
# fetches everything, as a fresh machine does). For each revision it prints: seconds of
# scripts/setup.sh, the venv's size, `pip list | wc -l`, the joined model's size outside the
# venv, and the seconds of `navicite ingest --sample` + the README's question to the first answer.
#
#   bash bench/install_footprint.sh f4b0ade HEAD      # before and after, in one run
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
question="Does folic acid supplementation lower blood homocysteine levels?"
echo "machine: $(uname -m), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; load $(cut -d' ' -f1 /proc/loadavg)"
for rev in "$@"; do
  work=$(mktemp -d /tmp/navicite-install.XXXXXX)
  git clone -q "$repo" "$work/src" && git -C "$work/src" checkout -q "$rev"
  export XDG_CACHE_HOME="$work/cache"
  cd "$work/src"
  start=$(date +%s.%N)
  bash scripts/setup.sh >"$work/setup.log" 2>&1 || { echo "$rev: setup failed, see $work/setup.log"; continue; }
  setup_s=$(echo "$(date +%s.%N) - $start" | bc)
  venv=$(du -sm .venv | cut -f1)
  packages=$(.venv/bin/python -m pip list 2>/dev/null | wc -l)
  start=$(date +%s.%N)
  .venv/bin/navicite ingest --sample >"$work/ingest.log" 2>&1
  .venv/bin/navicite ask "$question" >"$work/answer.txt" 2>"$work/ask.log"
  answer_s=$(echo "$(date +%s.%N) - $start" | bc)
  model=$(du -sm "$XDG_CACHE_HOME/navicite/models" 2>/dev/null | cut -f1 || echo 0)
  printf '%s: setup %.0f s, venv %s MB, pip list %s lines, joined model %s MB outside the venv, first answer %.0f s (load %s)\n' \
    "$rev" "$setup_s" "$venv" "$packages" "$model" "$answer_s" "$(cut -d' ' -f1 /proc/loadavg)"
  echo "--- answer of $rev:"; cat "$work/answer.txt"
  cd "$repo"
done
