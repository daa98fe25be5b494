//! The seed's provisioner as users write it: a tool that asks which region to use, then (with
//! the region known) asks for a confirmation, then provisions. Serves MCP over stdio, or over
//! Streamable HTTP with `--http ADDR`.
//!
//! ```sh
//! cargo run --example provisioner
//! cargo run --example provisioner -- --http 127.0.0.1:8000   # http://127.0.0.1:8000/mcp
//! cargo run --example provisioner -- --http 127.0.0.1:8000 --grace 10 --drain 3
//! ```
//!
//! With `MCP_REQUEST_STATE_KEYS` set (comma-separated secrets of 32 bytes or more), every
//! instance started with the same keys can finish a round that another one started.
//! On SIGTERM or Ctrl-C the HTTP server stops accepting, leaves idle connections up to
//! `--drain` seconds for a load balancer to close (default 0), lets in-flight requests finish
//! within `--grace` seconds (default 30), and exits 0. `--header-timeout` bounds how long a
//! client may take to send a request's headers (default 10).

#[path = "support/logging.rs"]
mod logging;

use mcp::state::RequestStateSecurity;
use mcp::{Elicit, Elicited, McpServer};

#[derive(Debug, serde::Deserialize, mcp::Elicitation)]
enum Region {
    /// Ireland
    #[serde(rename = "eu-west-1")]
    EuWest1,
    /// N. Virginia
    #[serde(rename = "us-east-1")]
    UsEast1,
    /// Mumbai
    #[serde(rename = "ap-south-1")]
    ApSouth1,
}

impl Region {
    fn code(&self) -> &'static str {
        match self {
            Region::EuWest1 => "eu-west-1",
            Region::UsEast1 => "us-east-1",
            Region::ApSouth1 => "ap-south-1",
        }
    }
}

/// Which region should the database live in?
#[derive(Debug, serde::Deserialize, mcp::Elicitation)]
struct Placement {
    region: Region,
}

/// Go ahead?
#[derive(Debug, serde::Deserialize, mcp::Elicitation)]
struct Confirm {
    /// Tick to provision.
    confirm: bool,
}

/// Provision a database. Asks which region to put it in, then for a confirmation.
#[mcp::tool(destructive)]
async fn provision(
    /// The database to create.
    name: String,
    #[mcp(ask = format!("Which region should '{name}' live in?"), key = "region")]
    placement: Elicit<Placement>,
    #[mcp(ask = format!("Provision '{name}' in {}?", placement.region.code()))] confirm: Elicited<
        Confirm,
    >,
) -> String {
    match confirm {
        Elicited::Accepted(Confirm { confirm: true }) => {
            format!("Provisioned '{name}' in {}.", placement.region.code())
        }
        _ => format!("Did not provision '{name}'."),
    }
}

const USAGE: &str =
    "usage: provisioner [--http ADDR [--grace SECS] [--drain SECS] [--header-timeout SECS]]";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    logging::init();
    let security = match std::env::var_os("MCP_REQUEST_STATE_KEYS") {
        Some(_) => RequestStateSecurity::from_env("MCP_REQUEST_STATE_KEYS")?,
        None => RequestStateSecurity::ephemeral(),
    };
    let mut server = McpServer::new("provisioner")
        .version(env!("CARGO_PKG_VERSION"))
        .tools(mcp::tools![provision])
        .request_state_security(security);
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (addr, options) = match &args[..] {
        [] => return Ok(server.serve_stdio().await?),
        [flag, addr, options @ ..] if flag == "--http" => (addr, options),
        _ => anyhow::bail!(USAGE),
    };
    for pair in options.chunks(2) {
        let [flag, seconds] = pair else {
            anyhow::bail!(USAGE);
        };
        let seconds = std::time::Duration::try_from_secs_f64(seconds.parse()?)?;
        server = match flag.as_str() {
            "--grace" => server.grace_period(seconds),
            "--drain" => server.drain(seconds),
            "--header-timeout" => server.header_read_timeout(seconds),
            _ => anyhow::bail!(USAGE),
        };
    }
    eprintln!("serving http://{addr}/mcp");
    server.serve_http(addr.clone()).await?;
    Ok(())
}
