#!/usr/bin/env bash
# The OAuth benchmark (BENCHMARKS.md, "An OAuth-protected exchange"): echo and the two-round
# exchange at concurrency 1 and 32, each server with and without a bearer token to verify,
# every request carrying the same ES256 JWT (minted by `bench_server_auth --mint-token` with the
# test key of benches/peers/auth/). Servers, each started fresh and pinned to CPU 1 with
# mcpload on CPU 0, as in scripts/bench_peers.sh:
#
#   mcp               bench_server_auth, no auth
#   mcp+auth          bench_server_auth --auth (verified tokens cached, the default for JWTs)
#   mcp+auth-nocache  bench_server_auth --auth --no-token-cache (every request verifies its token)
#   py                the Python SDK peer, no auth
#   py+auth           the Python SDK peer with its bearer middleware and a PyJWT TokenVerifier
#
# rmcp 3.11 is not measured: it verifies no bearer tokens on the server side.
#
#   scripts/bench_oauth.sh [--duration SECS] [--warmup SECS] [--peers "mcp py"] [--repeat N]
#
# Prints the runs (medians over the rounds), the auth/no-auth and mcp/py ratios, and keeps
# everything under target/bench-results/oauth-<timestamp>/. Every Rust binary is built with the
# release-lto profile (scripts/bench_lib.sh).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
DURATION=10
WARMUP=2
PEERS="mcp py"
REPEAT=1
SCENARIOS="echo mrtr"
CONCS="1 32"

usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; }
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
PUBLIC_KEY="$ROOT/benches/peers/auth/bench-es256-public.pem"

# ---- build -------------------------------------------------------------------------------------
log "building ($BENCH_PROFILE): mcpload, bench_server_auth; peers: $PEERS"
build_mcpload
build_mcp_auth
[[ " $PEERS " == *" py "* ]] && build_py
TOKEN="$("$OURS_AUTH" --mint-token)"

server_command() {
  case "$1" in
    mcp) echo "$OURS_AUTH --port $2" ;;
    mcp+auth) echo "$OURS_AUTH --port $2 --auth" ;;
    mcp+auth-nocache) echo "$OURS_AUTH --port $2 --auth --no-token-cache" ;;
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
  bench_meta
  [[ " $PEERS " == *" py "* ]] && echo "python: $("$PYTHON" --version 2>&1), mcp $("$PYTHON" -c 'import importlib.metadata as m; print(m.version("mcp"), "PyJWT", m.version("PyJWT"), "cryptography", m.version("cryptography"))')"
  echo "token: ES256, $(printf %s "$TOKEN" | wc -c) bytes"
  echo "loadavg at start: $(loadavg)"
} > "$OUT/meta.txt"
log "results in $OUT (load average $(loadavg))"

# ---- the runs ----------------------------------------------------------------------------------
for round in $(seq 1 "$REPEAT"); do
order="$(round_order "$round" "$CONFIGS")"
log "round $round of $REPEAT: $order"
for config in $order; do
  port="$(free_port)"
  url="http://127.0.0.1:$port/mcp"
  read -r -a cmd <<<"$(server_command "$config" "$port")"
  read -r -a bearer <<<"$(bearer_for "$config")"
  log "$config: ${cmd[*]}"
  start "$OUT/$config.server.log" "${cmd[@]}"
  SERVER_PID=$STARTED
  ready "$url" --server-pid "$SERVER_PID" "${bearer[@]}"
  for scenario in $SCENARIOS; do
    for conc in $CONCS; do
      measure "$config" "$url" "$scenario" "$conc" "$round" "${bearer[@]}"
    done
  done
  cleanup
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

def matched(pairs):
    """(a's label, b's label, scenario, conc, a, b) for each pair measured in both."""
    for x, y in pairs:
        for scenario in ("echo", "mrtr"):
            for conc in (1, 32):
                a, b = (x, scenario, conc), (y, scenario, conc)
                if a in med and b in med:
                    yield x, y, scenario, conc, a, b

print("\n## What auth costs (auth / no auth; below 1 means auth costs that much)\n")
print("| server | scenario | conc | throughput | server CPU per op | added CPU µs/op |")
print("|---|---|---:|---:|---:|---:|")
for auth, _, scenario, conc, a, b in matched((("mcp+auth", "mcp"), ("mcp+auth-nocache", "mcp"), ("py+auth", "py"))):
    added = med[a]["server_cpu_us_per_op"] - med[b]["server_cpu_us_per_op"]
    print(f"| {auth} | {scenario} | {conc} | {fmt(ratio(a, b, 'ops_per_s', True))} | "
          f"{fmt(ratio(a, b, 'server_cpu_us_per_op', False))} | {added:+.1f} |")

print("\n## mcp / py (>1 means mcp is better)\n")
print("| pair | scenario | conc | throughput | p99 latency | server CPU per op |")
print("|---|---|---:|---:|---:|---:|")
for ours, theirs, scenario, conc, a, b in matched((("mcp+auth", "py+auth"), ("mcp+auth-nocache", "py+auth"), ("mcp", "py"))):
    print(f"| {ours} / {theirs} | {scenario} | {conc} | {fmt(ratio(a, b, 'ops_per_s', True))} | "
          f"{fmt(ratio(a, b, 'p99_ms', False))} | {fmt(ratio(a, b, 'server_cpu_us_per_op', False))} |")

print("\n## What the token cache saves (cached / uncached)\n")
print("| scenario | conc | throughput | server CPU per op | CPU µs/op saved |")
print("|---|---:|---:|---:|---:|")
for _, _, scenario, conc, a, b in matched((("mcp+auth", "mcp+auth-nocache"),)):
    saved = med[b]["server_cpu_us_per_op"] - med[a]["server_cpu_us_per_op"]
    print(f"| {scenario} | {conc} | {fmt(ratio(a, b, 'ops_per_s', True))} | "
          f"{fmt(ratio(a, b, 'server_cpu_us_per_op', False))} | {saved:.1f} |")
PY
exit_on_run_errors
