#!/usr/bin/env bash
# The fan-out benchmark (BENCHMARKS.md, "Server push"): how fast one resource update reaches
# N `subscriptions/listen` streams over Streamable HTTP. `mcpload fanout` holds N listeners on
# one server and touches `bench://counter` through a tool as fast as the listeners keep up
# (at most 32 touches on their way); each listener times each update from just before its
# touch was sent.
#
#   scripts/bench_fanout.sh [--duration SECS] [--warmup SECS] [--listeners "1 100 1000"]
#                           [--peers "mcp mcp-redis py"] [--window W] [--repeat N]
#
# --window 32 (the default) measures throughput: touches queue behind each other, so the
# latency includes that queue. --window 1 measures the latency of one update on its own.
#
# Peers: `mcp` (benches/server, one bench_server), `mcp-redis` (two bench_server
# instances on one real redis-server: listeners on the first, touches through the second), `py`
# (the Python SDK 2.3.0 peer, benches/peers/python/server.py, one instance; the SDK ships no
# bus for a fleet). Servers (and Redis) run on CPU 1, mcpload on CPU 0; every run starts fresh
# servers. Results under target/bench-results/fanout-<timestamp>/ (runs.jsonl, report.md).
# bench_server and mcpload are built with the release-lto profile (scripts/bench_lib.sh).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
DURATION=5
WARMUP=1
LISTENERS="1 100 1000"
PEERS="mcp mcp-redis py"
WINDOW=32
REPEAT=1

usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --listeners) LISTENERS="$2"; shift 2 ;;
    --peers) PEERS="$2"; shift 2 ;;
    --window) WINDOW="$2"; shift 2 ;;
    --repeat) REPEAT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
for peer in $PEERS; do
  case "$peer" in mcp|mcp-redis|py) ;; *) echo "unknown peer $peer (mcp, mcp-redis, py)" >&2; exit 2 ;; esac
done

OUT="$ROOT/target/bench-results/fanout-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT"

log "building ($BENCH_PROFILE): mcpload, bench_server (feature redis)"
build_mcpload
build_mcp --features redis
[[ " $PEERS " == *" py "* ]] && build_py
[[ " $PEERS " == *" mcp-redis "* ]] && require_redis mcp-redis
# 1000 listeners are 1000 connections on each side.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

{
  echo "date: $(date -Iseconds)"
  echo "command: scripts/bench_fanout.sh --duration $DURATION --warmup $WARMUP --listeners \"$LISTENERS\" --peers \"$PEERS\" --window $WINDOW --repeat $REPEAT"
  bench_meta
  command -v redis-server >/dev/null && echo "redis: $(redis-server --version)"
  echo "loadavg at start: $(loadavg)"
} >"$OUT/meta.txt"
log "results in $OUT (load average $(loadavg))"

RUN_LIMIT=$(awk -v w="$WARMUP" -v d="$DURATION" 'BEGIN { printf "%d", w + d + 90 }')
for round in $(seq 1 "$REPEAT"); do
  for peer in $PEERS; do
    for listeners in $LISTENERS; do
      trigger=()
      if [ "$peer" = mcp-redis ]; then
        # Redis first: a port is free only until something listens on it.
        start_redis "$OUT/redis.log"
      fi
      port="$(free_port)"
      url="http://127.0.0.1:$port/mcp"
      case "$peer" in
        mcp)
          start "$OUT/mcp.server.log" "$OURS" --port "$port"
          pids=(--server-pid "$STARTED")
          ;;
        py)
          start "$OUT/py.server.log" "$PYTHON" "$ROOT/benches/peers/python/server.py" --port "$port"
          pids=(--server-pid "$STARTED")
          ;;
        mcp-redis)
          start "$OUT/mcp-redis.server.log" "$OURS" --port "$port" --redis "redis://127.0.0.1:$REDIS_PORT"
          pids=(--server-pid "$STARTED")
          ready "$url"
          second="$(free_port)"
          start "$OUT/mcp-redis.server.log" "$OURS" --port "$second" --redis "redis://127.0.0.1:$REDIS_PORT"
          pids+=(--server-pid "$STARTED")
          trigger=(--trigger-url "http://127.0.0.1:$second/mcp")
          ready "http://127.0.0.1:$second/mcp"
          ;;
      esac
      ready "$url"
      before="$(loadavg)"
      line="$(timeout "$RUN_LIMIT" "${LOADGEN_ON[@]}" "$LOADGEN" fanout --url "$url" "${trigger[@]}" \
        --listeners "$listeners" --window "$WINDOW" --warmup "$WARMUP" --duration "$DURATION" --peer "$peer" \
        "${pids[@]}" 2>>"$OUT/mcpload.log")" || {
        echo "mcpload fanout failed for $peer with $listeners listeners (see $OUT/mcpload.log)" >&2
        tail -n 5 "$OUT/mcpload.log" >&2
        exit 1
      }
      jq -c --arg l "$before" --argjson r "$round" '. + {round: $r, loadavg_before: $l}' <<<"$line" >>"$OUT/runs.jsonl"
      jq -r '"   \(.peer) \(.listeners) listeners: \(.notifications_per_s) notifications/s, p50 \(.p50_ms) ms, p99 \(.p99_ms) ms, server CPU \(.server_cpu_us_per_notification) µs/notification"' <<<"$line" >&2
      cleanup
    done
  done
done

echo "loadavg at end: $(loadavg)" >>"$OUT/meta.txt"
python3 - "$OUT" <<'EOF' | tee "$OUT/report.md"
import json, statistics, sys
from collections import defaultdict

out = sys.argv[1]
runs = [json.loads(line) for line in open(f"{out}/runs.jsonl")]
by = defaultdict(list)
for run in runs:
    by[(run["peer"], run["listeners"])].append(run)
med = lambda rs, k: statistics.median(r[k] for r in rs if r[k] is not None)
print(open(f"{out}/meta.txt").read().strip().replace("\n", "  \n"))
print()
print("| peer | listeners | window | notifications/s | p50 ms | p99 ms | server CPU µs / notification | rounds |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for (peer, n), rs in sorted(by.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    print(f"| {peer} | {n} | {rs[0]['window']} | {med(rs, 'notifications_per_s'):,.0f} | {med(rs, 'p50_ms'):.2f} | "
          f"{med(rs, 'p99_ms'):.2f} | {med(rs, 'server_cpu_us_per_notification'):.2f} | {len(rs)} |")
peers = {p for p, _ in by}
if {"mcp", "py"} <= peers:
    print()
    print("| listeners | mcp / py notifications/s | py / mcp p99 | py / mcp CPU per notification |")
    print("|---:|---:|---:|---:|")
    for n in sorted({n for _, n in by}):
        ours, theirs = by.get(("mcp", n)), by.get(("py", n))
        if ours and theirs:
            print(f"| {n} | {med(ours, 'notifications_per_s') / med(theirs, 'notifications_per_s'):.2f} | "
                  f"{med(theirs, 'p99_ms') / med(ours, 'p99_ms'):.2f} | "
                  f"{med(theirs, 'server_cpu_us_per_notification') / med(ours, 'server_cpu_us_per_notification'):.2f} |")
EOF
exit_on_run_errors
