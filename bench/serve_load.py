"""Load check of ``navicite serve``: concurrent searches while documents are ingested.

Starts ``navicite serve`` on a free loopback port over a fresh collection holding the
bundled sample (no model: ``llm.backend=none``), then runs ``--clients`` concurrent
``POST /v1/search`` loops (asyncio, one process; the ingest posts from another). After
``--warmup`` seconds, the first ``--baseline`` seconds are searches alone; then, for
``--seconds``, the searches continue while ``--docs`` SciFact abstracts are posted to
``POST /v1/documents`` as JSON records in batches of ``--batch``. Prints errors, whether every ingested document is present afterwards,
and p50/p95 search latency during the baseline, the ingest window and the rest of the
load phase, with the ratio to the baseline. Loopback only. Run from the project root:

    .venv/bin/python bench/serve_load.py
    .venv/bin/python bench/serve_load.py --clients 20 --seconds 30 --docs 1000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import socket
import statistics
import multiprocessing
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from navicite.collection import CollectionStore
from navicite.config import load_settings
from navicite.ingest import sample_documents, sample_questions

SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "data" / "scifact" / "corpus.jsonl"


@dataclass
class Sample:
    """One search request: when it started and ended (monotonic seconds) and whether it failed."""

    start: float
    end: float
    ok: bool


@dataclass
class Window:
    """The span of the ingest, filled in by the ingest thread."""

    start: float = 0.0
    end: float = 0.0
    errors: list[str] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def new_records(count: int) -> list[dict]:
    """The first ``count`` SciFact abstracts as records; the ``load-`` prefix keeps their ids apart from the sample's."""
    out = []
    with SCIFACT.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            out.append({"id": f"load-{row['_id']}", "title": row["title"], "text": row["text"]})
            if len(out) == count:
                return out
    raise SystemExit(f"SciFact has only {len(out)} abstracts; ask for fewer --docs")


