"""PDF text extraction: pypdf against pypdfium2, speed and quality, on the same files in one run.

For each PDF (default: the R ``survival`` vignettes in ``../shared/data/pdf``) both
extractors read every page ``--repeat`` times; the median seconds and the ratio to pypdf
(the baseline, what navicite used before) are printed. Quality is counted on the raw text
(before navicite's repair) and after ``repair_pages``:

- known: share of letter-only words (2+ letters, glyph codes deleted as an index would)
  that wordfreq knows;
- coded: words with a font glyph code (a control character) next to letters, i.e. a
  ligature the extractor did not map to Unicode ("coe\\x1ecients");
- dropped: words that only a restored ligature makes known ("coecients"), counted on
  the raw text with glyph codes deleted;
- broken: words split by a line-end hyphen;
- loose: punctuation standing alone as a word ("future ." instead of "future.");
- math: Unicode math operators kept (∑ ∏ ∫ √ ′ ≤ ≥ ...), where extractors differ most.

Run from the project root (pypdf must be installed for the baseline: ``pip install pypdf``):

    .venv/bin/python bench/pdf_extract_bench.py [--repeat 5] [PDF ...]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from navicite.ingest.pdf import extract_pages
from navicite.ingest.pdf_text import ligature_repairs, plain_words, repair_pages, zipf

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "pdf"
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_CODED = re.compile(r"[^\W\d_][\x00-\x08\x0b\x0c\x0e-\x1f]|[\x00-\x08\x0b\x0c\x0e-\x1f][^\W\d_]")
_BROKEN = re.compile(r"[^\W\d_]-[ \t]*\r?\n[ \t]*[^\W\d_]|[^\W\d_][\ufffe\u00ad]")
_LOOSE = re.compile(r"(?<=\s)[.,;:)](?=\s)")
_MATH = re.compile("[\u2200-\u22ff\u2032\u2033]")


def pypdf_pages(path: Path) -> list[str]:
    import logging

    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    return [page.extract_text() or "" for page in PdfReader(path).pages]


def machine() -> str:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{model or platform.processor()}, {os.cpu_count()} cores, Python {platform.python_version()}, load (1 min) {load:.1f}"


def timed(read: Callable[[Path], list[str]], path: Path, repeat: int) -> tuple[float, list[str]]:
    seconds = []
    pages: list[str] = []
    for _ in range(repeat):
        start = time.perf_counter()
        pages = read(path)
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), pages


def quality(pages: list[str]) -> dict[str, float]:
    text = "\n".join(pages)
    visible = _CONTROL.sub("", text)
    words = plain_words(visible)
    known = sum(1 for w in words if zipf(w) > 0)
    repairs = ligature_repairs(words, min_evidence=0)
    return {
        "words": len(text.split()),
        "known": known / len(words) if words else 0.0,
        "coded": len(_CODED.findall(text)),
        "dropped": sum(1 for w in words if w in repairs),
        "broken": len(_BROKEN.findall(text)),
        "loose": len(_LOOSE.findall(text)),
        "math": len(_MATH.findall(text)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdfs", nargs="*", type=Path, help=f"PDF files (default: every PDF in {DATA})")
    parser.add_argument("--repeat", type=int, default=5, help="extractions per file and extractor; the median is shown")
    args = parser.parse_args()
    pdfs = args.pdfs or sorted(DATA.glob("*.pdf"))
    if not pdfs:
        raise SystemExit(f"no PDFs given and none in {DATA}")
    print(f"machine: {machine()}")
    print(f"data: {', '.join(p.name for p in pdfs)}; median of {args.repeat} extractions; ratios against pypdf in this run")
    zipf("warm")  # the word list loads once; not part of any timing
    extractors = {"pypdf": pypdf_pages, "pypdfium2": extract_pages}
    header = f"{'file':<18}{'extractor':<11}{'pages':>6}{'seconds':>9}{'speed':>8}{'words':>7}{'known':>7}{'coded':>7}{'dropped':>8}{'broken':>7}{'loose':>6}{'math':>5} | {'repair s':>8}{'known':>7}"
    print(header)
    print("-" * len(header))
    totals: dict[str, list[float]] = {name: [0.0, 0.0] for name in extractors}
    for path in pdfs:
        base = None
        for name, read in extractors.items():
            seconds, pages = timed(read, path, args.repeat)
            base = base or seconds
            totals[name][0] += seconds
            raw = quality(pages)
            start = time.perf_counter()
            repaired = repair_pages(pages)
            repair_seconds = time.perf_counter() - start
            totals[name][1] += repair_seconds
            after = quality(repaired)
            print(
                f"{path.name:<18}{name:<11}{len(pages):>6}{seconds:>9.3f}{base / seconds:>7.1f}x{raw['words']:>7}"
                f"{raw['known']:>7.1%}{raw['coded']:>7}{raw['dropped']:>8}{raw['broken']:>7}{raw['loose']:>6}{raw['math']:>5}"
                f" | {repair_seconds:>8.3f}{after['known']:>7.1%}"
            )
    base_total = totals["pypdf"][0]
    for name, (extract, repair) in totals.items():
        print(f"total {name:<10} extraction {extract:.3f} s ({base_total / extract:.1f}x pypdf), repair {repair:.3f} s")


if __name__ == "__main__":
    main()
