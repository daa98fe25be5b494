#!/usr/bin/env bash
# Seal + open of a 200-byte requestState with every claim: our criterion bench and the Python
# SDK's boundary (timeit) back to back, so both see the same machine load; medians and ratio.
# Ours are the thread's CPU time, Python's the wall clock: on a busy machine the ratio
# flatters us, so compare on a quiet one.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/python-venv.sh >/dev/null
log=target/bench_sealing.log
mkdir -p target
if ! cargo bench -p mcp-runtime --bench sealing -- --warm-up-time 1 --measurement-time 3 >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
python_out=$(.venv/bin/python scripts/bench_python_request_state.py)
median_ns() {
  python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['median']['point_estimate'])" \
    "target/criterion/$1/new/estimates.json"
}
for op in seal open seal_and_open; do
  rust_ns=$(median_ns "${op}_200b_all_claims")
  python_us=$(echo "$python_out" | awk -v k="python_${op}_us" '$1==k {print $2}')
  python3 -c "import sys; op, r, p = sys.argv[1], float(sys.argv[2]) / 1000, float(sys.argv[3]); print(f'{op:>14}: rust {r:.3f} µs  python {p:.3f} µs  python/rust {p / r:.1f}x')" \
    "$op" "$rust_ns" "$python_us"
done
codec_ns=$(median_ns aes_gcm_codec_seal_and_unseal_claims_sized)
python3 -c "import sys; print(f'  of which the AES-GCM codec alone (seal + unseal): {float(sys.argv[1]) / 1000:.3f} µs')" "$codec_ns"
