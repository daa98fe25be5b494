#!/usr/bin/env bash
# Build time of a 50-tool server (BENCHMARKS.md): ours (`#[mcp::tool]` fns, path dependency on
# this repo's `mcp`) next to rmcp 3.11.0 (`#[tool_router]`, 50 `#[tool]` methods with a
# parameter struct each). Both are Streamable HTTP servers, generated into a scratch folder,
# each with its own target dir and a lock file copied from this repo (ours) or from the rmcp
# peer (benches/peers/rmcp), sources fetched before timing. Per project:
#   cold         `cargo build --release` from an empty target dir (dependencies + the crate)
#   crate alone  after `cargo clean -p <crate>`: only the 50-tool crate is compiled
#   edit 1 tool  after changing the body of one tool (release builds are not incremental)
#
#   scripts/bench_build.sh [--projects "mcp rmcp"] [--dir SCRATCH] [--jobs N]
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PROJECTS="mcp rmcp"
SCRATCH="$ROOT/target/bench-build"
JOBS="$(nproc)"
TOOLS=50

while [ $# -gt 0 ]; do
  case "$1" in
    --projects) PROJECTS="$2"; shift 2 ;;
    --dir) SCRATCH="$2"; shift 2 ;;
    --jobs) JOBS="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

OUT="$ROOT/target/bench-results/build-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT" "$SCRATCH"
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
log() { echo "== $*" >&2; }

# ---- generators --------------------------------------------------------------------------------
gen_mcp() {
  local dir="$1"
  rm -rf "$dir" && mkdir -p "$dir/src"
  cat >"$dir/Cargo.toml" <<EOF
[package]
name = "tools50-mcp"
version = "0.1.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
mcp = { path = "$ROOT" }
tokio = { version = "1", features = ["rt-multi-thread", "macros"] }
EOF
  cp "$ROOT/Cargo.lock" "$dir/Cargo.lock"
  cat >"$dir/src/main.rs" <<'EOF'
mod tools;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    mcp::McpServer::new("tools50")
        .tools(tools::all())
        .serve_http(("127.0.0.1", 0))
        .await?;
    Ok(())
}
EOF
  {
    for i in $(seq -w 0 $((TOOLS - 1))); do
      cat <<EOF
/// Tool $i: answers with its text, count and label.
#[mcp::tool]
pub async fn tool_$i(
    /// The text to answer with.
    text: String,
    /// How many times (optional).
    count: Option<u32>,
    /// A label.
    label: String,
) -> String {
    format!("tool_$i v0: {text} x{} [{label}]", count.unwrap_or(1))
}

EOF
    done
    echo "pub fn all() -> Vec<mcp::server::app::ToolEntry> {"
    echo "    mcp::tools![$(seq -s ', ' -f 'tool_%02g' 0 $((TOOLS - 1)))].into()"
    echo "}"
  } >"$dir/src/tools.rs"
}

gen_rmcp() {
  local dir="$1"
  rm -rf "$dir" && mkdir -p "$dir/src"
  cat >"$dir/Cargo.toml" <<'EOF'
[package]
name = "tools50-rmcp"
version = "0.1.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
rmcp = { version = "=3.11.0", default-features = false, features = ["server", "macros", "transport-streamable-http-server"] }
axum = { version = "0.8", default-features = false, features = ["http1", "tokio"] }
tokio = { version = "1", features = ["rt-multi-thread", "macros", "net"] }
serde = { version = "1", features = ["derive"] }
schemars = "1"
EOF
  cp "$ROOT/benches/peers/rmcp/Cargo.lock" "$dir/Cargo.lock"
  cat >"$dir/src/main.rs" <<'EOF'
mod tools;

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = tools::Tools::new();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let app = axum::Router::new().route_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
    axum::serve(listener, app).await?;
    Ok(())
}
EOF
  {
    cat <<'EOF'
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde::Deserialize;

EOF
    for i in $(seq -w 0 $((TOOLS - 1))); do
      cat <<EOF
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Tool${i}Args {
    /// The text to answer with.
    pub text: String,
    /// How many times (optional).
    pub count: Option<u32>,
    /// A label.
    pub label: String,
}

EOF
    done
    cat <<'EOF'
#[derive(Clone)]
pub struct Tools {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Tools {
    pub fn new() -> Self {
        Self { tool_router: Self::tool_router() }
    }

EOF
    for i in $(seq -w 0 $((TOOLS - 1))); do
      cat <<EOF
    /// Tool $i: answers with its text, count and label.
    #[tool]
    async fn tool_$i(&self, Parameters(Tool${i}Args { text, count, label }): Parameters<Tool${i}Args>) -> String {
        format!("tool_$i v0: {text} x{} [{label}]", count.unwrap_or(1))
    }

EOF
    done
    cat <<'EOF'
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}
EOF
  } >"$dir/src/tools.rs"
}

