#!/usr/bin/env bash
# The OAuth benchmark (BENCHMARKS.md, "An OAuth-protected exchange"): echo and the two-round
# exchange at concurrency 1 and 32, each server with and without a bearer token to verify,
# every request carrying the same ES256 JWT (minted by `bench_server --mint-token` with the
# test key of benches/peers/auth/). Servers, each started fresh and pinned to CPU 1 with
# mcpload on CPU 0, as in scripts/bench_peers.sh:
#
#   mcp               bench_server, no auth
#   mcp+auth          bench_server --auth (verified tokens cached, the default for JWTs)
#   mcp+auth-nocache  bench_server --auth --no-token-cache (every request verifies its token)
#   py                the Python SDK peer, no auth
#   py+auth           the Python SDK peer with its bearer middleware and a PyJWT TokenVerifier
#
# rmcp 3.11 is not measured: it verifies no bearer tokens on the server side.
#
#   scripts/bench_oauth.sh [--duration SECS] [--warmup SECS] [--peers "mcp py"] [--repeat N]
#
# Prints the runs (medians over the rounds), the auth/no-auth and mcp/py ratios, and keeps
# everything under target/bench-results/oauth-<timestamp>/.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DURATION=10
WARMUP=2
PEERS="mcp py"
REPEAT=1
SCENARIOS="echo mrtr"
CONCS="1 32"

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --peers) PEERS="$2"; shift 2 ;;
    --repeat) REPEAT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
CONFIGS=""
for peer in $PEERS; do
  case "$peer" in
    mcp) CONFIGS="$CONFIGS mcp mcp+auth mcp+auth-nocache" ;;
    py) CONFIGS="$CONFIGS py py+auth" ;;
    *) echo "unknown peer $peer (mcp, py)" >&2; exit 2 ;;
  esac
done

OUT="$ROOT/target/bench-results/oauth-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT"
LOADGEN="$ROOT/target/bench-load/release/mcpload"
OURS="$ROOT/target/release/examples/bench_server"
PYTHON="$ROOT/.venv/bin/python"
PUBLIC_KEY="$ROOT/benches/peers/auth/bench-es256-public.pem"

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
log "building (release): mcpload, bench_server; peers: $PEERS"
cargo build --quiet --release --locked --manifest-path "$ROOT/benches/load/Cargo.toml" --target-dir "$ROOT/target/bench-load"
(cd "$ROOT" && cargo build --quiet --release --locked --example bench_server)
[[ " $PEERS " == *" py "* ]] && "$ROOT/scripts/python-venv.sh" >&2
TOKEN="$("$OURS" --mint-token)"

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
  for port in $(seq 18700 18799); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
  echo "no free port in 18700-18799" >&2
  return 1
}

server_command() {
  case "$1" in
    mcp) echo "$OURS --port $2" ;;
    mcp+auth) echo "$OURS --port $2 --auth" ;;
    mcp+auth-nocache) echo "$OURS --port $2 --auth --no-token-cache" ;;
    py) echo "$PYTHON $ROOT/benches/peers/python/server.py --port $2" ;;
    py+auth) echo "$PYTHON $ROOT/benches/peers/python/server.py --port $2 --auth-key $PUBLIC_KEY" ;;
  esac
}

# The token goes to the servers that verify one; the others would ignore it anyway.
bearer_for() {
  case "$1" in
    *+auth*) echo "--bearer $TOKEN" ;;
  esac
}

{
  echo "date: $(date -Iseconds)"
  echo "command: scripts/bench_oauth.sh --duration $DURATION --warmup $WARMUP --peers \"$PEERS\" --repeat $REPEAT"
  echo "git: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- . 2>/dev/null || echo ' (dirty)')"
  echo "kernel: $(uname -sr), cpus: $(nproc), model: $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
  echo "rustc: $(rustc --version)"
  [[ " $PEERS " == *" py "* ]] && echo "python: $("$PYTHON" --version 2>&1), mcp $("$PYTHON" -c 'import importlib.metadata as m; print(m.version("mcp"), "PyJWT", m.version("PyJWT"), "cryptography", m.version("cryptography"))')"
  echo "token: ES256, $(printf %s "$TOKEN" | wc -c) bytes"
  echo "loadavg at start: $(loadavg)"
} > "$OUT/meta.txt"
log "results in $OUT (load average $(loadavg))"

