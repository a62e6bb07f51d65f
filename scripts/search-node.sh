#!/usr/bin/env bash
# Start, stop or check a loopback OpenSearch cluster for navicite's opensearch backend and its tests.
#
#   scripts/search-node.sh start [--nodes N]   build search-node/ (once), start N nodes (default 1), wait for health
#   scripts/search-node.sh stop [--node I]     stop every node, or only node I (e.g. to test fail-over)
#   scripts/search-node.sh status              the cluster's health, or "down"
#
# Node I listens on http://127.0.0.1:$((HTTP_PORT+I)) (HTTP_PORT defaults to 9250). Data and logs go to
# $NAVICITE_SEARCH_NODE_HOME (default /tmp/navicite-search-node); `start` begins with empty data.
# Environment: NAVICITE_SEARCH_NODE_HEAP (default 512m), NAVICITE_SEARCH_NODE_WAIT (seconds, default 240).
set -euo pipefail
cd "$(dirname "$0")/../search-node"

HOME_DIR=${NAVICITE_SEARCH_NODE_HOME:-/tmp/navicite-search-node}
HTTP_PORT=${NAVICITE_SEARCH_NODE_HTTP_PORT:-9250}
TRANSPORT_PORT=${NAVICITE_SEARCH_NODE_TRANSPORT_PORT:-9350}
HEAP=${NAVICITE_SEARCH_NODE_HEAP:-512m}
WAIT=${NAVICITE_SEARCH_NODE_WAIT:-240}
JAVA=${JAVA:-java}

command=${1:-status}
shift || true
nodes=1
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes=$2; shift 2 ;;
    --node) only=$2; shift 2 ;;
    *) echo "search-node.sh: unknown option $1 (options: --nodes N for start, --node I for stop)" >&2; exit 2 ;;
  esac
done

health() {
  curl -fsS --max-time 5 "http://127.0.0.1:$HTTP_PORT/_cluster/health" 2>/dev/null || true
}

build() {
  # Offline after the first build: the jars are then in ~/.m2.
  if [ ! -f target/search-node-1.0.jar ] || [ pom.xml -nt target/search-node-1.0.jar ] \
     || [ -n "$(find src -newer target/search-node-1.0.jar -type f)" ]; then
    mvn -q -o package 2>/dev/null || mvn -q package
  fi
}

stop_node() {
  local pidfile="$HOME_DIR/node-$1.pid"
  [ -f "$pidfile" ] || return 0
  local pid
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  fi
  rm -f "$pidfile"
  echo "search-node: node-$1 stopped"
}

case "$command" in
  start)
    if [ -n "$(health)" ]; then
      echo "search-node: a node already answers on port $HTTP_PORT; stop it first (scripts/search-node.sh stop)" >&2
      exit 1
    fi
    build
    rm -rf "$HOME_DIR"
    mkdir -p "$HOME_DIR"
    for i in $(seq 0 $((nodes - 1))); do
      nohup "$JAVA" "-Xms${HEAP}" "-Xmx${HEAP}" -XX:+UseSerialGC \
        -cp "target/search-node-1.0.jar:target/lib/*:target/knn/*" navicite.searchnode.SearchNode \
        --index "$i" --nodes "$nodes" --http-port "$HTTP_PORT" --transport-port "$TRANSPORT_PORT" --home "$HOME_DIR" \
        >"$HOME_DIR/node-$i.log" 2>&1 &
      echo $! >"$HOME_DIR/node-$i.pid"
    done
    for _ in $(seq "$WAIT"); do
      if curl -fsS --max-time 5 "http://127.0.0.1:$HTTP_PORT/_cluster/health?wait_for_nodes=$nodes&wait_for_status=yellow&timeout=1s" \
          2>/dev/null | grep -q '"timed_out":false'; then
        echo "search-node: $nodes node(s) up at http://127.0.0.1:$HTTP_PORT ($(health | grep -o '"status":"[a-z]*"'))"
        exit 0
      fi
      for i in $(seq 0 $((nodes - 1))); do
        if ! kill -0 "$(cat "$HOME_DIR/node-$i.pid")" 2>/dev/null; then
          echo "search-node: node-$i exited while starting; its log:" >&2
          tail -20 "$HOME_DIR/node-$i.log" >&2
          exit 1
        fi
      done
      sleep 1
    done
    echo "search-node: no healthy cluster after ${WAIT}s; logs in $HOME_DIR" >&2
    exit 1
    ;;
  stop)
    if [ -n "$only" ]; then
      stop_node "$only"
    else
      for pidfile in "$HOME_DIR"/node-*.pid; do
        [ -e "$pidfile" ] || continue
        n=${pidfile##*/node-}
        stop_node "${n%.pid}"
      done
    fi
    ;;
  status)
    h=$(health)
    if [ -z "$h" ]; then echo "search-node: down (nothing answers on port $HTTP_PORT)"; exit 1; fi
    echo "$h"
    ;;
  *)
    echo "usage: scripts/search-node.sh start [--nodes N] | stop [--node I] | status" >&2
    exit 2
    ;;
esac
