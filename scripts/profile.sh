#!/usr/bin/env bash
# Instructions per operation under callgrind, which a busy machine does not change: an echo
# and a two-round MRTR exchange, served over HTTP (`bench_server`, driven by
# `profile_driver.py` on one keep-alive connection) and in process (`profile_exchange`, line
# in and line out); and a seal + open of a requestState with every claim, in process. Prints
# the Ir per op and the top functions (inclusive and exclusive) per op, and keeps the
# callgrind files under DIR (default target/profile) for `callgrind_annotate`.
# Then it serves the same operations again, from bench_server and from the floor peer
# (benches/peers/floor), under callgrind with the call stacks kept (--separate-callers), splits
# each one's instructions into buckets (transport, MCP routing + JSON, gate, sealing, resolve,
# handler: scripts/profile_buckets.py), writes DIR/buckets.json and draws them as stacked bars
# (DIR/profile-buckets.svg; with --charts also benches/charts/profile-buckets.svg).
#
#   scripts/profile.sh [--ops N] [--out DIR] [--charts]
#
# Over HTTP the server's counters are zeroed after a warm-up and dumped after exactly N ops;
# in process two runs of N and 2N ops are subtracted, so start-up cancels out. valgrind runs
# AES-NI but not SHA-NI, so SHA-256 (the binding's and the principal's digests) weighs more
# here than natively.
#
# Both servers are plain `release` builds (with line tables), not the `release-lto` builds the
# load benchmarks measure (scripts/bench_lib.sh): the instruction counts stay comparable with
# those of earlier sessions, and fat LTO inlines across crates, which would blur the buckets
# (they are split by function).
set -euo pipefail
cd "$(dirname "$0")/.."
ops=400
out=target/profile
charts=0
while [ $# -gt 0 ]; do
  case "$1" in
    --ops) ops=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --charts) charts=1; shift ;;
    *) echo "usage: $0 [--ops N] [--out DIR] [--charts]" >&2; exit 2 ;;
  esac
done
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }
# Its own target dir: a build with line tables is bigger in memory, and must never be the one
# the load benchmark (scripts/bench_peers.sh) measures.
target=${CARGO_TARGET_DIR:-target/profile-build}
export CARGO_TARGET_DIR=$target
# Two builds: one that selected both packages would give bench_server the features the
# examples get from the dev-dependencies.
export CARGO_PROFILE_RELEASE_DEBUG=line-tables-only
cargo build --release -p mcp-bench-server --bin bench_server
cargo build --release --example profile_exchange
unset CARGO_PROFILE_RELEASE_DEBUG
cargo build --release --locked --manifest-path benches/peers/floor/Cargo.toml --target-dir target/bench-floor
floor=target/bench-floor/release/floor-peer
mkdir -p "$out"
rm -f "$out"/*.out*

echo "== in process (profile_exchange)"
for scenario in echo mrtr seal; do
  for n in "$ops" $((2 * ops)); do
    valgrind --tool=callgrind --callgrind-out-file="$out/mem-$scenario-$n.out" \
      "$target/release/examples/profile_exchange" "$scenario" "$n" 2>/dev/null
  done
  echo "-- $scenario"
  scripts/profile_top.py "$ops" "$out/mem-$scenario-$ops.out" "$out/mem-$scenario-$((2 * ops)).out" \
    | tee "$out/mem-$scenario.txt"
done

server=""
trap 'if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi' EXIT

# serve NAME [VALGRIND OPTION...] -- COMMAND...: runs COMMAND --port P under callgrind and leaves
# $out/NAME-echo.out and $out/NAME-mrtr.out, each exactly $ops operations after a warm-up.
serve() {
  local name=$1 port url dump scenario
  shift
  local options=()
  while [ "$1" != "--" ]; do options+=("$1"); shift; done
  shift
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  url=http://127.0.0.1:$port/mcp
  RUST_LOG=warn valgrind --tool=callgrind "${options[@]}" --callgrind-out-file="$out/$name.out" \
    "$@" --port "$port" 2>"$out/$name-valgrind.log" &
  server=$!
  for _ in $(seq 1 300); do
    scripts/profile_driver.py "$url" echo 1 2>/dev/null && break
    sleep 0.2
  done
  for scenario in echo mrtr; do
    scripts/profile_driver.py "$url" "$scenario" 50   # warm-up: pools, allocator, caches
    callgrind_control -z "$server" >/dev/null
    scripts/profile_driver.py "$url" "$scenario" "$ops"
    callgrind_control --dump="$scenario" "$server" >/dev/null
    dump=$(ls -t "$out/$name".out.* | head -1)
    mv "$dump" "$out/$name-$scenario.out"
  done
  kill "$server"
  wait "$server" 2>/dev/null || true
  server=""
}

echo "== over HTTP (bench_server)"
serve http -- "$target/release/bench_server"
for scenario in echo mrtr; do
  echo "-- $scenario"
  scripts/profile_top.py "$ops" "$out/http-$scenario.out" | tee "$out/http-$scenario.txt"
done

# Deep enough for the whole stack of a tool function under tokio, hyper and the runtime.
stacks=(--separate-callers=80)
echo "== buckets: bench_server and the floor, with call stacks"
serve stacks-mcp "${stacks[@]}" -- "$target/release/bench_server"
serve stacks-floor "${stacks[@]}" -- "$floor"
scripts/profile_buckets.py "$ops" "$out/buckets.json" \
  "mcp:echo:$out/stacks-mcp-echo.out" "floor:echo:$out/stacks-floor-echo.out" \
  "mcp:mrtr:$out/stacks-mcp-mrtr.out" "floor:mrtr:$out/stacks-floor-mrtr.out" | tee "$out/buckets.txt"
python3 scripts/bench_charts.py buckets "$out/buckets.json"
if [ "$charts" = 1 ]; then
  python3 scripts/bench_charts.py buckets "$out/buckets.json" --out benches/charts
fi