# ---- the runs ----------------------------------------------------------------------------------
RUN_LIMIT=$(awk -v w="$WARMUP" -v d="$DURATION" 'BEGIN { printf "%d", w + d + 60 }')
for round in $(seq 1 "$REPEAT"); do
# Even rounds take the servers in reverse order, so a drift in the machine's speed does not
# always favour the same one.
order="$CONFIGS"
if [ $((round % 2)) -eq 0 ]; then
  order="$(tr ' ' '\n' <<<"$CONFIGS" | grep . | tac | tr '\n' ' ')"
fi
log "round $round of $REPEAT: $order"
for config in $order; do
  port="$(free_port)"
  url="http://127.0.0.1:$port/mcp"
  read -r -a cmd <<<"$(server_command "$config" "$port")"
  read -r -a bearer <<<"$(bearer_for "$config")"
  log "$config: ${cmd[*]}"
  "${SERVER_ON[@]}" "${cmd[@]}" >>"$OUT/$config.server.log" 2>&1 &
  SERVER_PID=$!
  "${LOADGEN_ON[@]}" "$LOADGEN" wait --url "$url" --timeout 60 --server-pid "$SERVER_PID" "${bearer[@]}" >/dev/null
  for scenario in $SCENARIOS; do
    for conc in $CONCS; do
      before="$(loadavg)"
      line="$(timeout "$RUN_LIMIT" "${LOADGEN_ON[@]}" "$LOADGEN" run --url "$url" --peer "$config" \
        --scenario "$scenario" --conc "$conc" --warmup "$WARMUP" --duration "$DURATION" \
        --server-pid "$SERVER_PID" "${bearer[@]}" 2>>"$OUT/mcpload.log")" || {
        echo "mcpload failed for $config $scenario c=$conc (see $OUT/mcpload.log)" >&2
        tail -n 5 "$OUT/mcpload.log" >&2
        exit 1
      }
      jq -c --arg l "$before" --argjson r "$round" '. + {round: $r, loadavg_before: $l}' <<<"$line" >>"$OUT/runs.jsonl"
      jq -r '"   \(.peer) \(.scenario) c=\(.conc): \(.ops_per_s) ops/s, p50 \(.p50_ms) ms, p99 \(.p99_ms) ms, errors \(.errors), server CPU \(.server_cpu_us_per_op) µs/op"' <<<"$line" >&2
    done
  done
  cleanup
  SERVER_PID=""
done
done
echo "loadavg at end: $(loadavg)" >>"$OUT/meta.txt"

# ---- the report: medians over the rounds, then the ratios ----------------------------------------
python3 - "$OUT" <<'PY' | tee "$OUT/report.md"
import json, statistics, sys
from pathlib import Path

out = Path(sys.argv[1])
runs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines() if line.strip()]
meta = (out / "meta.txt").read_text()
groups = {}
for run in runs:
    groups.setdefault((run["peer"], run["scenario"], run["conc"]), []).append(run)

def median(key, rows):
    values = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(values) if values else None

