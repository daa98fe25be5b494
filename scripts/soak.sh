#!/usr/bin/env bash
# Soak test: N clients run full two-round MRTR exchanges over HTTP against
# bench_server (benches/server) for S seconds, while the server's resident memory is sampled.
#
#   scripts/soak.sh [--clients N] [--seconds S] [--interval I] [--debug | --bin-dir DIR]
#                   [--warmup W] [--tolerance PCT] [--max-rss-mb MB]
#
# An exchange is benches/load's `mcpload --scenario mrtr`: `tools/call provision`, its
# `input_required` answer, and the retry with `inputResponses` and the sealed `requestState`,
# each answer checked. Each client keeps one connection and starts its next exchange as soon as
# the last one is done. VmRSS (/proc/PID/status) is printed every I seconds.
#
# Fails (exit 1) when an exchange fails or none completes; when the RSS grows: of the samples
# after the first W seconds (allocator arenas, buffers and caches fill up first), the median of
# the last third may exceed the median of the first third by at most PCT percent; or, with
# --max-rss-mb, when the server's peak RSS (VmHWM) passes MB.
#
# bench_server is built in release, or with --debug in the dev profile (.ci/run); --bin-dir
# names a directory holding one built before. mcpload is built (debug, --locked) into the cargo
# target directory, unless MCPLOAD names a binary. Defaults: 4 clients, 60 s, every 2 s,
# warm-up 10 s, tolerance 10 %, no ceiling. Only 127.0.0.1 is used.
set -euo pipefail

CLIENTS=4
SECONDS_TO_RUN=60
INTERVAL=2
BIN_DIR=""
PROFILE=release
WARMUP=10
TOLERANCE=10
MAX_RSS_MB=""

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --clients) CLIENTS="$2"; shift 2 ;;
    --seconds) SECONDS_TO_RUN="$2"; shift 2 ;;
    --interval) INTERVAL="$2"; shift 2 ;;
    --bin-dir) BIN_DIR="$(cd "$2" && pwd)"; shift 2 ;;
    --debug) PROFILE=dev; shift ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --tolerance) TOLERANCE="$2"; shift 2 ;;
    --max-rss-mb) MAX_RSS_MB="$2"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
for value in "$CLIENTS" "$SECONDS_TO_RUN" "$INTERVAL" "$WARMUP" "$TOLERANCE" ${MAX_RSS_MB:+"$MAX_RSS_MB"}; do
  [[ "$value" =~ ^[0-9]+$ ]] || { echo "options take whole numbers, not $value" >&2; exit 2; }
done
if [ "$CLIENTS" -eq 0 ] || [ "$INTERVAL" -eq 0 ] || [ "$WARMUP" -ge "$SECONDS_TO_RUN" ]; then
  echo "--clients and --interval must be positive, --warmup shorter than --seconds" >&2
  exit 2
fi
cd "$(dirname "$0")/.."
TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

log() { echo "soak: $*" >&2; }

if [ -z "$BIN_DIR" ]; then
  log "building bench_server ($PROFILE)"
  cargo build --quiet --profile "$PROFILE" --locked -p mcp-bench-server --bin bench_server
  if [ "$PROFILE" = dev ]; then BIN_DIR="$TARGET_DIR/debug"; else BIN_DIR="$TARGET_DIR/release"; fi
fi
SERVER="$BIN_DIR/bench_server"
[ -x "$SERVER" ] || { log "no bench_server in $BIN_DIR"; exit 1; }
if [ -z "${MCPLOAD:-}" ]; then
  log "building mcpload (debug)"
  cargo build --quiet --locked --manifest-path benches/load/Cargo.toml
  MCPLOAD="$TARGET_DIR/debug/mcpload"
