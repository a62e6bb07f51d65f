"""Lexical index benchmark: navicite's tantivy index against bm25s on the same documents.

Indexes SciFact (5,183 abstracts) and a generated corpus (100k documents of
Zipf-distributed words, seeded), then runs Boolean and free-text queries and
prints documents/s and query latency p50/p95, with navicite/bm25s ratios.
bm25s has no Boolean operators, so it gets the words of each Boolean query as
a bag of words. Run from the project root:

    .venv/bin/python bench/index_bench.py            # both corpora
    .venv/bin/python bench/index_bench.py --docs 20000 --queries 100   # quicker
    .venv/bin/python bench/index_bench.py -s index.exact_fields=true     # other settings
    .venv/bin/python bench/index_bench.py --baseline-src /tmp/old/src   # old vs new in one run

``--baseline-src`` indexes the same documents with the navicite package found in
that folder (a copy of an older ``src``), in a child process right before the
current code, and prints both with their ratio; the first line names the
navicite package actually imported.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import navicite
from navicite.config import load_settings
from navicite.documents import Document
from navicite.index import create, free_text, parse_boolean

SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "data" / "scifact"
FUNCTION_WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at which but have an "
    "they you were her she there been one all we their has would"
).split()
STOP = set("a an and are as at be by for from has have in is of on or that the this to was were which with".split())


@dataclass
class Corpus:
    name: str
    docs: list[Document]
    free_queries: list[str]
    boolean_queries: list[str]


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores (nproc), {cpu}, load avg 1 min {load:.2f}"


def boolean_from_words(words: list[str]) -> str:
    """A Boolean query from three or more content words: ``w0 AND (w1 OR w2*)``."""
    w0, w1, w2 = words[:3]
    return f"{w0} AND ({w1} OR {w2[: max(3, len(w2) - 2)]}*)"


def content_words(text: str) -> list[str]:
    words = [w.lower() for w in re.findall(r"[A-Za-z]{4,}", text)]
    return sorted(dict.fromkeys(w for w in words if w not in STOP), key=len, reverse=True)


def scifact(n_queries: int) -> Corpus:
    docs = []
    with (SCIFACT / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            docs.append(Document(id=str(rec["_id"]), title=rec.get("title", ""), text=rec.get("text", "")))
    claims = []
    with (SCIFACT / "queries.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            claims.append(json.loads(line)["text"])
    claims = claims[:n_queries]
    booleans = [boolean_from_words(ws) for ws in map(content_words, claims) if len(ws) >= 3]
    return Corpus("scifact", docs, claims, booleans)


def synthetic(n_docs: int, n_queries: int, seed: int = 7, vocab_size: int = 50_000) -> Corpus:
    """Documents of Zipf-distributed words (English function words, then pseudo-words): 8-word title, 150-word body."""
    rng = np.random.default_rng(seed)
    consonants, vowels = "bcdfghklmnprstvz", "aeiou"
    # The most frequent words of English prose are function words; putting them at
    # the top ranks gives the text English statistics (and English language detection).
    vocab: list[str] = list(FUNCTION_WORDS)
    seen: set[str] = set(vocab)
    while len(vocab) < vocab_size:
        n = int(rng.integers(2, 5))
        word = "".join(consonants[rng.integers(16)] + vowels[rng.integers(5)] for _ in range(n))
        if word not in seen:
            seen.add(word)
            vocab.append(word)
    words = np.array(vocab)
    weights = 1.0 / np.arange(1, vocab_size + 1) ** 1.07
    weights /= weights.sum()
    title_len, body_len = 8, 150
    draws = rng.choice(vocab_size, size=(n_docs, title_len + body_len), p=weights)
    docs = [
        Document(id=f"syn{i}", title=" ".join(words[row[:title_len]]), text=" ".join(words[row[title_len:]]))
        for i, row in enumerate(draws)
    ]
    # Query words from the middle of the frequency range, where real queries' words sit.
    pick = rng.integers(200, 5000, size=(n_queries, 8))
    free = [" ".join(words[row]) for row in pick]
    booleans = [boolean_from_words(list(words[row[:3]])) for row in pick]
    return Corpus(f"synthetic-{n_docs // 1000}k", docs, free, booleans)


def percentiles(samples_s: list[float]) -> tuple[float, float]:
    ms = sorted(s * 1000 for s in samples_s)
    p50 = statistics.median(ms)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    return p50, p95


def time_each(fn: Callable[[str], object], queries: list[str]) -> list[float]:
    for q in queries[:5]:  # warm caches
        fn(q)
    out = []
    for q in queries:
        start = time.perf_counter()
        fn(q)
        out.append(time.perf_counter() - start)
    return out


def run_navicite(corpus: Corpus, home: Path, batch: int, overrides: list[str]) -> dict[str, float]:
    settings = load_settings(home, overrides)
    index = create(settings)
    load_before = os.getloadavg()[0]
    # Process CPU time includes tantivy's indexing and merge threads; the calling thread's
    # share is the Python-side work (conversion, fingerprints, language detection).
    start, cpu_start, py_start = time.perf_counter(), time.process_time(), time.thread_time()
    for i in range(0, len(corpus.docs), batch):
        index.upsert(corpus.docs[i : i + batch])
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    py_cpu = time.thread_time() - py_start
    assert index.count() == len(corpus.docs), (index.count(), len(corpus.docs))
    # Segment merges started by the last commits run in the background; queries are timed
    # on the settled index, and the merge time left after the last commit is shown apart.
    start, cpu_start = time.perf_counter(), time.process_time()
    index.close()
    merge_s, merge_cpu = time.perf_counter() - start, time.process_time() - cpu_start
    start = time.perf_counter()
    report = index.upsert(corpus.docs[:batch])
    reingest = time.perf_counter() - start
    assert not report.added and not report.replaced

    def free(q: str) -> object:
        query = free_text(q)
        return index.search(query, 10) if query is not None else []

    def boolean(q: str) -> object:
        return index.search(parse_boolean(q), 10)

    def boolean_snippets(q: str) -> object:
        return index.search(parse_boolean(q), 10, snippets=True)

    bool_p50, bool_p95 = percentiles(time_each(boolean, corpus.boolean_queries))
    free_p50, free_p95 = percentiles(time_each(free, corpus.free_queries))
    snip_p50, snip_p95 = percentiles(time_each(boolean_snippets, corpus.boolean_queries))
    hits = sum(1 for q in corpus.boolean_queries if index.search(parse_boolean(q), 1))
    return {
        "docs_per_s": len(corpus.docs) / elapsed,
        "docs_per_cpu_s": len(corpus.docs) / cpu,
        "cpu_us_per_doc": cpu / len(corpus.docs) * 1e6,
        "py_us_per_doc": py_cpu / len(corpus.docs) * 1e6,
        "index_s": elapsed,
        "merge_s": merge_s,
        "merge_cpu_us_per_doc": merge_cpu / len(corpus.docs) * 1e6,
        "reingest_docs_per_s": min(batch, len(corpus.docs)) / reingest,
        "bool_p50": bool_p50,
        "bool_p95": bool_p95,
        "free_p50": free_p50,
        "free_p95": free_p95,
        "snip_p50": snip_p50,
        "snip_p95": snip_p95,
        "bool_with_hits": hits,
        "size_mb": index.stats().size_bytes / 1e6,
        "load_before": load_before,
    }


def run_baseline(src: str, corpus_name: str, args: argparse.Namespace) -> dict[str, float]:
    """The navicite figures of the package in ``src`` on the same corpus, from a child process."""
    command = [sys.executable, __file__, "--navicite-json", corpus_name, "--docs", str(args.docs),
               "--queries", str(args.queries), "--batch", str(args.batch)]
    for override in args.baseline_overrides:
        command += ["-s", override]
    env = {**os.environ, "PYTHONPATH": src}
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_bm25s(corpus: Corpus) -> dict[str, float]:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    texts = [f"{d.title} {d.abstract} {d.text}" for d in corpus.docs]
    start, cpu_start = time.perf_counter(), time.process_time()
    tokens = bm25s.tokenize(texts, stemmer=stemmer, show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(tokens, show_progress=False)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    k = min(10, len(texts))

    def bag(q: str) -> object:
        words = " ".join(re.findall(r"\w+", q))
        q_tokens = bm25s.tokenize([words], stemmer=stemmer, show_progress=False)
        return retriever.retrieve(q_tokens, k=k, show_progress=False, n_threads=1)

    bool_p50, bool_p95 = percentiles(time_each(bag, corpus.boolean_queries))
    free_p50, free_p95 = percentiles(time_each(bag, corpus.free_queries))
    return {
        "docs_per_s": len(texts) / elapsed,
        "docs_per_cpu_s": len(texts) / cpu,
        "cpu_us_per_doc": cpu / len(texts) * 1e6,
        "index_s": elapsed,
        "bool_p50": bool_p50,
        "bool_p95": bool_p95,
        "free_p50": free_p50,
        "free_p95": free_p95,
    }


def report(
    corpus: Corpus, nav: dict[str, float], bm: dict[str, float], batch: int, base: dict[str, float] | None = None
) -> None:
    words = sum(d.word_count + len(d.title.split()) for d in corpus.docs) / len(corpus.docs)
    print(f"\n== {corpus.name}: {len(corpus.docs):,} documents, {words:.0f} words/doc on average, "
          f"{len(corpus.boolean_queries)} Boolean + {len(corpus.free_queries)} free-text queries, k=10, "
          f"batch {batch} docs/commit, index {nav['size_mb']:.1f} MB")
    others = ([("baseline", base)] if base else []) + [("bm25s", bm)]
    print(f"{'':28}{'navicite':>12}" + "".join(f"{name:>12}{'ratio':>9}" for name, _ in others))
    rows = [
        ("indexing docs/s (wall)", "docs_per_s", True),
        ("indexing docs/CPU-second", "docs_per_cpu_s", True),
        ("indexing CPU us/doc", "cpu_us_per_doc", False),
        ("Boolean query p50 ms", "bool_p50", False),
        ("Boolean query p95 ms", "bool_p95", False),
        ("free-text query p50 ms", "free_p50", False),
        ("free-text query p95 ms", "free_p95", False),
    ]
    for label, key, higher_better in rows:
        line = f"{label:28}{nav[key]:12,.2f}"
        for _name, other in others:
            ratio = nav[key] / other[key] if other[key] else float("nan")
            note = "x faster" if (ratio > 1) == higher_better else "x slower"
            shown = ratio if ratio >= 1 else 1 / ratio
            line += f"{other[key]:12,.2f}{shown:8.2f}{note}"
        print(line)
    for name, figures in [("navicite", nav)] + ([("baseline", base)] if base else []):
        print(f"{name}: Boolean query with snippets p50 {figures['snip_p50']:.2f} ms, p95 {figures['snip_p95']:.2f} ms; "
              f"re-ingest of {min(batch, len(corpus.docs))} unchanged docs {figures['reingest_docs_per_s']:,.0f} docs/s; "
              f"{figures['bool_with_hits']}/{len(corpus.boolean_queries)} Boolean queries found something; "
              f"index {figures['size_mb']:.1f} MB")
        print(f"{name} indexing CPU: {figures['py_us_per_doc']:.1f} us/doc in the Python thread, "
              f"{figures['cpu_us_per_doc'] - figures['py_us_per_doc']:.1f} us/doc in tantivy's threads; merges left "
              f"after the last commit {figures.get('merge_s', float('nan')):.2f} s, "
              f"{figures.get('merge_cpu_us_per_doc', float('nan')):.1f} us CPU/doc; "
              f"load avg 1 min before indexing {figures['load_before']:.2f}")
    print(f"load avg 1 min now {os.getloadavg()[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100_000, help="size of the generated corpus")
    parser.add_argument("--queries", type=int, default=300, help="queries per kind")
    parser.add_argument("--batch", type=int, default=None, help="documents per upsert (default: ingest.batch_size)")
    parser.add_argument("--skip-scifact", action="store_true")
    parser.add_argument(
        "-s", "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
        help="navicite setting for the run, e.g. index.exact_fields=true (repeatable)",
    )
    parser.add_argument("--baseline-src", help="folder holding an older navicite package to compare with, in the same run")
    parser.add_argument(
        "--baseline-set", dest="baseline_overrides", action="append", default=[], metavar="KEY=VALUE",
        help="setting for the baseline run only (repeatable)",
    )
    parser.add_argument("--navicite-json", metavar="CORPUS", help=argparse.SUPPRESS)  # child process of --baseline-src
    args = parser.parse_args()
    args.batch = args.batch or load_settings(Path(tempfile.gettempdir()) / "unused").ingest.batch_size
    makers: dict[str, Callable[[], Corpus]] = {}
    if not args.skip_scifact and (SCIFACT / "corpus.jsonl").is_file():
        makers["scifact"] = lambda: scifact(args.queries)
    makers["synthetic"] = lambda: synthetic(args.docs, args.queries)
    if args.navicite_json:
        with tempfile.TemporaryDirectory(prefix="navicite-bench-") as home:
            print(json.dumps(run_navicite(makers[args.navicite_json](), Path(home), args.batch, args.overrides)))
        return
    index_settings = load_settings(Path(tempfile.gettempdir()) / "unused", args.overrides).index
    print(f"navicite imported from {Path(navicite.__file__).parent}")
    if args.baseline_src:
        print(f"baseline navicite from {args.baseline_src} (settings {args.baseline_overrides or 'its defaults'})")
    print(f"machine: {machine()}")
    print(
        f"index settings: writer heap {index_settings.writer_heap_mb} MB, {index_settings.writer_threads} writer thread(s), "
        f"stemming {index_settings.stemming}, exact fields {index_settings.exact_fields}, "
        f"title boost {index_settings.title_boost}"
    )
    for name, make in makers.items():
        base = run_baseline(args.baseline_src, name, args) if args.baseline_src else None
        corpus = make()
        with tempfile.TemporaryDirectory(prefix="navicite-bench-") as home:
            nav = run_navicite(corpus, Path(home), args.batch, args.overrides)
        bm = run_bm25s(corpus)
        report(corpus, nav, bm, args.batch, base)


if __name__ == "__main__":
    main()
