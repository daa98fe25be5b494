//! The load benchmark's server behind access tokens, for the OAuth benchmark
//! (`scripts/bench_oauth.sh`, `BENCHMARKS.md`). Serves Streamable HTTP at
//! `http://127.0.0.1:PORT/mcp`.
//!
//! With `--auth` every request needs an ES256 JWT access token of the benchmark's test issuer
//! with the scope `mcp` (`src/auth.rs`); verified tokens are remembered, as by default, unless
//! `--no-token-cache` is given too. Without `--auth` it serves as `bench_server` does, so that
//! what auth costs is measured within one binary. `--mint-token` prints such a token and exits.
//!
//! ```sh
//! cargo run --release -p mcp-bench-server --features auth --bin bench_server_auth -- --port 8000 --auth [--no-token-cache]
//! cargo run --release -p mcp-bench-server --features auth --bin bench_server_auth -- --mint-token
//! ```

use mcp_bench_server::{app, auth, init_logging};

const USAGE: &str = "usage: bench_server_auth --port PORT [--auth [--no-token-cache]]\n       bench_server_auth --mint-token";

/// What the command line asks for.
struct Options {
    port: u16,
    auth: bool,
    token_cache: bool,
}

impl Options {
    fn parse(args: &[String]) -> anyhow::Result<Self> {
        let (mut port, mut auth, mut token_cache) = (None, false, true);
        let mut rest = args.iter();
        while let Some(flag) = rest.next() {
            match flag.as_str() {
                "--port" => {
                    let value = rest
                        .next()
                        .ok_or_else(|| anyhow::anyhow!("--port needs a value\n{USAGE}"))?;
                    port = Some(value.parse()?);
                }
                "--auth" => auth = true,
                "--no-token-cache" => token_cache = false,
                _ => anyhow::bail!(USAGE),
            }
        }
        if !token_cache && !auth {
            anyhow::bail!("--no-token-cache goes with --auth\n{USAGE}");
        }
        Ok(Options {
            port: port.ok_or_else(|| anyhow::anyhow!(USAGE))?,
            auth,
            token_cache,
        })
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    init_logging();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args == ["--mint-token"] {
        println!("{}", auth::mint_token()?);
        return Ok(());
    }
    let options = Options::parse(&args)?;
    let server = app::server();
    let server = if options.auth {
        server.auth(auth::resource_server(options.token_cache)?)
    } else {
        server
    };
    server.serve_http(("127.0.0.1", options.port)).await?;
    Ok(())
}
