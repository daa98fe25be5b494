#!/usr/bin/env bash
# Where the CPU of one echo and of one two-round exchange goes, ours against the floor's, at
# c=32 (the load benchmark's setup: server on CPU 1, mcpload on CPU 0): the handler (for us the
# whole MCP layer: parsing, the gate, routing, sealing, the tool; for the floor its typed JSON in
# and out), the rest of user space (hyper, axum, tokio, malloc: the transport), the kernel, and
# of the kernel's part the wake-ups of the load generator (scripts/bench_split.py). It says how
# far a server can get from the floor by making its MCP layer cheaper alone: the transport and
# kernel parts are the same code as the floor's.
#
#   scripts/bench_split.sh [--seconds N] [--repeat N] [--out DIR]
#
# With --repeat, the four runs are made N times, alternated, and the table has the medians.
#
# Needs `perf` (apt-get install linux-perf) and frame pointers for the call stacks: both servers
# are built with `release-lto` and `-C force-frame-pointers=yes` into target/bench-fp*, not the
# binaries the load benchmark measures (frame pointers cost them a little). CPU per operation
# comes from /proc/PID/stat over the whole run; perf samples its middle.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
cd "$ROOT"
seconds=10
repeat=1
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--seconds N] [--repeat N] [--out DIR]" >&2; exit 2 ;;
  esac
done
command -v perf >/dev/null || { echo "needs perf (apt-get install linux-perf)" >&2; exit 1; }
out=${out:-target/bench-results/split-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
build_mcpload
export RUSTFLAGS="-C force-frame-pointers=yes"
cargo build --quiet --profile "$BENCH_PROFILE" --locked -p mcp-bench-server --bin bench_server --target-dir target/bench-fp
cargo build --quiet --profile "$BENCH_PROFILE" --locked \
  --manifest-path benches/peers/floor/Cargo.toml --target-dir target/bench-fp-floor
unset RUSTFLAGS
bench_meta > "$out/meta.txt"
echo "build: frame pointers (-C force-frame-pointers=yes)" >> "$out/meta.txt"

# run ROUND NAME BINARY SCENARIO HANDLER_REGEX: one row of the table.
run() {
  local round=$1 name=$2 binary=$3 scenario=$4 handler=$5 port url pid before after ops
  port=$(free_port)
  url=http://127.0.0.1:$port/mcp
  start "$out/$name.log" "$binary" --port "$port"
  pid=$STARTED
  ready "$url"
  "${LOADGEN_ON[@]}" "$LOADGEN" run --url "$url" --scenario "$scenario" --conc 32 --warmup 0 --duration 1 >/dev/null
  before=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  "${LOADGEN_ON[@]}" "$LOADGEN" run --url "$url" --scenario "$scenario" --conc 32 --warmup 0 \
    --duration "$seconds" >"$out/$name-$scenario.json" &
  local load=$!
  sleep $((seconds / 4))
  perf record -q -e cpu-clock -F 2999 -g -p "$pid" -o "$out/$name-$scenario.perf" \
    -- sleep $((seconds / 2)) >/dev/null 2>&1
  wait "$load"
  after=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  ops=$(jq .ops "$out/$name-$scenario.json")
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  local cpu_us
  cpu_us=$(awk -v t=$((after - before)) -v ops="$ops" -v hz="$(getconf CLK_TCK)" 'BEGIN { print t * 1e6 / hz / ops }')
  scripts/bench_split.py "$out/$name-$scenario.perf" "$cpu_us" "$handler" \
    | jq -c --arg peer "$name" --arg scenario "$scenario" --argjson round "$round" \
      '{peer: $peer, scenario: $scenario, round: $round} + .' \
    | tee -a "$out/split.jsonl"
}

# The application's handler, as the stacks name it: axum's call of the POST handler (the
# floor's), or the endpoint's own, which `HttpTransport::serve` calls without the router (ours).
handler='axum::handler::Handler<.*>>::call::\{\{closure|endpoint::post_direct::\{\{closure'
for round in $(seq "$repeat"); do
  for scenario in echo mrtr; do
    run "$round" mcp "target/bench-fp/$BENCH_PROFILE/bench_server" "$scenario" "$handler"
    run "$round" floor "target/bench-fp-floor/$BENCH_PROFILE/floor-peer" "$scenario" "$handler"
  done
done
echo
echo "medians of $repeat round(s), µs of CPU per operation"
printf '%-6s %-5s %9s %9s %9s %9s %9s\n' peer op cpu handler transport kernel "(wakes)"
jq -rs '
  def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  group_by([.peer, .scenario]) | sort_by(.[0].scenario) | .[]
  | [.[0].peer, .[0].scenario]
    + [ (map(.cpu_us) | median), (map(.handler_us) | median), (map(.user_us) | median),
        (map(.kernel_us) | median), (map(.wake_us) | median) ]
  | @tsv' "$out/split.jsonl" \
  | awk -F'\t' '{ printf "%-6s %-5s %9.2f %9.2f %9.2f %9.2f %9.2f\n", $1, $2, $3, $4, $5, $6, $7 }' | tee "$out/split.txt"
echo "report: $out"
