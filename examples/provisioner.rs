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
//!
//! Behind OAuth: `--auth-issuer URL --resource URL --jwt-key FILE` accept only ES256 JWT access
//! tokens signed with the PEM public key in FILE by that issuer for that resource (the
//! endpoint's public URL, e.g. `https://mcp.example.com/mcp` behind a TLS proxy), and
//! `--scope S` requires a scope of every request. The metadata clients discover the
//! authorization server by is served at `/.well-known/oauth-protected-resource/mcp`.
//!
//! Built with `--features otel` and with `OTEL_EXPORTER_OTLP_ENDPOINT` set, it exports traces
//! and metrics over OTLP/HTTP (protobuf) as `OTEL_SERVICE_NAME` (default `provisioner`), and
//! continues the trace a client sends in `params._meta` (`traceparent`):
//!
//! ```sh
//! OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 \
//!   cargo run --features otel --example provisioner -- --http 127.0.0.1:8000
//! ```

#[cfg(not(feature = "otel"))]
#[path = "support/logging.rs"]
mod logging;

use mcp::auth::{DpopPolicy, JwtKey, ResourceServer};
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

const USAGE: &str = "usage: provisioner [--http ADDR [--grace SECS] [--drain SECS] \
     [--header-timeout SECS] [--auth-issuer URL --resource URL --jwt-key FILE [--scope S]]]";

/// The OAuth settings of `--http`, all or none.
#[derive(Default)]
struct Auth {
    issuer: Option<String>,
    resource: Option<String>,
    key_file: Option<String>,
    scope: Option<String>,
}

impl Auth {
    fn resource_server(self) -> anyhow::Result<Option<ResourceServer>> {
        let (issuer, resource, key_file) = match (self.issuer, self.resource, self.key_file) {
            (None, None, None) if self.scope.is_none() => return Ok(None),
            (Some(issuer), Some(resource), Some(key_file)) => (issuer, resource, key_file),
            _ => anyhow::bail!("--auth-issuer, --resource and --jwt-key go together\n{USAGE}"),
        };
        let key = JwtKey::ec_pem(std::fs::read(&key_file)?)?;
        // Bearer tokens, and tokens bound to the client's key by DPoP where the authorization
        // server issues them.
        let auth = ResourceServer::jwt(resource, issuer, key)?.dpop(DpopPolicy::Allowed);
        Ok(Some(match self.scope {
            Some(scope) => auth.require_scopes([scope]),
            None => auth,
        }))
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    #[cfg(feature = "otel")]
    {
        let telemetry = telemetry::init()?;
        let served = serve().await;
        if let Some(telemetry) = telemetry {
            // What the last requests left in the exporters' buffers.
            telemetry.shutdown().await;
        }
        served
    }
    #[cfg(not(feature = "otel"))]
    {
        logging::init();
        serve().await
    }
}

async fn serve() -> anyhow::Result<()> {
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
    let mut auth = Auth::default();
    for pair in options.chunks(2) {
        let [flag, value] = pair else {
            anyhow::bail!(USAGE);
        };
        let setting = match flag.as_str() {
            "--auth-issuer" => &mut auth.issuer,
            "--resource" => &mut auth.resource,
            "--jwt-key" => &mut auth.key_file,
            "--scope" => &mut auth.scope,
            _ => {
                let seconds = std::time::Duration::try_from_secs_f64(value.parse()?)?;
                server = match flag.as_str() {
                    "--grace" => server.grace_period(seconds),
                    "--drain" => server.drain(seconds),
                    "--header-timeout" => server.header_read_timeout(seconds),
                    _ => anyhow::bail!(USAGE),
                };
                continue;
            }
        };
        *setting = Some(value.clone());
    }
    if let Some(auth) = auth.resource_server()? {
        server = server.auth(auth);
    }
    eprintln!("serving http://{addr}/mcp");
    server.serve_http(addr.clone()).await?;
    Ok(())
}

#[cfg(feature = "otel")]
mod telemetry {
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;

    /// The log of `logging::init`, and with `OTEL_EXPORTER_OTLP_ENDPOINT` set, the spans and
    /// metrics exported there.
    pub fn init() -> anyhow::Result<Option<mcp::telemetry::Telemetry>> {
        let telemetry = mcp::telemetry::Telemetry::from_env("provisioner")?;
        let filter = tracing_subscriber::EnvFilter::try_from_default_env()
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
        let log = tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
        tracing_subscriber::registry()
            .with(telemetry.as_ref().map(|telemetry| telemetry.layer()))
            .with(log)
            .with(filter)
            .init();
        Ok(telemetry)
    }
}
