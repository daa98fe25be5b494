#!/usr/bin/env bash
# The `otel` feature end to end: lints and docs with it, the provisioner built with it, and the
# telemetry tests (tests/otel: an OTLP receiver, our client and server, the Prometheus scrape
# route, the Python SDK's client, the provisioner). Apart from the other checks because the
# dev-dependencies do not turn `otel` on: it would put a span and a histogram point on every
# request the benchmarks and the other tests make.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo clippy --workspace --all-targets --features otel -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --features otel
cargo test -p mcp-runtime --features otel --lib telemetry
# The telemetry's docs, and the scrape route's on `McpServer` and `HttpTransport`.
cargo test -p mcp-runtime --features otel --doc -- telemetry metrics_route
# `cargo test --test otel` builds no example: the provisioner is built first.
cargo build --features otel --example provisioner
cargo test --features otel --test otel
