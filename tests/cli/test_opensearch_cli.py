"""The command line over a collection in an OpenSearch cluster: a cluster that is down is one line."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path


def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "navicite", "--home", str(home), *args],
                          capture_output=True, text=True, env=env, timeout=180)


def test_a_cluster_that_is_down_is_one_line_and_a_failing_exit(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cluster = ["-s", "index.backend=opensearch", "-s", f'index.opensearch.hosts=["http://127.0.0.1:{port}"]',
               "-s", "index.opensearch.max_retries=0"]
    for command in (["search", "gene expression"], ["ingest", "--sample"], ["docs", "list"]):
        result = run(tmp_path, *cluster, *command)
        assert result.returncode == 1, (command, result.stdout, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert lines[-1] == (f"error: cannot reach the OpenSearch cluster at http://127.0.0.1:{port}; start it "
                             "(scripts/search-node.sh start for a local one) or check index.opensearch.hosts"), command
        assert "Traceback" not in result.stderr


def test_config_show_masks_the_cluster_password(tmp_path: Path) -> None:
    result = run(tmp_path, "-s", "index.opensearch.password=hunter2", "-s", "index.opensearch.api_key=k3y",
                 "config", "show", "--json")
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)["index"]["opensearch"]
    assert shown["password"] == "***" and shown["api_key"] == "***" and "hunter2" not in result.stdout
