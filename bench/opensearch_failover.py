"""Stop one node of a two-node OpenSearch cluster while questions are asked (issue 42).

Needs the two-node loopback cluster: ``scripts/search-node.sh start --nodes 2``. Ingests the
bundled sample into indexes with two shards and one replica, waits for green, then asks the
sample's questions in a loop for ``--seconds`` (MPR retrieval with the statistical keyword
analysis and no LLM, so no model time hides the cluster's, then a flat search with snippets); after ``--stop-after`` seconds it stops node 1 (a data node;
node 0 manages the cluster) with scripts/search-node.sh. Prints, per phase, questions answered and failed, and the cluster state
navicite reports (what /v1/health shows). Every request goes to loopback addresses only.

    .venv/bin/python bench/opensearch_failover.py --home /tmp/failover [--seconds 60 --stop-after 20] [-s KEY=VALUE]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path

from navicite.api import Collection
from navicite.index import backend_health
from navicite.ingest.sample import sample_documents, sample_path
from navicite.retrieve.mpr import create_retriever

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--stop-after", type=float, default=20.0)
    parser.add_argument("--ports", default="9250,9251", help="HTTP ports of the nodes")
    parser.add_argument("-s", "--set", action="append", default=[], help="extra setting, e.g. rerank.backend=none")
    args = parser.parse_args()
    hosts = json.dumps([f"http://127.0.0.1:{p}" for p in args.ports.split(",")])
    papers = Collection(args.home, [
        "llm.backend=none", "index.backend=opensearch", f"index.opensearch.hosts={hosts}",
        "index.opensearch.index_prefix=failover", "index.opensearch.shards=2", "index.opensearch.replicas=1",
        "index.opensearch.timeout_s=10", "index.opensearch.max_retries=2", *args.set,
    ])
    start = time.perf_counter()
    summary = papers.add(sample_documents())
    print(f"ingested {summary.documents} documents in {time.perf_counter() - start:.1f} s")
    _wait_green(papers)
    print("before:", json.dumps(backend_health(papers.settings)))
    retriever = create_retriever(papers.settings)
    questions = [q.strip() for q in (sample_path() / "questions.txt").read_text().splitlines() if q.strip()]
    phases = {"before stop": [0, 0, 0.0], "after stop": [0, 0, 0.0]}
    errors: list[str] = []
    stopped = False
    began = time.perf_counter()
    i = 0
    while time.perf_counter() - began < args.seconds:
        if not stopped and time.perf_counter() - began >= args.stop_after:
            subprocess.run(["bash", str(ROOT / "scripts/search-node.sh"), "stop", "--node", "1"], check=True)
            print("stopped node 1 at", round(time.perf_counter() - began, 1), "s;", json.dumps(backend_health(papers.settings)))
            stopped = True
        phase = phases["after stop" if stopped else "before stop"]
        question = questions[i % len(questions)]
        i += 1
        t0 = time.perf_counter()
        try:
            result = retriever.run(question, top_n=10)
            hits = papers.search(question, k=5)
            phase[0] += 1 if result.ranked and hits else 0
        except Exception as exc:  # noqa: BLE001 - counted and shown: this is what the run measures
            phase[1] += 1
            errors.append(f"{type(exc).__name__}: {exc}")
        phase[2] = max(phase[2], time.perf_counter() - t0)
    for name, (ok, failed, slowest) in phases.items():
        print(f"{name}: {ok} questions answered, {failed} failed, slowest {slowest:.2f} s")
    for line in dict.fromkeys(errors):
        print("  error:", line[:300])
    print("after:", json.dumps(backend_health(papers.settings)))


def _wait_green(papers: Collection, limit_s: float = 120.0) -> None:
    began = time.perf_counter()
    while time.perf_counter() - began < limit_s:
        health = backend_health(papers.settings)
        if health.get("status") == "green" and health.get("number_of_nodes") == 2:
            return
        time.sleep(1)
    raise SystemExit(f"cluster not green after {limit_s:.0f} s: {backend_health(papers.settings)}")


if __name__ == "__main__":
    main()
