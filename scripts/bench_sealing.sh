#!/usr/bin/env bash
# Seal + open of a 200-byte requestState with every claim: our criterion bench and the Python
# SDK's boundary (timeit) in one invocation, medians and the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/python-venv.sh >/dev/null
cargo bench -q -p mcp-runtime --bench sealing -- --warm-up-time 1 --measurement-time 5 >/dev/null 2>&1
python_out=$(.venv/bin/python scripts/bench_python_request_state.py)
echo "$python_out"
for op in seal open seal_and_open; do
  rust_ns=$(python3 -c "import json;print(json.load(open('target/criterion/${op}_200b_all_claims/new/estimates.json'))['median']['point_estimate'])")
  python_us=$(echo "$python_out" | awk -v k="python_${op}_us" '$1==k {print $2}')
  python3 -c "r=$rust_ns/1000; p=$python_us; print(f'{\"$op\":>14}: rust {r:.3f} µs  python {p:.3f} µs  python/rust {p/r:.1f}x')"
done