# ---- timing ------------------------------------------------------------------------------------
seconds_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

timed_build() { # dir label -> seconds on stdout
  local dir="$1" label="$2" start
  start="$EPOCHREALTIME"
  cargo build --release --offline --locked --jobs "$JOBS" --manifest-path "$dir/Cargo.toml" \
    --target-dir "$dir/target" >"$OUT/$label.log" 2>&1 || {
    echo "build failed: $label (see $OUT/$label.log)" >&2
    tail -n 20 "$OUT/$label.log" >&2
    exit 1
  }
  seconds_since "$start"
}

{
  echo "date: $(date -Iseconds)"
  echo "command: scripts/bench_build.sh --projects \"$PROJECTS\" --jobs $JOBS"
  echo "git: $(git -C "$ROOT" rev-parse --short HEAD)"
  echo "cpus: $(nproc), jobs: $JOBS, rustc: $(cd "$ROOT" && rustc --version)"
  echo "loadavg at start: $(loadavg)"
} >"$OUT/meta.txt"

for project in $PROJECTS; do
  dir="$SCRATCH/tools50-$project"
  case "$project" in
    mcp) gen_mcp "$dir" ;;
    rmcp) gen_rmcp "$dir" ;;
    *) echo "unknown project $project (mcp, rmcp)" >&2; exit 2 ;;
  esac
  # The lock file copied in pins the shared dependencies; fetch adds what is missing, before any timing.
  (cd "$dir" && cargo fetch --quiet)
  log "$project: cold build (load average $(loadavg))"
  cold="$(timed_build "$dir" "$project-cold")"
  cargo clean --release --quiet -p "tools50-$project" --manifest-path "$dir/Cargo.toml" --target-dir "$dir/target"
  log "$project: the crate alone"
  alone="$(timed_build "$dir" "$project-crate")"
  sed -i 's/tool_07 v0:/tool_07 v1:/' "$dir/src/tools.rs"
  log "$project: after editing tool_07"
  edit="$(timed_build "$dir" "$project-edit")"
  size="$(stat -c %s "$dir/target/release/tools50-$project")"
  jq -n -c --arg p "$project" --argjson cold "$cold" --argjson alone "$alone" --argjson edit "$edit" \
    --argjson size "$size" --arg load "$(loadavg)" \
    '{project: $p, cold_s: $cold, crate_alone_s: $alone, edit_one_tool_s: $edit, binary_bytes: $size, loadavg_after: $load}' \
    | tee -a "$OUT/build.jsonl" >&2
done
echo "loadavg at end: $(loadavg)" >>"$OUT/meta.txt"

{
  echo '```text'
  cat "$OUT/meta.txt"
  echo '```'
  echo
  echo "| project ($TOOLS tools, release) | cold: deps + crate (s) | the crate alone (s) | after editing one tool (s) | binary MB |"
  echo "|---|---:|---:|---:|---:|"
  jq -r '"| \(.project) | \(.cold_s) | \(.crate_alone_s) | \(.edit_one_tool_s) | \(.binary_bytes / 1048576 * 10 | round / 10) |"' "$OUT/build.jsonl"
} | tee "$OUT/report.md"
