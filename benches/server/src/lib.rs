//! The server of the load benchmarks (`BENCHMARKS.md`): its tools and resource ([`app`]), its
//! log, and for `bench_server_auth` its access tokens. The binaries are `bench_server` and
//! `bench_server_auth`.

pub mod app;
#[cfg(feature = "auth")]
pub mod auth;
// Shared with the in-process profile (`examples/profile_exchange.rs`), so that both measure the
// same tools.
#[path = "../../../examples/support/bench_tools.rs"]
pub mod bench_tools;

/// Logs to stderr at `info` unless `RUST_LOG` says otherwise, as `target=level` lists
/// (`warn`, `mcp=debug,info`). A `Targets` filter rather than the `EnvFilter` the README
/// suggests: the peers the benchmark compares us with log nothing, and `EnvFilter` compiles
/// its directives with a regex engine, whose code alone is 0.6 MB of the server's resident
/// memory.
pub fn init_logging() {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|directives| directives.parse::<Targets>().ok())
        .unwrap_or_else(|| Targets::new().with_default(LevelFilter::INFO));
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    tracing_subscriber::registry()
        .with(stderr)
        .with(filter)
        .init();
}