fi
[ -x "$MCPLOAD" ] || { log "no mcpload at $MCPLOAD"; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/soak.XXXXXX")"
SERVER_PID=""
LOAD_PID=""
cleanup() {
  for pid in "$LOAD_PID" "$SERVER_PID"; do
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A free port: bind port 0, read what the kernel chose, release it.
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
URL="http://127.0.0.1:$PORT/mcp"
"$SERVER" --port "$PORT" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
if ! "$MCPLOAD" wait --url "$URL" --timeout 30 --server-pid "$SERVER_PID" >/dev/null; then
  log "the server did not answer:"
  cat "$WORK/server.log" >&2
  exit 1
fi

rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$SERVER_PID/status"; }

log "$SERVER on $URL, $CLIENTS clients for $SECONDS_TO_RUN s, RSS every $INTERVAL s"
started="$EPOCHREALTIME"
elapsed() { awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
echo "0.0 $(rss_kb)" >"$WORK/rss"
printf '%7s s  %8s kB (idle)\n' 0.0 "$(rss_kb)"
"$MCPLOAD" run --url "$URL" --scenario mrtr --conc "$CLIENTS" --warmup 0 \
  --duration "$SECONDS_TO_RUN" --peer soak --server-pid "$SERVER_PID" \
  >"$WORK/result.json" 2>"$WORK/mcpload.log" &
LOAD_PID=$!
while sleep "$INTERVAL" && kill -0 "$LOAD_PID" 2>/dev/null; do
  kill -0 "$SERVER_PID" 2>/dev/null || break
  at="$(elapsed)"
  rss="$(rss_kb)"
  echo "$at $rss" >>"$WORK/rss"
  printf '%7s s  %8s kB\n' "$at" "$rss"
done
load_status=0
wait "$LOAD_PID" || load_status=$?
LOAD_PID=""
if ! kill -0 "$SERVER_PID" 2>/dev/null; then
  log "the server exited during the run:"
  tail -n 20 "$WORK/server.log" >&2
  exit 1
fi
peak_kb="$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$SERVER_PID/status")"
if [ "$load_status" -ne 0 ]; then
  log "mcpload failed (exit $load_status):"
  cat "$WORK/mcpload.log" >&2
  exit 1
fi

field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$WORK/result.json" "$1"; }
exchanges="$(field ops)"
errors="$(field errors)"
rate="$(field ops_per_s)"

# median < numbers: the middle one, or the mean of the two middle ones.
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
awk -v w="$WARMUP" '$1 >= w { print $2 }' "$WORK/rss" >"$WORK/settled"
settled="$(wc -l <"$WORK/settled")"
third=$((settled / 3))

status=0
echo "server: $SERVER"
echo "exchanges: $exchanges completed, $errors failed, $rate exchanges/s over $SECONDS_TO_RUN s with $CLIENTS clients"
echo "RSS: idle $(head -n 1 "$WORK/rss" | cut -d' ' -f2) kB, first sample under load $(sed -n 2p "$WORK/rss" | cut -d' ' -f2) kB, last $(tail -n 1 "$WORK/rss" | cut -d' ' -f2) kB, peak (VmHWM) $peak_kb kB"
if [ "$errors" -ne 0 ] || [ "$exchanges" -eq 0 ]; then
  echo "FAILED: exchanges failed or none completed (mcpload's first errors:)"
  cat "$WORK/mcpload.log"
  status=1
fi
if [ "$third" -lt 2 ]; then
  echo "FAILED: $settled samples after the $WARMUP s warm-up; at least 6 are needed (a longer --seconds or a shorter --interval)"
  status=1
else
  early="$(head -n "$third" "$WORK/settled" | median)"
  late="$(tail -n "$third" "$WORK/settled" | median)"
  allowed=$((early + early * TOLERANCE / 100))
  growth="$(awk -v a="$early" -v b="$late" 'BEGIN { printf "%+.1f", (b - a) * 100 / a }')"
  echo "growth: median RSS of the first third after warm-up $early kB, of the last third $late kB ($growth %; at most +$TOLERANCE % allowed, $allowed kB)"
  if [ "$late" -gt "$allowed" ]; then
    echo "FAILED: the server's RSS kept growing"
    status=1
  fi
fi
if [ -n "$MAX_RSS_MB" ] && [ "$peak_kb" -gt $((MAX_RSS_MB * 1024)) ]; then
  echo "FAILED: peak RSS $peak_kb kB is over the ceiling of $MAX_RSS_MB MB"
  status=1
fi
[ "$status" -eq 0 ] && echo "soak: passed"
exit "$status"
