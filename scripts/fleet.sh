#!/usr/bin/env bash
# Three examples/provisioner.rs instances behind nginx (round-robin, pooled upstream
# connections), driven by examples/fleet_load.rs. Everything lives in a temp dir on loopback
# ports chosen at run time; every process started here is stopped on exit, failed or not.
#
#   scripts/fleet.sh shared-keys        # one MCP_REQUEST_STATE_KEYS for all: every exchange completes
#   scripts/fleet.sh per-process-keys   # no shared key: rounds are rejected; then the client restarts
#   scripts/fleet.sh rotation           # roll [old] -> [old,new] -> [new,old] -> [new] under load
#   scripts/fleet.sh rotation-unsafe    # the mistake, for contrast: [old] -> [new,old] directly
#
# Prints one JSON line per run on stdout (progress goes to stderr). Exits 77 when nginx is not
# installed and cannot be (not root). Environment: FLEET_EXCHANGES, FLEET_CONCURRENCY,
# FLEET_BIN (directory of the example binaries; default target/debug/examples, built if
# missing), FLEET_KEEP=1 keeps the temp dir for a look at the logs.
set -euo pipefail

mode="${1:-}"
case "$mode" in
  shared-keys | per-process-keys | rotation | rotation-unsafe) ;;
  *) echo "usage: $0 shared-keys|per-process-keys|rotation|rotation-unsafe" >&2; exit 2 ;;
esac
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${FLEET_BIN:-$root/target/debug/examples}"
concurrency="${FLEET_CONCURRENCY:-8}"
# nginx closes an upstream connection idle this long; an instance drains longer than that
# when it stops, so it never closes a connection nginx may be sending on (README, Deploying).
upstream_idle=1
drain=2
grace=10

log() { echo "fleet: $*" >&2; }

ensure_nginx() {
  PATH="$PATH:/usr/sbin:/sbin"
  command -v nginx >/dev/null && return 0
  if [ "$(id -u)" != 0 ]; then
    log "nginx is not installed and installing it needs root"
    exit 77
  fi
  log "installing nginx from the Debian packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends nginx >&2 \
    || { apt-get update >&2 && apt-get install -y --no-install-recommends nginx >&2; } \
    || { log "cannot install nginx"; exit 77; }
  command -v nginx >/dev/null || exit 77
}

ensure_binaries() {
  if [ -z "${FLEET_BIN:-}" ] && { [ ! -x "$bin/provisioner" ] || [ ! -x "$bin/fleet_load" ]; }; then
    log "building the examples"
    (cd "$root" && cargo build -q --example provisioner --example fleet_load)
  fi
  [ -x "$bin/provisioner" ] && [ -x "$bin/fleet_load" ] || { log "no binaries in $bin"; exit 1; }
}

ensure_nginx
ensure_binaries

tmp="$(mktemp -d "${TMPDIR:-/tmp}/fleet.XXXXXX")"
declare -a instance_pid=() instance_port=()
nginx_pid=""
driver_pid=""

