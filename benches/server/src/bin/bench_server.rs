//! The server the load benchmark drives (`BENCHMARKS.md`): what a user would write, with the
//! framework's defaults (sealed `requestState` on), and no access tokens. Serves MCP
//! 2026-07-28 and 2025-11-25 over Streamable HTTP at `http://127.0.0.1:PORT/mcp`.
//!
//! With `--redis URL` (feature `redis`), the instances on one Redis share their changes and
//! keep their tasks there. The same server behind access tokens is `bench_server_auth`, a
//! binary of its own, so that the JWT verifier is not part of the server whose memory the load
//! benchmark measures.
//!
//! ```sh
//! cargo run --release -p mcp-bench-server --bin bench_server -- --port 8000
//! cargo run --release -p mcp-bench-server --bin bench_server --features redis -- --port 8001 --redis redis://127.0.0.1:6379
//! ```

use mcp::McpServer;
use mcp_bench_server::{app, init_logging};

const USAGE: &str = "usage: bench_server --port PORT [--redis URL]";

/// What the command line asks for.
struct Options {
    port: u16,
    redis: Option<String>,
}

impl Options {
    fn parse(args: &[String]) -> anyhow::Result<Self> {
        let (mut port, mut redis) = (None, None);
        let mut rest = args.iter();
        while let Some(flag) = rest.next() {
            let mut value = || {
                rest.next()
                    .ok_or_else(|| anyhow::anyhow!("{flag} needs a value\n{USAGE}"))
            };
            match flag.as_str() {
                "--port" => port = Some(value()?.parse()?),
                "--redis" => redis = Some(value()?.clone()),
                _ => anyhow::bail!(USAGE),
            }
        }
        Ok(Options {
            port: port.ok_or_else(|| anyhow::anyhow!(USAGE))?,
            redis,
        })
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    init_logging();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = Options::parse(&args)?;
    let server = app::server();
    let server = match &options.redis {
        None => server,
        Some(url) => with_redis(server, url)?,
    };
    server.serve_http(("127.0.0.1", options.port)).await?;
    Ok(())
}

/// `server` with its changes and tasks on the Redis at `url`, so the instances on one Redis
/// share them: a touch through one reaches the listeners of all.
#[cfg(feature = "redis")]
fn with_redis(server: McpServer, url: &str) -> anyhow::Result<McpServer> {
    let bus = mcp::push::RedisBus::new(url, "mcp-bench:changes")?;
    let store = mcp::tasks::RedisTaskStore::builder(url)
        .limits(app::task_limits())
        .build()?;
    Ok(server
        .notification_bus(bus)
        .tasks(mcp::tasks::Tasks::new(store)))
}

#[cfg(not(feature = "redis"))]
fn with_redis(_: McpServer, _: &str) -> anyhow::Result<McpServer> {
    anyhow::bail!(
        "--redis needs the `redis` feature: cargo build -p mcp-bench-server --features redis"
    )
}
