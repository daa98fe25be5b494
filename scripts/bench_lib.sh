# shellcheck shell=bash disable=SC2034 # its variables are for the scripts that source it
# What the load benchmarks (bench_peers.sh, bench_oauth.sh, bench_tasks.sh, bench_fanout.sh)
# share, sourced by each after `set -euo pipefail`: where the binaries are and how they are
# built, the pinning (servers on CPU 1, mcpload on CPU 0), free ports, starting and stopping
# servers (and Redis), and the lines of meta.txt that say what was built.
#
# Every Rust peer (bench_server and bench_server_auth, rmcp, the floor) and mcpload, which
# bounds the floor at c=32, is built alike with the `release-lto` profile (fat LTO, one codegen
# unit), defined in each of their Cargo.toml: users build their servers with their own profile,
# so the comparison takes one optimized profile for all. scripts/profile.sh (callgrind) and
# scripts/soak.sh keep their plain release builds.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PATH="$PATH:/usr/sbin"
BENCH_PROFILE=release-lto
LOADGEN="$ROOT/target/bench-load/$BENCH_PROFILE/mcpload"
OURS="$ROOT/target/$BENCH_PROFILE/bench_server"
# The same server behind access tokens (bench_oauth.sh), a binary of its own.
OURS_AUTH="$ROOT/target/$BENCH_PROFILE/bench_server_auth"
RMCP_PEER="$ROOT/target/bench-rmcp/$BENCH_PROFILE/rmcp-peer"
FLOOR_PEER="$ROOT/target/bench-floor/$BENCH_PROFILE/floor-peer"
PYTHON="$ROOT/.venv/bin/python"
# The first of the 100 ports free_port tries.
PORT_FIRST=18700

