#!/usr/bin/env bash
# Fetch the PDF vignettes the support judge's training pairs were also made from (R packages from
# Debian 12; none of them is a document of an evaluation pile) into DIR.
#   bash bench/support_judge_pdfs.sh /tmp/judge/pdf
#   .venv/bin/python bench/support_judge_data.py --out /tmp/judge/pairs.jsonl --pdf /tmp/judge/pdf
# Needs apt-get with Debian 12 (bookworm) package lists (apt-get update), and dpkg-deb.
set -euo pipefail
mkdir -p "${1:?usage: support_judge_pdfs.sh DIR}"
out=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download r-cran-lme4 r-cran-matrix r-cran-mvtnorm r-cran-multcomp r-cran-strucchange r-cran-lmtest \
  r-cran-coin r-cran-mgcv r-cran-nlme r-cran-expm r-cran-plm r-cran-glmnet
for deb in *.deb; do dpkg-deb -x "$deb" x; done
find x -name '*.pdf' -exec cp {} "$out/" \;
echo "$(ls "$out"/*.pdf | wc -l) PDF files in $out"
