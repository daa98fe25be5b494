//! The server the load benchmark drives (`BENCHMARKS.md`): what a user would write, with the
//! framework's defaults (sealed `requestState` on). Serves MCP 2026-07-28 and 2025-11-25 over
//! Streamable HTTP at `http://127.0.0.1:PORT/mcp`.
//!
//! ```sh
//! cargo run --release --example bench_server -- --port 8000
//! ```

#[path = "support/logging.rs"]
mod logging;

use mcp::{Elicit, McpServer};

/// Echo the text back.
#[mcp::tool]
async fn echo(
    /// What to echo.
    text: String,
) -> String {
    text
}

/// Which region should the database live in?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Region {
    /// The region code, e.g. eu-west-1.
    region: String,
}

/// Provision a database; asks which region to put it in.
#[mcp::tool]
async fn provision(
    /// The database to create.
    name: String,
    #[mcp(key = "region")] region: Elicit<Region>,
) -> String {
    format!("Provisioned '{name}' in {}.", region.region)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    logging::init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let port: u16 = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["--port", port] => port.parse()?,
        _ => anyhow::bail!("usage: bench_server --port PORT"),
    };
    McpServer::new("bench")
        .version(env!("CARGO_PKG_VERSION"))
        .tools(mcp::tools![echo, provision])
        .serve_http(("127.0.0.1", port))
        .await?;
    Ok(())
}