log() { echo "== $*" >&2; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# ---- the profile -------------------------------------------------------------------------------
# profile_settings MANIFEST: the settings of [profile.release-lto] in MANIFEST, as
# "lto=fat, codegen-units=1" (without `inherits`).
profile_settings() {
  awk -v section="[profile.$BENCH_PROFILE]" '
    /^\[/ { inside = ($0 == section); next }
    inside && /=/ && $1 != "inherits" && $1 !~ /^#/ { gsub(/[" ]/, ""); out = out (out == "" ? "" : ", ") $0 }
    END { print out }' "$1"
}
# Each peer is its own workspace with its own copy of the profile; a peer built differently from
# the others would make the comparison unfair, so they must agree.
BENCH_PROFILE_SETTINGS="$(profile_settings "$ROOT/Cargo.toml")"
for manifest in benches/load benches/peers/rmcp benches/peers/floor; do
  if [ "$(profile_settings "$ROOT/$manifest/Cargo.toml")" != "$BENCH_PROFILE_SETTINGS" ]; then
    echo "[profile.$BENCH_PROFILE] of $manifest/Cargo.toml differs from the root Cargo.toml's ($BENCH_PROFILE_SETTINGS)" >&2
    exit 1
  fi
done
if [ -z "$BENCH_PROFILE_SETTINGS" ]; then
  echo "no [profile.$BENCH_PROFILE] in $ROOT/Cargo.toml" >&2
  exit 1
fi

# ---- building: one function per peer, each a no-op when its binary is up to date ------------------
build_mcpload() {
  cargo build --quiet --profile "$BENCH_PROFILE" --locked \
    --manifest-path "$ROOT/benches/load/Cargo.toml" --target-dir "$ROOT/target/bench-load"
}
# build_bench_bin BIN [CARGO ARGS]: a binary of benches/server (`mcp` with its default features).
build_bench_bin() {
  cargo build --quiet --profile "$BENCH_PROFILE" --locked \
    --manifest-path "$ROOT/Cargo.toml" --target-dir "$ROOT/target" -p mcp-bench-server --bin "$@"
}
# build_mcp [CARGO ARGS]: bench_server, e.g. `build_mcp --features redis`.
# shellcheck disable=SC2120 # the arguments are optional
build_mcp() { build_bench_bin bench_server "$@"; }
build_mcp_auth() { build_bench_bin bench_server_auth --features auth; }
build_rmcp() {
  cargo build --quiet --profile "$BENCH_PROFILE" --locked \
    --manifest-path "$ROOT/benches/peers/rmcp/Cargo.toml" --target-dir "$ROOT/target/bench-rmcp"
}
build_floor() {
  cargo build --quiet --profile "$BENCH_PROFILE" --locked \
    --manifest-path "$ROOT/benches/peers/floor/Cargo.toml" --target-dir "$ROOT/target/bench-floor"
}
build_py() { "$ROOT/scripts/python-venv.sh" >&2; }

# bench_meta: the lines of meta.txt about the checkout, the machine and the build.
bench_meta() {
  echo "git: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- . 2>/dev/null || echo ' (dirty)')"
  echo "kernel: $(uname -sr), cpus: $(nproc), model: $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
  echo "rustc: $(rustc --version)"
  echo "profile: $BENCH_PROFILE ($BENCH_PROFILE_SETTINGS)"
}

# ---- pinning: servers on CPU 1, load generator on CPU 0 -----------------------------------------
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
  SERVER_ON=(taskset -c 1)
  LOADGEN_ON=(taskset -c 0)
else
  log "WARNING: fewer than 2 CPUs or no taskset: servers and load generator are not pinned"
  SERVER_ON=()
  LOADGEN_ON=()
fi

free_port() {
  local port
  for port in $(seq "$PORT_FIRST" $((PORT_FIRST + 99))); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
  echo "no free port in $PORT_FIRST-$((PORT_FIRST + 99))" >&2
  return 1
}

# proc_status PID KEY: a field of /proc/PID/status (VmRSS, VmHWM, Threads), without its unit.
proc_status() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

# ---- servers -----------------------------------------------------------------------------------
PIDS=()
# start LOG COMMAND...: starts a process on CPU 1, remembered for cleanup; sets STARTED.
start() {
  local log_file=$1
  shift
  "${SERVER_ON[@]}" "$@" >>"$log_file" 2>&1 &
  STARTED=$!
  PIDS+=("$STARTED")
}
# cleanup: stops every process started, and waits for each.
cleanup() {
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  PIDS=()
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ready URL [MCPLOAD WAIT ARGS]: waits (60 s at most) until the server at URL answers an echo.
ready() { "${LOADGEN_ON[@]}" "$LOADGEN" wait --url "$1" --timeout 60 "${@:2}" >/dev/null; }

# require_redis WHAT: exits unless redis-server is installed.
require_redis() {
  command -v redis-server >/dev/null && return
  echo "$1 needs redis-server (apt-get install redis-server)" >&2
  exit 1
}
# start_redis LOG: a redis-server on a free port without persistence, on CPU 1; sets REDIS_PORT
# and REDIS_PID. It returns once Redis answers, so a free_port after it gives another port.
start_redis() {
  REDIS_PORT="$(free_port)"
  start "$1" redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no
  REDIS_PID=$STARTED
  for _ in $(seq 100); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.05; done
}

# exit_on_run_errors: fails the script when any run of $OUT/runs.jsonl counted errors.
exit_on_run_errors() {
  local errors
  errors="$(jq -s 'map(.errors) | add' "$OUT/runs.jsonl")"
  if [ "$errors" != "0" ]; then
    echo "$errors errors in the runs (see $OUT/mcpload.log)" >&2
    exit 1
  fi
}

# round_order ROUND "A B C": the list, reversed on even rounds, so that a drift in the machine's
# speed during an invocation does not always favour whoever runs first.
round_order() {
  if [ $(($1 % 2)) -eq 0 ]; then
    tr ' ' '\n' <<<"$2" | grep . | tac | tr '\n' ' '
  else
    echo "$2"
  fi
}

# measure LABEL URL SCENARIO CONC ROUND [MCPLOAD RUN ARGS]: one closed-loop `mcpload run` of
# $WARMUP + $DURATION seconds against $SERVER_PID, appended to $OUT/runs.jsonl with its round and
# the load average before it, and summed up on stderr. A run that fails or hangs ends the script.
measure() {
  local label="$1" url="$2" scenario="$3" conc="$4" round="$5" before line limit
  shift 5
  limit=$(awk -v w="$WARMUP" -v d="$DURATION" 'BEGIN { printf "%d", w + d + 60 }')
  before="$(loadavg)"
  line="$(timeout "$limit" "${LOADGEN_ON[@]}" "$LOADGEN" run --url "$url" --peer "$label" \
    --scenario "$scenario" --conc "$conc" --warmup "$WARMUP" --duration "$DURATION" \
    --server-pid "$SERVER_PID" "$@" 2>>"$OUT/mcpload.log")" || {
    echo "mcpload failed for $label $scenario c=$conc (see $OUT/mcpload.log)" >&2
    tail -n 5 "$OUT/mcpload.log" >&2
    exit 1
  }
  jq -c --arg l "$before" --argjson r "$round" '. + {round: $r, loadavg_before: $l}' <<<"$line" >>"$OUT/runs.jsonl"
  jq -r '"   \(.peer) \(.scenario) c=\(.conc): \(.ops_per_s) ops/s, p50 \(.p50_ms) ms, p99 \(.p99_ms) ms, errors \(.errors), server CPU \(.server_cpu_us_per_op) µs/op"' <<<"$line" >&2
}
