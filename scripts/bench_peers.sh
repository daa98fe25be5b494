#!/usr/bin/env bash
# The load benchmark (BENCHMARKS.md): our bench_server, the rmcp 3.11.0 peer, the Python SDK
# 2.3.0 peer and the floor (bare axum + serde_json, no MCP), one after the other in this one
# invocation, each pinned to CPU 1 with mcpload on CPU 0. Per peer: startup to first answered
# echo, then echo and mrtr at concurrency 1 and 32 (warm-up run + measured run each), server CPU
# per op, peak RSS. Prints the tables and the ratios, keeps everything under
# target/bench-results/<timestamp>/, and draws the charts there (charts/*.svg).
#
#   scripts/bench_peers.sh [--duration SECS] [--warmup SECS] [--peers "mcp rmcp py floor"]
#                          [--repeat N] [--concs "1 32"] [--sweep] [--charts]
#
# --repeat N runs the whole round (every peer, every run, servers restarted) N times back to
# back, even rounds in reverse peer order; the report then gives medians, with the min-max of
# ops/s. --concs sets the concurrencies; --sweep is --concs "1 2 4 8 16 32 64 128 256" with
# 1 s of warm-up and 4 s per run unless --warmup/--duration say otherwise (4 peers: about 7
# min). --charts also writes the charts into benches/charts/, the ones BENCHMARKS.md shows.
#
# Every Rust binary is built with the release-lto profile (scripts/bench_lib.sh).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
PORT_FIRST=18600
DURATION=10
WARMUP=2
PEERS="mcp rmcp py floor"
REPEAT=1
SCENARIOS="echo mrtr"
CONCS="1 32"
SWEEP_CONCS="1 2 4 8 16 32 64 128 256"
SWEEP=0
CHARTS=0
DURATION_SET=0
WARMUP_SET=0

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION="$2"; DURATION_SET=1; shift 2 ;;
    --warmup) WARMUP="$2"; WARMUP_SET=1; shift 2 ;;
    --peers) PEERS="$2"; shift 2 ;;
    --repeat) REPEAT="$2"; shift 2 ;;
    --concs) CONCS="$2"; shift 2 ;;
    --sweep) SWEEP=1; shift ;;
    --charts) CHARTS=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
for peer in $PEERS; do
  case "$peer" in mcp|rmcp|py|floor) ;; *) echo "unknown peer $peer (mcp, rmcp, py, floor)" >&2; exit 2 ;; esac
done
if [ "$SWEEP" = 1 ]; then
  CONCS="$SWEEP_CONCS"
  [ "$DURATION_SET" = 1 ] || DURATION=4
  [ "$WARMUP_SET" = 1 ] || WARMUP=1
fi
for conc in $CONCS; do
  [[ "$conc" =~ ^[1-9][0-9]*$ ]] || { echo "--concs takes positive integers, not $conc" >&2; exit 2; }
done
if [ "$CHARTS" = 1 ] && [ "$(wc -w <<<"$CONCS")" -lt 3 ]; then
  echo "--charts redraws the committed charts from only \"$CONCS\"; they are meant for --sweep" >&2
fi

OUT="$ROOT/target/bench-results/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT"

# ---- build -------------------------------------------------------------------------------------
log "building ($BENCH_PROFILE): mcpload, peers: $PEERS"
build_mcpload
for peer in $PEERS; do
  "build_$peer"
done

server_command() {
  case "$1" in
    mcp) echo "$OURS --port $2" ;;
    rmcp) echo "$RMCP_PEER --port $2" ;;
    py) echo "$PYTHON $ROOT/benches/peers/python/server.py --port $2" ;;
    floor) echo "$FLOOR_PEER --port $2" ;;
  esac
}

# ---- what ran, where ---------------------------------------------------------------------------
{
  echo "date: $(date -Iseconds)"
  echo "command: scripts/bench_peers.sh --duration $DURATION --warmup $WARMUP --peers \"$PEERS\" --repeat $REPEAT --concs \"$CONCS\""
  bench_meta
  [[ " $PEERS " == *" py "* ]] && echo "python: $("$PYTHON" --version 2>&1), mcp $("$PYTHON" -c 'import importlib.metadata as m; print(m.version("mcp"), "uvicorn", m.version("uvicorn"))')"
  echo "loadavg at start: $(loadavg)"
} > "$OUT/meta.txt"
log "results in $OUT (load average $(loadavg))"

# ---- the runs ----------------------------------------------------------------------------------
for round in $(seq 1 "$REPEAT"); do
order="$(round_order "$round" "$PEERS")"
log "round $round of $REPEAT: $order"
for peer in $order; do
  port="$(free_port)"
  url="http://127.0.0.1:$port/mcp"
  read -r -a cmd <<<"$(server_command "$peer" "$port")"
  log "$peer: ${cmd[*]}"
  spawned="$EPOCHREALTIME"
  start "$OUT/$peer.server.log" "${cmd[@]}"
  SERVER_PID=$STARTED
  ready="$("${LOADGEN_ON[@]}" "$LOADGEN" wait --url "$url" --timeout 60 --server-pid "$SERVER_PID")"
  ready_ns="$(jq -r .ready_unix_ns <<<"$ready")"
  spawned_ns="${spawned/./}000"
  startup_ms="$(awk -v a="$spawned_ns" -v b="$ready_ns" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')"
  idle_rss_kb="$(proc_status "$SERVER_PID" VmRSS)"
  log "$peer: first echo answered $startup_ms ms after spawn; idle RSS $idle_rss_kb kB"
  for scenario in $SCENARIOS; do
    for conc in $CONCS; do
      measure "$peer" "$url" "$scenario" "$conc" "$round"
    done
  done
  jq -n -c --arg peer "$peer" --argjson round "$round" --argjson startup "$startup_ms" --argjson idle "$idle_rss_kb" \
    --argjson peak "$(proc_status "$SERVER_PID" VmHWM)" --argjson threads "$(proc_status "$SERVER_PID" Threads)" \
    --argjson anon "$(proc_status "$SERVER_PID" RssAnon)" --argjson file "$(proc_status "$SERVER_PID" RssFile)" \
    --arg cmd "${cmd[*]}" \
    '{peer: $peer, round: $round, command: $cmd, startup_ms: $startup, idle_rss_kb: $idle, peak_rss_kb: $peak,
      anon_rss_kb_at_end: $anon, file_rss_kb_at_end: $file, threads_at_end: $threads}' \
    >>"$OUT/servers.jsonl"
  cleanup
done
done

echo "loadavg at end: $(loadavg)" >>"$OUT/meta.txt"
python3 "$ROOT/scripts/bench_report.py" "$OUT" | tee "$OUT/report.md"
python3 "$ROOT/scripts/bench_charts.py" load "$OUT" --out "$OUT/charts" >&2
if [ "$CHARTS" = 1 ]; then
  python3 "$ROOT/scripts/bench_charts.py" load "$OUT" --out "$ROOT/benches/charts" >&2
fi
exit_on_run_errors
