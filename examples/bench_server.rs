//! The server the load benchmark drives (`BENCHMARKS.md`): what a user would write, with the
//! framework's defaults (sealed `requestState` on). Serves MCP 2026-07-28 and 2025-11-25 over
//! Streamable HTTP at `http://127.0.0.1:PORT/mcp`.
//!
//! `touch` tells whoever listens to `bench://counter` that it changed (the fan-out benchmark).
//! `job` runs as a task for a client that takes one (the tasks benchmark); its tasks are kept
//! in memory. With `--redis URL` (feature `redis`), the instances on one Redis share their
//! changes, so a touch through one reaches the listeners of all, and keep their tasks there.
//! Either store holds up to [`MAX_TASKS`] tasks, not the default 100,000: a benchmark creates
//! more than that within the default ttl of an hour.
//!
//! With `--auth` every request needs an ES256 JWT access token of the benchmark's test issuer
//! with the scope `mcp` (`support/bench_auth.rs`); verified tokens are remembered, as by
//! default, unless `--no-token-cache` is given too. `--mint-token` prints such a token and exits.
//!
//! ```sh
//! cargo run --release --example bench_server -- --port 8000
//! cargo run --release --example bench_server -- --port 8000 --auth [--no-token-cache]
//! cargo run --release --example bench_server -- --mint-token
//! cargo run --release --example bench_server --features redis -- --port 8001 --redis redis://127.0.0.1:6379
//! ```

#[path = "support/bench_auth.rs"]
mod bench_auth;
#[path = "support/bench_tools.rs"]
mod bench_tools;
#[path = "support/logging.rs"]
mod logging;

use std::sync::atomic::{AtomicU64, Ordering};

use mcp::McpServer;
use mcp::tasks::{MemoryTaskStore, TaskLimits, Tasks};

use bench_tools::{echo, provision};

/// How many times `bench://counter` was touched.
#[mcp::resource("bench://counter")]
async fn counter(touches: mcp::State<Touches>) -> String {
    touches.0.load(Ordering::Relaxed).to_string()
}

#[derive(Default)]
struct Touches(AtomicU64);

/// Count one touch of `bench://counter` and tell its listeners.
#[mcp::tool]
async fn touch(touches: mcp::State<Touches>, ctx: mcp::Context) -> String {
    let count = touches.0.fetch_add(1, Ordering::Relaxed) + 1;
    ctx.server().resource_updated("bench://counter");
    count.to_string()
}

/// Completes at once; a task when the client takes one.
#[mcp::tool(task = "optional")]
async fn job() -> &'static str {
    "done"
}

/// How many tasks the store holds, finished or not, before it refuses more.
const MAX_TASKS: usize = 10_000_000;

fn task_limits() -> TaskLimits {
    let mut limits = TaskLimits::default();
    limits.total = MAX_TASKS;
    limits
}

const USAGE: &str = "usage: bench_server --port PORT [--redis URL] [--auth [--no-token-cache]]\n       bench_server --mint-token";

/// What the command line asks for.
struct Options {
    port: u16,
    redis: Option<String>,
    auth: bool,
    token_cache: bool,
}

impl Options {
    fn parse(args: &[String]) -> anyhow::Result<Self> {
        let mut options = Options {
            port: 0,
            redis: None,
            auth: false,
            token_cache: true,
        };
        let mut rest = args.iter();
        let mut port = None;
        while let Some(flag) = rest.next() {
            let mut value = || {
                rest.next()
                    .ok_or_else(|| anyhow::anyhow!("{flag} needs a value\n{USAGE}"))
            };
            match flag.as_str() {
                "--port" => port = Some(value()?.parse()?),
                "--redis" => options.redis = Some(value()?.clone()),
                "--auth" => options.auth = true,
                "--no-token-cache" => options.token_cache = false,
                _ => anyhow::bail!(USAGE),
            }
        }
        options.port = port.ok_or_else(|| anyhow::anyhow!(USAGE))?;
        if !options.token_cache && !options.auth {
            anyhow::bail!("--no-token-cache goes with --auth\n{USAGE}");
        }
        Ok(options)
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    logging::init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args == ["--mint-token"] {
        println!("{}", bench_auth::mint_token()?);
        return Ok(());
    }
    let options = Options::parse(&args)?;
    let server = McpServer::new("bench")
        .version(env!("CARGO_PKG_VERSION"))
        .tools(mcp::tools![echo, provision, touch, job])
        .resources(mcp::resources![counter])
        .state(Touches::default())
        .tasks(Tasks::new(MemoryTaskStore::with_limits(task_limits())));
    let server = match &options.redis {
        None => server,
        Some(url) => with_redis(server, url)?,
    };
    let server = if options.auth {
        server.auth(bench_auth::resource_server(options.token_cache)?)
    } else {
        server
    };
    server.serve_http(("127.0.0.1", options.port)).await?;
    Ok(())
}

#[cfg(feature = "redis")]
fn with_redis(server: McpServer, url: &str) -> anyhow::Result<McpServer> {
    let bus = mcp::push::RedisBus::new(url, "mcp-bench:changes")?;
    let store = mcp::tasks::RedisTaskStore::builder(url)
        .limits(task_limits())
        .build()?;
    Ok(server.notification_bus(bus).tasks(Tasks::new(store)))
}

#[cfg(not(feature = "redis"))]
fn with_redis(_: McpServer, _: &str) -> anyhow::Result<McpServer> {
    anyhow::bail!(
        "--redis needs the `redis` feature: cargo build --example bench_server --features redis"
    )
}
