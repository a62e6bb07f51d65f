"""Scale curve of the two lexical backends, side by side in one run (issue 42).

Passages of real text: every string of 30+ words in the JSON files of ../shared/data (SciFact
abstracts, HotpotQA and MuSiQue passages, L-Eval stories and papers, ExpertQA answers) and then
the text files of the installed Debian packages' documentation (/usr/share/doc: READMEs,
changelogs, copyright files, gzipped or not), cut into pieces of 100 words. For each size, each
backend gets a fresh index: ingest passages/s (upserts of 5,000), then per question search
latency p50/p95 for flat BM25 (free text, k=30) and for a question's set of Boolean portfolio
queries (word pairs AND-ed and one phrase, up to 8, k=30: tantivy one after another as
portfolio threads would on one core each; OpenSearch in one _msearch). Questions: SciFact claims.

    .venv/bin/python bench/opensearch_scale.py --sizes 10000,100000 --url http://127.0.0.1:9250
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import re
import statistics
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from navicite.config import load_settings
from navicite.documents import Document
from navicite.index import LexicalIndex, create, free_text, parse_boolean

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
WORDS = 100
STOP = set("a an and are as at be by for from has have in is of on or that the this to was were which with not".split())


def strings(value: object) -> Iterator[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def texts(data: Path) -> Iterator[tuple[str, str]]:
    """(source, text) of real text: the shared data sets first, then Debian's documentation."""
    for path in sorted(data.rglob("*.json*")):
        lines = path.read_text(encoding="utf-8").splitlines() if path.suffix == ".jsonl" else [path.read_text(encoding="utf-8")]
        for line in lines:
            if line.strip():
                for text in strings(json.loads(line)):
                    if len(text.split()) >= 30:
                        yield path.parent.name, text
    for path in sorted(Path("/usr/share/doc").rglob("*")):
        if not path.is_file() or path.is_symlink() or path.stat().st_size > 5_000_000:
            continue
        try:
            raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
            text = raw.decode("utf-8")
        except (OSError, UnicodeDecodeError, EOFError, gzip.BadGzipFile):
            continue
        yield "debian-doc", text


def passages(data: Path, limit: int) -> tuple[list[Document], dict[str, int]]:
    out: list[Document] = []
    sources: dict[str, int] = {}
    for source, text in texts(data):
        words = text.split()
        for start in range(0, len(words), WORDS):
            piece = words[start : start + WORDS]
            if len(piece) < 20:
                continue
            out.append(Document(f"p{len(out)}", "", "", " ".join(piece)))
            sources[source] = sources.get(source, 0) + 1
            if len(out) == limit:
                return out, sources
    return out, sources


def portfolio(question: str) -> list[str]:
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9-]+", question) if w.lower() not in STOP]
    queries = [f"{a} AND {b}" for a, b in zip(words, words[1:])][:7]
    if len(words) >= 2:
        queries.append(f'"{words[0]} {words[1]}"')
    return queries


def pct(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000


def measure(index: LexicalIndex, docs: list[Document], questions: list[str]) -> dict[str, float]:
    start = time.perf_counter()
    for i in range(0, len(docs), 5000):
        index.upsert(docs[i : i + 5000])
    ingest = time.perf_counter() - start
    flat, sets = [], []
    for question in questions:
        query = free_text(question)
        t0 = time.perf_counter()
        index.search(query, 30)
        flat.append(time.perf_counter() - t0)
        queries = [parse_boolean(q) for q in portfolio(question)]
        t0 = time.perf_counter()
        many = getattr(index, "search_many", None)
        if many is not None:
            many(queries, 30)
        else:
            for q in queries:
                index.search(q, 30)
        sets.append(time.perf_counter() - t0)
    f50, f95 = pct(flat)
    s50, s95 = pct(sets)
    return {"passages/s": len(docs) / ingest, "flat p50 ms": f50, "flat p95 ms": f95, "set p50 ms": s50, "set p95 ms": s95}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--url", default=os.environ.get("NAVICITE_TEST_OPENSEARCH", "http://127.0.0.1:9250"))
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--data", type=Path, default=DATA, help="the shared data folder (default ../shared/data)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    docs, sources = passages(args.data, max(sizes))
    claims = [json.loads(line)["text"] for line in (args.data / "scifact" / "queries.jsonl").read_text().splitlines()]
    questions = claims[: args.questions]
    with urllib.request.urlopen(f"{args.url}/_cat/nodes?h=name,heap.max", timeout=10) as reply:
        nodes = reply.read().decode().split("\n")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
          f"OpenSearch nodes: {[n for n in nodes if n]}")
    print(f"{len(docs):,} passages of {WORDS} words from: {sources}")
    rows = []
    for size in sizes:
        if size > len(docs):
            print(f"only {len(docs):,} passages of real text found; size {size:,} measured at {len(docs):,}")
            size = len(docs)
        for backend in ("tantivy", "opensearch"):
            with tempfile.TemporaryDirectory(prefix="scale-") as home:
                extra = [] if backend == "tantivy" else [
                    "index.backend=opensearch", f'index.opensearch.hosts=["{args.url}"]',
                    f"index.opensearch.shards={args.shards}", "index.opensearch.replicas=0",
                    f"index.opensearch.index_prefix=scale-{size}"]
                index = create(load_settings(home, extra))
                try:
                    result = measure(index, docs[:size], questions)
                finally:
                    if backend == "opensearch":
                        index.client.indices.delete(index=index.name, ignore_unavailable=True)  # type: ignore[attr-defined]
                    index.close()
            rows.append((size, backend, result))
            print(f"{size:>8,} {backend:<10} " + "  ".join(f"{k} {v:,.1f}" for k, v in result.items()), flush=True)


if __name__ == "__main__":
    main()
