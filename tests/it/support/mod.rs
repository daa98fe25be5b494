//! What several facade tests share: a tool that asks a region, then (depending on it) a
//! confirmation, and the scripted user that answers it; `http` is the raw HTTP client,
//! `process` starts and guards child processes, `redis` runs a real redis-server, `snapshot`
//! compares generated JSON with committed files, `tls` makes certificates and serves over
//! HTTPS, `proxy` is an HTTP proxy that counts what it forwards, `tls_front` is nginx
//! terminating TLS, `oauth_server` a real authorization server (oidc-provider).

#[cfg(feature = "http")]
pub mod http;
pub mod log;
pub mod oauth_server;
pub mod process;
#[cfg(feature = "tls")]
pub mod proxy;
pub mod redis;
pub mod snapshot;
#[cfg(feature = "tls")]
pub mod tls;
#[cfg(feature = "tls")]
pub mod tls_front;
pub mod wire;

use mcp::Elicit;
use mcp::protocol::{ElicitParams, ElicitResult};
use serde_json::json;

/// Which region?
#[derive(serde::Deserialize, mcp::Elicitation)]
pub struct Region {
    pub region: String,
}

/// Sure?
#[derive(serde::Deserialize, mcp::Elicitation)]
pub struct Sure {
    pub ok: bool,
}

#[mcp::tool]
pub async fn provision(
    name: String,
    #[mcp(ask = format!("Region for {name}?"))] region: Elicit<Region>,
    #[mcp(ask = format!("{name} in {}?", region.region))] sure: Elicit<Sure>,
) -> String {
    format!("{name} in {}: {}", region.region, sure.ok)
}

/// The scripted user of `provision`: `eu-west-1` for the region, yes to everything else.
pub fn answer(question: &ElicitParams) -> ElicitResult {
    let content = if question.message().starts_with("Region") {
        json!({"region": "eu-west-1"})
    } else {
        json!({"ok": true})
    };
    ElicitResult::accept(content.as_object().cloned().unwrap_or_default())
}

/// A client talking to `server` in this process, over an in-memory transport.
pub fn connect_in_memory(server: mcp::server::Server) -> mcp::client::Client {
    mcp::client::Client::builder(mcp::protocol::Implementation::new("test-client", "1.0.0"))
        .connect(server.serve_in_memory())
}
