#!/usr/bin/env bash
# Fetch the held-out pile's four documents from Debian 12 packages into DIR, beside its questions.
#   bash bench/heldout-pile/fetch.sh /tmp/heldout-pile
#   .venv/bin/python bench/pile_questions.py --pile /tmp/heldout-pile --home /tmp/heldout-home --out /tmp/heldout-out
# Needs apt-get with Debian 12 (bookworm) package lists, and dpkg-deb.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "${1:?usage: fetch.sh DIR}"
out=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download r-cran-zoo=1.8-11-1 r-cran-partykit=1.2-16-1 nano=7.2-1+deb12u1 mutt=2.2.12-0.1~deb12u2
for deb in *.deb; do dpkg-deb -x "$deb" "x-${deb%%_*}"; done
cp x-r-cran-zoo/usr/lib/R/site-library/zoo/doc/zoo.pdf "$out/zoo-indexed-observations.pdf"
cp x-r-cran-partykit/usr/lib/R/site-library/partykit/doc/mob.pdf "$out/partykit-model-based-partitioning.pdf"
cp x-nano/usr/share/doc/nano/nano.html "$out/gnu-nano-manual.html"
gzip -dc x-mutt/usr/share/doc/mutt/manual.txt.gz > "$out/mutt-manual.txt"
cp "$here/questions.jsonl" "$out/"
echo "held-out pile: $out"
