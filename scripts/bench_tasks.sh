#!/usr/bin/env bash
# The tasks benchmark (BENCHMARKS.md, "Tasks: creation, polling, memory"): how fast
# bench_server (benches/server) makes tasks (the tasks extension) and answers `tasks/get`, with its
# tasks in memory and in Redis, and what a finished task costs in memory.
#
#   scripts/bench_tasks.sh [--repeat N] [--seconds S] [--concurrency C] [--warmup S]
#                          [--stores "memory redis"] [--count N]
#
# For each store, in each round, on a fresh server: `mcpload run --scenario echo` (the yardstick:
# a plain tool call on the same server, in the same minute), then `mcpload tasks`: its create
# phase (`tools/call job`, answered with a task) and its get phase (`tasks/get` of those tasks,
# round-robin), each a closed loop of C connections for S seconds after a warm-up. Then, on
# another fresh server (and Redis): an echo warm-up and 100 warm-up tasks, the server's VmRSS
# and Redis's used_memory, exactly N (10,000) tasks made and polled until all are completed
# (kept for their ttl, an hour), and the two again: the growth per task.
#
# Store `memory`: bench_server as it is. Store `redis`: bench_server --redis on a redis-server
# this script starts on a free port (no persistence) and stops. The server and Redis run on
# CPU 1, mcpload on CPU 0. Results under target/bench-results/tasks-<timestamp>/ (runs.jsonl,
# memory.jsonl, meta.txt, report.md). bench_server and mcpload are built with the release-lto
# profile (scripts/bench_lib.sh).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
PHASE=5
WARMUP=1
CONCURRENCY=32
REPEAT=1
STORES="memory redis"
COUNT=10000
WARM_TASKS=100

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) PHASE="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --concurrency) CONCURRENCY="$2"; shift 2 ;;
    --repeat) REPEAT="$2"; shift 2 ;;
    --stores) STORES="$2"; shift 2 ;;
    --count) COUNT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
for store in $STORES; do
  case "$store" in memory|redis) ;; *) echo "unknown store $store (memory, redis)" >&2; exit 2 ;; esac
done

OUT="$ROOT/target/bench-results/tasks-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT"

log "building ($BENCH_PROFILE, or reusing): mcpload, bench_server (feature redis)"
build_mcpload
build_mcp --features redis
[[ " $STORES " == *" redis "* ]] && require_redis "the redis store"

# serve STORE: a fresh bench_server (and, for redis, a fresh redis-server); sets URL, SERVER_PID,
# REDIS_PORT and REDIS_PID.
serve() {
  REDIS_PORT=""
  REDIS_PID=""
  local args=()
  if [ "$1" = redis ]; then
    # Redis first: a port is free only until something listens on it.
    start_redis "$OUT/redis.log"
    args=(--redis "redis://127.0.0.1:$REDIS_PORT")
  fi
  local port
  port="$(free_port)"
  URL="http://127.0.0.1:$port/mcp"
  start "$OUT/$1.server.log" "$OURS" --port "$port" "${args[@]}"
  SERVER_PID=$STARTED
  ready "$URL"
}

redis_used() {
  if [ -n "$REDIS_PORT" ]; then
    redis-cli -p "$REDIS_PORT" info memory | tr -d '\r' | awk -F: '/^used_memory:/ { print $2 }'
  else
    echo null
  fi
}

{
  echo "date: $(date -Iseconds)"
  echo "command: scripts/bench_tasks.sh --repeat $REPEAT --seconds $PHASE --concurrency $CONCURRENCY --warmup $WARMUP --stores \"$STORES\" --count $COUNT"
  bench_meta
  command -v redis-server >/dev/null && echo "redis: $(redis-server --version)"
  echo "loadavg at start: $(loadavg)"
} >"$OUT/meta.txt"
log "results in $OUT (load average $(loadavg))"