cleanup() {
  local status=$?
  for pid in "${instance_pid[@]}" $nginx_pid $driver_pid; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${instance_pid[@]}" $nginx_pid $driver_pid; do
    wait "$pid" 2>/dev/null || true
  done
  if [ "$status" != 0 ]; then
    for f in "$tmp"/*.log; do
      [ -f "$f" ] && { echo "--- $f (last lines)" >&2; tail -n 20 "$f" >&2; }
    done
  fi
  if [ "${FLEET_KEEP:-}" = 1 ]; then log "kept $tmp"; else rm -rf "$tmp"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_listening() {
  local port=$1 tries=0
  until (: >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    tries=$((tries + 1))
    [ "$tries" -lt 200 ] || { log "nothing listens on $port"; return 1; }
    sleep 0.05
  done
}

# start_instance INDEX KEYS (KEYS empty: a per-process key)
start_instance() {
  local i=$1 keys=$2 port=${instance_port[$1]}
  if [ -n "$keys" ]; then
    MCP_REQUEST_STATE_KEYS="$keys" "$bin/provisioner" --http "127.0.0.1:$port" \
      --grace "$grace" --drain "$drain" 2>>"$tmp/instance$i.log" &
  else
    env -u MCP_REQUEST_STATE_KEYS "$bin/provisioner" --http "127.0.0.1:$port" \
      --grace "$grace" --drain "$drain" 2>>"$tmp/instance$i.log" &
  fi
  instance_pid[i]=$!
  wait_listening "$port"
}

# stop_instance INDEX: SIGTERM, and the exit status must be 0.
stop_instance() {
  local i=$1 status=0
  kill -TERM "${instance_pid[$i]}"
  wait "${instance_pid[$i]}" || status=$?
  [ "$status" = 0 ] || { log "instance $i exited with $status"; return 1; }
}

start_nginx() {
  lb_port=$(free_port)
  mkdir -p "$tmp/nginx"
  {
    echo "worker_processes 1;"
    echo "user $(id -un);"   # as root: workers stay root; otherwise ignored
    echo "daemon off;"
    echo "pid $tmp/nginx.pid;"
    echo "error_log $tmp/nginx-error.log warn;"
    echo "events { worker_connections 1024; }"
    echo "http {"
    echo "  log_format fleet '\$upstream_addr|\$status';"
    echo "  access_log $tmp/access.log fleet;"
    for t in client_body proxy fastcgi uwsgi scgi; do echo "  ${t}_temp_path $tmp/nginx/$t;"; done
    echo "  upstream provisioners {"
    # max_fails=0: an instance that refused a connect while it restarted is not shunned; one
    # refused connect was never sent, so nginx simply tries the next instance. With the
    # default (1 failure shuns for 10 s) a rolling restart soon leaves no instance "live" and
    # nginx answers 502 itself.
    for port in "${instance_port[@]}"; do
      echo "    server 127.0.0.1:$port max_fails=0;"
    done
    echo "    keepalive 32;"
    echo "    keepalive_timeout ${upstream_idle}s;"
    echo "  }"
    echo "  server {"
    echo "    listen 127.0.0.1:$lb_port;"
    echo "    location /mcp {"
    echo "      proxy_pass http://provisioners;"
    echo "      proxy_http_version 1.1;"
    echo "      proxy_set_header Connection \"\";"
    # The instances accept loopback Host values; forward the client's own.
    echo "      proxy_set_header Host \$http_host;"
    # A refused connect was never sent: nginx retries it elsewhere. A POST nginx has sent is
    # not retried (no non_idempotent): the instances' drain keeps that from happening.
    echo "      proxy_next_upstream error timeout;"
    echo "      proxy_buffering off;"
    echo "    }"
    echo "  }"
    echo "}"
  } >"$tmp/nginx.conf"
  nginx -p "$tmp/nginx" -c "$tmp/nginx.conf" -e "$tmp/nginx-error.log" &
  nginx_pid=$!
  wait_listening "$lb_port"
  url="http://127.0.0.1:$lb_port/mcp"
}

start_fleet() { # KEYS
  for i in 0 1 2; do instance_port[i]=$(free_port); done
  for i in 0 1 2; do start_instance "$i" "$1"; done
  start_nginx
  log "3 instances (ports ${instance_port[*]}) behind nginx at $url"
}

# access_summary FROM_LINE: requests, per-instance split, nginx retries, statuses since FROM_LINE.
access_summary() {
  tail -n "+$1" "$tmp/access.log" | awk -F'|' '
    { requests++; status[$2]++
      n = split($1, tried, ", "); if (n > 1) retried++; served[tried[n]]++ }
    END {
      printf "\"requests\":%d,\"retried_by_nginx\":%d,\"split\":{", requests, retried
      sep = ""; for (a in served) { printf "%s\"%s\":%d", sep, a, served[a]; sep = "," }
      printf "},\"statuses\":{"
      sep = ""; for (s in status) { printf "%s\"%s\":%d", sep, s, status[s]; sep = "," }
      printf "}"
    }'
}

log_lines() { if [ -f "$tmp/access.log" ]; then wc -l <"$tmp/access.log"; else echo 0; fi; }

# drive PHASE [fleet_load options...]: one JSON line with the driver's counts and nginx's view.
drive() {
  local phase=$1 from started
  shift
  from=$(($(log_lines) + 1))
  started=$(date +%s.%N)
  local counts
  counts=$("$bin/fleet_load" --url "$url" --concurrency "$concurrency" "$@")
  sleep 0.2 # nginx writes its access log line after the response
  printf '{"mode":"%s","phase":"%s","driver":%s,%s,"wall_seconds":%s}\n' \
    "$mode" "$phase" "$counts" "$(access_summary "$from")" "$(since "$started")"
}

# seconds since START (a `date +%s.%N`), to two decimals
since() { awk -v now="$(date +%s.%N)" -v start="$1" 'BEGIN { printf "%.2f", now - start }'; }

new_key() { head -c 32 /dev/urandom | base64; }

case "$mode" in
  shared-keys)
    start_fleet "$(new_key)"
    drive shared --exchanges "${FLEET_EXCHANGES:-1000}"
    ;;
  per-process-keys)
    start_fleet ""
    drive no-restart --exchanges "${FLEET_EXCHANGES:-300}"
    drive restart --exchanges "${FLEET_EXCHANGES:-300}" --restart-on-invalid-state 100
    ;;
  rotation | rotation-unsafe)
    old=$(new_key)
    new=$(new_key)
    phases=("$old,$new" "$new,$old" "$new")
    # Promoting the sealing key first: instances still on [old] cannot open what it seals.
    [ "$mode" = rotation ] || phases=("$new,$old")
    start_fleet "$old"
    from=$(($(log_lines) + 1))
    started=$(date +%s.%N)
    # No restarts: any rejected round is a failed exchange.
    "$bin/fleet_load" --url "$url" --concurrency "$concurrency" \
      --exchanges "${FLEET_EXCHANGES:-1000}" --until "$tmp/stop" >"$tmp/driver.json" &
    driver_pid=$!
    sleep 1
    rolls=""
    for phase in "${phases[@]}"; do
      case "$phase" in
        "$old,$new") name="old,new" ;;
        "$new,$old") name="new,old" ;;
        *) name="new" ;;
      esac
      for i in 0 1 2; do
        rolled=$(date +%s.%N)
        stop_instance "$i"
        start_instance "$i" "$phase"
        ms=$(awk -v s="$(since "$rolled")" 'BEGIN { printf "%d", s * 1000 }')
        log "instance $i now [$name] (stopped with exit 0 and listening again in ${ms} ms)"
        rolls="$rolls${rolls:+,}{\"phase\":\"$name\",\"instance\":$i,\"exit\":0,\"roll_ms\":$ms}"
        sleep 0.5
      done
    done
    sleep 1
    touch "$tmp/stop"
    wait "$driver_pid"
    driver_pid=""
    sleep 0.2
    printf '{"mode":"%s","phase":"rolling","driver":%s,%s,"rolls":[%s],"wall_seconds":%s}\n' \
      "$mode" "$(cat "$tmp/driver.json")" "$(access_summary "$from")" "$rolls" "$(since "$started")"
    ;;
esac