CONFIGS = ["mcp", "mcp+auth", "mcp+auth-nocache", "py", "py+auth"]
order = lambda k: (k[1], k[2], CONFIGS.index(k[0]) if k[0] in CONFIGS else 99)
rounds = max(r["round"] for r in runs)
print(f"# OAuth-protected exchange ({rounds} round(s), medians)\n")
print("```\n" + meta.strip() + "\n```\n")
print("| server | scenario | conc | ops/s | p50 ms | p99 ms | server CPU µs/op | server CPU | errors |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
med = {}
for key in sorted(groups, key=order):
    rows = groups[key]
    m = {k: median(k, rows) for k in ("ops_per_s", "p50_ms", "p99_ms", "server_cpu_us_per_op", "server_cpu_util")}
    med[key] = m
    errors = sum(r["errors"] for r in rows)
    low, high = min(r["ops_per_s"] for r in rows), max(r["ops_per_s"] for r in rows)
    span = f" ({low:,.0f}-{high:,.0f})" if len(rows) > 1 else ""
    print(f"| {key[0]} | {key[1]} | {key[2]} | {m['ops_per_s']:,.0f}{span} | {m['p50_ms']:.3f} | {m['p99_ms']:.3f} | "
          f"{m['server_cpu_us_per_op']:.1f} | {m['server_cpu_util']:.2f} | {errors} |")

def ratio(a, b, key, higher_is_better):
    if a not in med or b not in med or not med[a][key] or not med[b][key]:
        return None
    return med[a][key] / med[b][key] if higher_is_better else med[b][key] / med[a][key]

def fmt(value):
    return "–" if value is None else f"{value:.2f}x"

print("\n## What auth costs (auth / no auth; below 1 means auth costs that much)\n")
print("| server | scenario | conc | throughput | server CPU per op | added CPU µs/op |")
print("|---|---|---:|---:|---:|---:|")
for auth, plain in (("mcp+auth", "mcp"), ("mcp+auth-nocache", "mcp"), ("py+auth", "py")):
    for scenario in ("echo", "mrtr"):
        for conc in (1, 32):
            a, b = (auth, scenario, conc), (plain, scenario, conc)
            if a not in med or b not in med:
                continue
            added = med[a]["server_cpu_us_per_op"] - med[b]["server_cpu_us_per_op"]
            print(f"| {auth} | {scenario} | {conc} | {fmt(ratio(a, b, 'ops_per_s', True))} | "
                  f"{fmt(ratio(a, b, 'server_cpu_us_per_op', False))} | {added:+.1f} |")

print("\n## mcp / py (>1 means mcp is better)\n")
print("| pair | scenario | conc | throughput | p99 latency | server CPU per op |")
print("|---|---|---:|---:|---:|---:|")
for ours, theirs in (("mcp+auth", "py+auth"), ("mcp+auth-nocache", "py+auth"), ("mcp", "py")):
    for scenario in ("echo", "mrtr"):
        for conc in (1, 32):
            a, b = (ours, scenario, conc), (theirs, scenario, conc)
            if a not in med or b not in med:
                continue
            print(f"| {ours} / {theirs} | {scenario} | {conc} | {fmt(ratio(a, b, 'ops_per_s', True))} | "
                  f"{fmt(ratio(a, b, 'p99_ms', False))} | {fmt(ratio(a, b, 'server_cpu_us_per_op', False))} |")

print("\n## What the token cache saves (cached / uncached)\n")
print("| scenario | conc | throughput | server CPU per op | CPU µs/op saved |")
print("|---|---:|---:|---:|---:|")
for scenario in ("echo", "mrtr"):
    for conc in (1, 32):
        a, b = ("mcp+auth", scenario, conc), ("mcp+auth-nocache", scenario, conc)
        if a not in med or b not in med:
            continue
        saved = med[b]["server_cpu_us_per_op"] - med[a]["server_cpu_us_per_op"]
        print(f"| {scenario} | {conc} | {fmt(ratio(a, b, 'ops_per_s', True))} | "
              f"{fmt(ratio(a, b, 'server_cpu_us_per_op', False))} | {saved:.1f} |")
PY
errors="$(jq -s 'map(.errors) | add' "$OUT/runs.jsonl")"
if [ "$errors" != "0" ]; then
  echo "$errors errors in the runs (see $OUT/mcpload.log)" >&2
  exit 1
fi
