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
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
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

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; }
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
LOADGEN="$ROOT/target/bench-load/release/mcpload"
RMCP_PEER="$ROOT/target/bench-rmcp/release/rmcp-peer"
FLOOR_PEER="$ROOT/target/bench-floor/release/floor-peer"
OURS="$ROOT/target/release/examples/bench_server"
PYTHON="$ROOT/.venv/bin/python"

SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { echo "== $*" >&2; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# ---- build -------------------------------------------------------------------------------------
log "building (release): mcpload, bench_server, peers: $PEERS"
cargo build --quiet --release --locked --manifest-path "$ROOT/benches/load/Cargo.toml" --target-dir "$ROOT/target/bench-load"
for peer in $PEERS; do
  case "$peer" in
    mcp) (cd "$ROOT" && cargo build --quiet --release --locked --example bench_server) ;;
    rmcp) cargo build --quiet --release --locked --manifest-path "$ROOT/benches/peers/rmcp/Cargo.toml" --target-dir "$ROOT/target/bench-rmcp" ;;
    py) "$ROOT/scripts/python-venv.sh" >&2 ;;
    floor) cargo build --quiet --release --locked --manifest-path "$ROOT/benches/peers/floor/Cargo.toml" --target-dir "$ROOT/target/bench-floor" ;;
  esac
done

# ---- pinning: server on CPU 1, load generator on CPU 0 ------------------------------------------
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
  SERVER_ON=(taskset -c 1)
  LOADGEN_ON=(taskset -c 0)
else
  log "WARNING: fewer than 2 CPUs or no taskset: server and load generator are not pinned"
  SERVER_ON=()
  LOADGEN_ON=()
fi

free_port() {
  local port
  for port in $(seq 18600 18699); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
  echo "no free port in 18600-18699" >&2
  return 1
}

proc_status() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

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
  echo "git: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- . 2>/dev/null || echo ' (dirty)')"
  echo "kernel: $(uname -sr), cpus: $(nproc), model: $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
  echo "rustc: $(rustc --version)"
  [[ " $PEERS " == *" py "* ]] && echo "python: $("$PYTHON" --version 2>&1), mcp $("$PYTHON" -c 'import importlib.metadata as m; print(m.version("mcp"), "uvicorn", m.version("uvicorn"))')"
  echo "loadavg at start: $(loadavg)"
} > "$OUT/meta.txt"
log "results in $OUT (load average $(loadavg))"

# ---- the runs ----------------------------------------------------------------------------------
RUN_LIMIT=$(awk -v w="$WARMUP" -v d="$DURATION" 'BEGIN { printf "%d", w + d + 60 }')
for round in $(seq 1 "$REPEAT"); do
# Even rounds take the peers in reverse order, so a drift in the machine's speed during the
# invocation does not always favour the same peer.
order="$PEERS"
if [ $((round % 2)) -eq 0 ]; then
  order="$(tr ' ' '\n' <<<"$PEERS" | grep . | tac | tr '\n' ' ')"
fi
log "round $round of $REPEAT: $order"
for peer in $order; do
  port="$(free_port)"
  url="http://127.0.0.1:$port/mcp"
  read -r -a cmd <<<"$(server_command "$peer" "$port")"
  log "$peer: ${cmd[*]}"
  spawned="$EPOCHREALTIME"
  "${SERVER_ON[@]}" "${cmd[@]}" >>"$OUT/$peer.server.log" 2>&1 &
  SERVER_PID=$!
  ready="$("${LOADGEN_ON[@]}" "$LOADGEN" wait --url "$url" --timeout 60 --server-pid "$SERVER_PID")"
  ready_ns="$(jq -r .ready_unix_ns <<<"$ready")"
  spawned_ns="${spawned/./}000"
  startup_ms="$(awk -v a="$spawned_ns" -v b="$ready_ns" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')"
  idle_rss_kb="$(proc_status "$SERVER_PID" VmRSS)"
  log "$peer: first echo answered $startup_ms ms after spawn; idle RSS $idle_rss_kb kB"
  for scenario in $SCENARIOS; do
    for conc in $CONCS; do
      before="$(loadavg)"
      line="$(timeout "$RUN_LIMIT" "${LOADGEN_ON[@]}" "$LOADGEN" run --url "$url" --peer "$peer" \
        --scenario "$scenario" --conc "$conc" --warmup "$WARMUP" --duration "$DURATION" \
        --server-pid "$SERVER_PID" 2>>"$OUT/mcpload.log")" || {
        echo "mcpload failed for $peer $scenario c=$conc (see $OUT/mcpload.log)" >&2
        tail -n 5 "$OUT/mcpload.log" >&2
        exit 1
      }
      jq -c --arg l "$before" --argjson r "$round" '. + {round: $r, loadavg_before: $l}' <<<"$line" >>"$OUT/runs.jsonl"
      jq -r '"   \(.peer) \(.scenario) c=\(.conc): \(.ops_per_s) ops/s, p50 \(.p50_ms) ms, p99 \(.p99_ms) ms, errors \(.errors), server CPU \(.server_cpu_us_per_op) µs/op"' <<<"$line" >&2
    done
  done
  jq -n -c --arg peer "$peer" --argjson round "$round" --argjson startup "$startup_ms" --argjson idle "$idle_rss_kb" \
    --argjson peak "$(proc_status "$SERVER_PID" VmHWM)" --argjson threads "$(proc_status "$SERVER_PID" Threads)" \
    --arg cmd "${cmd[*]}" \
    '{peer: $peer, round: $round, command: $cmd, startup_ms: $startup, idle_rss_kb: $idle, peak_rss_kb: $peak, threads_at_end: $threads}' \
    >>"$OUT/servers.jsonl"
  cleanup
  SERVER_PID=""
done
done

echo "loadavg at end: $(loadavg)" >>"$OUT/meta.txt"
python3 "$ROOT/scripts/bench_report.py" "$OUT" | tee "$OUT/report.md"
python3 "$ROOT/scripts/bench_charts.py" load "$OUT" --out "$OUT/charts" >&2
if [ "$CHARTS" = 1 ]; then
  python3 "$ROOT/scripts/bench_charts.py" load "$OUT" --out "$ROOT/benches/charts" >&2
fi
errors="$(jq -s 'map(.errors) | add' "$OUT/runs.jsonl")"
if [ "$errors" != "0" ]; then
  echo "$errors errors in the runs (see $OUT/mcpload.log)" >&2
  exit 1
fi