RUN_LIMIT=$(awk -v w="$WARMUP" -v d="$PHASE" 'BEGIN { printf "%d", 2 * (w + d) + 90 }')
for round in $(seq 1 "$REPEAT"); do
  order="$(round_order "$round" "$STORES")"
  for store in $order; do
    serve "$store"
    pids=(--server-pid "$SERVER_PID")
    [ -n "$REDIS_PID" ] && pids+=(--redis-pid "$REDIS_PID")
    before="$(loadavg)"
    echo_line="$(timeout "$RUN_LIMIT" "${LOADGEN_ON[@]}" "$LOADGEN" run --url "$URL" --scenario echo \
      --conc "$CONCURRENCY" --warmup "$WARMUP" --duration "$PHASE" --server-pid "$SERVER_PID" 2>>"$OUT/mcpload.log")" || {
      echo "mcpload run (echo) failed for $store (see $OUT/mcpload.log)" >&2
      exit 1
    }
    line="$(timeout "$RUN_LIMIT" "${LOADGEN_ON[@]}" "$LOADGEN" tasks --url "$URL" --peer "$store" \
      --concurrency "$CONCURRENCY" --seconds "$PHASE" --warmup "$WARMUP" "${pids[@]}" 2>>"$OUT/mcpload.log")" || {
      echo "mcpload tasks failed for $store (see $OUT/mcpload.log)" >&2
      tail -n 5 "$OUT/mcpload.log" >&2
      exit 1
    }
    jq -c --arg l "$before" --argjson r "$round" --argjson echo "$echo_line" \
      '. + {round: $r, loadavg_before: $l, echo: $echo}' <<<"$line" >>"$OUT/runs.jsonl"
    jq -r '"   \(.peer) echo: \(.echo.ops_per_s) calls/s, server \(.echo.server_cpu_us_per_op) µs/op"' \
      <<<"$(tail -n 1 "$OUT/runs.jsonl")" >&2
    tail -n 1 "$OUT/mcpload.log" >&2
    cleanup

    # Memory: what COUNT finished tasks hold, on a server warmed up with echo calls and a few tasks.
    serve "$store"
    "${LOADGEN_ON[@]}" "$LOADGEN" run --url "$URL" --scenario echo --conc "$CONCURRENCY" --warmup 0 --duration 1 >/dev/null
    "${LOADGEN_ON[@]}" "$LOADGEN" tasks --url "$URL" --concurrency "$CONCURRENCY" --count "$WARM_TASKS" >/dev/null
    sleep 0.2
    rss_before="$(proc_status "$SERVER_PID" VmRSS)"
    used_before="$(redis_used)"
    made="$(timeout 330 "${LOADGEN_ON[@]}" "$LOADGEN" tasks --url "$URL" --peer "$store" --concurrency "$CONCURRENCY" \
      --count "$COUNT" 2>>"$OUT/mcpload.log")" || {
      echo "mcpload tasks --count failed for $store (see $OUT/mcpload.log)" >&2
      exit 1
    }
    sleep 0.2
    rss_after="$(proc_status "$SERVER_PID" VmRSS)"
    used_after="$(redis_used)"
    jq -c --arg store "$store" --argjson r "$round" --argjson n "$COUNT" \
      --argjson rb "$rss_before" --argjson ra "$rss_after" --argjson ub "$used_before" --argjson ua "$used_after" \
      '{store: $store, round: $r, tasks: $n, made: ., server_rss_before_kb: $rb, server_rss_after_kb: $ra,
        server_rss_bytes_per_task: ((($ra - $rb) * 1024 / $n) | round),
        redis_used_before: $ub, redis_used_after: $ua,
        redis_bytes_per_task: (if $ub == null then null else (($ua - $ub) / $n | round) end)}' \
      <<<"$made" >>"$OUT/memory.jsonl"
    jq -r '"   \(.store) memory: \(.tasks) finished tasks, server RSS +\(.server_rss_bytes_per_task) B/task, Redis used_memory +\(.redis_bytes_per_task) B/task"' \
      <<<"$(tail -n 1 "$OUT/memory.jsonl")" >&2
    cleanup
  done