def start_server(home: Path, port: int) -> subprocess.Popen:
    args = [sys.executable, "-m", "navicite", "--home", str(home), "-s", "llm.backend=none",
            "serve", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    server = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=(home / "serve.log").open("w"))
    url = f"http://127.0.0.1:{port}"
    for _ in range(240):
        try:
            if httpx.get(f"{url}/v1/health", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        if server.poll() is not None:
            raise SystemExit(f"navicite serve exited; see {home / 'serve.log'}")
        time.sleep(0.5)
    server.kill()
    raise SystemExit("navicite serve did not come up within 120 s")


async def search_loop(url: str, queries: list[str], stop_at: float, samples: list[Sample], seed: int) -> None:
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        while time.monotonic() < stop_at:
            query = rng.choice(queries)
            start = time.monotonic()
            try:
                reply = await client.post("/v1/search", json={"query": query, "k": 10})
                ok = reply.status_code == 200 and isinstance(reply.json().get("hits"), list)
            except httpx.HTTPError:
                ok = False
            samples.append(Sample(start, time.monotonic(), ok))


def ingest_process(url: str, records: list[dict], batch: int, results: multiprocessing.Queue) -> None:
    """Post the records in batches; runs in its own process so it cannot slow the measuring clients.

    (CLOCK_MONOTONIC is shared by all processes, so the window lines up with the samples.)
    """
    window = Window(start=time.monotonic())
    with httpx.Client(base_url=url, timeout=300) as client:
        for at in range(0, len(records), batch):
            reply = client.post("/v1/documents", json={"records": records[at: at + batch]})
            if reply.status_code not in (200, 201) or reply.json()["failed"]:
                window.errors.append(f"batch {at // batch}: {reply.status_code} {reply.text[:200]}")
            else:
                window.ids.extend(reply.json()["ids"])
    window.end = time.monotonic()
    results.put(window)


def listed_ids(url: str) -> set[str]:
    ids: set[str] = set()
    with httpx.Client(base_url=url, timeout=60) as client:
        offset = 0
        while True:
            page = client.get("/v1/documents", params={"offset": offset, "limit": 1000}).json()
            ids |= {d["id"] for d in page["documents"]}
            offset += 1000
            if offset >= page["total"]:
                return ids


def percentiles(samples: list[Sample]) -> tuple[float, float, int]:
    """p50 and p95 latency in milliseconds, and the number of requests."""
    times = sorted((s.end - s.start) * 1000 for s in samples)
    if not times:
        return float("nan"), float("nan"), 0
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
    return statistics.median(times), p95, len(times)


async def run_clients(url: str, queries: list[str], clients: int, stop_at: float, samples: list[Sample]) -> None:
    await asyncio.gather(*(search_loop(url, queries, stop_at, samples, seed) for seed in range(clients)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30.0, help="Length of the load phase (searches + ingest).")
    parser.add_argument("--warmup", type=float, default=3.0, help="Searches before the baseline, not measured.")
    parser.add_argument("--baseline", type=float, default=10.0, help="Searches alone before the ingest starts.")
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=100, help="Records per POST /v1/documents.")
    args = parser.parse_args()

    queries = [q for q in sample_questions()] + ["protein folding", "vitamin D pregnancy", "affective events",
                                                 "clinical text structuring", "HIV antiretroviral therapy"]
    records = new_records(args.docs)
    with tempfile.TemporaryDirectory(prefix="navicite-load-") as tmp:
        home = Path(tmp)
        base = CollectionStore(load_settings(home, ["llm.backend=none"])).ingest(sample_documents())
        port = free_port()
        server = start_server(home, port)
        url = f"http://127.0.0.1:{port}"
        try:
            # first requests of a fresh server are slow (caches, lazy imports): not part of any phase
            asyncio.run(run_clients(url, queries, args.clients, time.monotonic() + args.warmup, []))
            baseline: list[Sample] = []
            asyncio.run(run_clients(url, queries, args.clients, time.monotonic() + args.baseline, baseline))
            loaded: list[Sample] = []
            results: multiprocessing.Queue = multiprocessing.get_context("spawn").Queue()
            worker = multiprocessing.get_context("spawn").Process(
                target=ingest_process, args=(url, records, args.batch, results)
            )
            stop_at = time.monotonic() + args.seconds
            worker.start()
            asyncio.run(run_clients(url, queries, args.clients, stop_at, loaded))
            window: Window = results.get(timeout=600)
            worker.join()
            present = listed_ids(url)
        finally:
            server.terminate()
            server.wait(timeout=30)

    expected = {r["id"] for r in records}
    during = [s for s in loaded if s.end >= window.start and s.start <= window.end]
    after = [s for s in loaded if s.start > window.end]
    errors = sum(not s.ok for s in baseline + loaded)
    print(f"machine: {platform.machine()} {os.cpu_count()} cpus, python {platform.python_version()}, "
          f"load average at end {os.getloadavg()[0]:.1f}")
    print(f"collection: bundled sample ({base.documents} documents) + {args.docs} SciFact abstracts "
          f"posted in batches of {args.batch}; {args.clients} search clients")
    print(f"ingest: {len(window.ids)} documents in {window.end - window.start:.1f} s; errors: {len(window.errors)}"
          + (f" ({window.errors[0]})" if window.errors else ""))
    print(f"search errors: {errors} of {len(baseline) + len(loaded)} requests")
    missing = expected - present
    print(f"documents present afterwards: {len(expected & present)}/{len(expected)}"
          f" (total listed {len(present)}){'; MISSING ' + str(sorted(missing)[:5]) if missing else ''}")
    p50_base, p95_base, n_base = percentiles(baseline)
    print(f"{'phase':<26}{'requests':>9}{'req/s':>8}{'p50 ms':>9}{'p95 ms':>9}{'p50 ratio':>10}{'p95 ratio':>10}")
    for name, part, span in (
        ("baseline (search only)", baseline, args.baseline),
        ("during ingest", during, max(window.end - window.start, 1e-9)),
        ("after ingest", after, max(stop_at - window.end, 1e-9)),
        ("whole load phase", loaded, args.seconds),
    ):
        p50, p95, n = percentiles(part)
        print(f"{name:<26}{n:>9}{n / span:>8.1f}{p50:>9.1f}{p95:>9.1f}{p50 / p50_base:>10.2f}{p95 / p95_base:>10.2f}")
    if errors or window.errors or missing:
        sys.exit(1)


if __name__ == "__main__":
    main()