done

echo "loadavg at end: $(loadavg)" >>"$OUT/meta.txt"
python3 - "$OUT" <<'EOF' | tee "$OUT/report.md"
import json, statistics, sys
from collections import defaultdict

out = sys.argv[1]
runs = [json.loads(line) for line in open(f"{out}/runs.jsonl")]
memory = [json.loads(line) for line in open(f"{out}/memory.jsonl")]
by = defaultdict(list)
for run in runs:
    by[run["peer"]].append(run)
mem = defaultdict(list)
for m in memory:
    mem[m["store"]].append(m)

def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None

def num(value, digits=0):
    return "–" if value is None else f"{value:,.{digits}f}"

print(open(f"{out}/meta.txt").read().strip().replace("\n", "  \n"))
print()
print("| store | conc | creates/s | create p50 ms | create p99 ms | gets/s | get p50 ms | get p99 ms "
      "| server CPU µs/create | server CPU µs/get | Redis CPU µs/create | Redis CPU µs/get "
      "| server RSS B/finished task | Redis B/finished task | rounds |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
stores = [s for s in ("memory", "redis") if s in by]
for store in stores:
    rs = by[store]
    c = lambda k: med(r["create"][k] for r in rs)
    g = lambda k: med(r["get"][k] for r in rs)
    ms = mem.get(store, [])
    print(f"| {store} | {rs[0]['concurrency']} | {num(c('ops_per_s'))} | {num(c('p50_ms'), 2)} | {num(c('p99_ms'), 2)} "
          f"| {num(g('ops_per_s'))} | {num(g('p50_ms'), 2)} | {num(g('p99_ms'), 2)} "
          f"| {num(c('server_cpu_us_per_op'), 1)} | {num(g('server_cpu_us_per_op'), 1)} "
          f"| {num(c('redis_cpu_us_per_op'), 1)} | {num(g('redis_cpu_us_per_op'), 1)} "
          f"| {num(med(m['server_rss_bytes_per_task'] for m in ms))} | {num(med(m['redis_bytes_per_task'] for m in ms))} "
          f"| {len(rs)} |")
print()
print("Against echo on the same server, just before (medians of the per-run ratios; CPU is the server's, "
      "plus Redis's for the redis store):")
print()
print("| store | echo calls/s | echo server CPU µs/op | CPU per create / echo | CPU per get / echo | creates/s / echo calls/s |")
print("|---|---:|---:|---:|---:|---:|")
def cpu(phase):
    return (phase["server_cpu_us_per_op"] or 0) + (phase["redis_cpu_us_per_op"] or 0)
for store in stores:
    rs = by[store]
    e = lambda k: med(r["echo"][k] for r in rs)
    print(f"| {store} | {num(e('ops_per_s'))} | {num(e('server_cpu_us_per_op'), 1)} "
          f"| {med(cpu(r['create']) / r['echo']['server_cpu_us_per_op'] for r in rs):.2f} "
          f"| {med(cpu(r['get']) / r['echo']['server_cpu_us_per_op'] for r in rs):.2f} "
          f"| {med(r['create']['ops_per_s'] / r['echo']['ops_per_s'] for r in rs):.2f} |")
print()
print("Per run (creates/s, gets/s; server CPU use over the measured window; load average before):")
print()
for run in runs:
    print(f"- round {run['round']}, {run['peer']}: echo {num(run['echo']['ops_per_s'])} calls/s "
          f"(server CPU {run['echo']['server_cpu_util']}), {num(run['create']['ops_per_s'])} creates/s "
          f"(server CPU {run['create']['server_cpu_util']}), {num(run['get']['ops_per_s'])} gets/s over "
          f"{run['tasks_made']:,} tasks (server CPU {run['get']['server_cpu_util']}), "
          f"loadgen CPU {run['create']['loadgen_cpu_util']}/{run['get']['loadgen_cpu_util']}, load {run['loadavg_before']}")
EOF
exit_on_run_errors
