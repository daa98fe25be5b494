//! The 2026-07-28 wire: one self-describing message per POST, no session.

use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use crate::auth::Identity;
use crate::protocol::{Incoming, McpError, RawRequest, methods};
use crate::server::Connection;

use super::Shared;
use super::headers::{self, BodyFacts};
use super::respond::{self, Job, StatusRules};

/// What routing needs from a message's params, read without copying them.
#[derive(Deserialize, Default)]
struct Facts<'a> {
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<MetaFacts<'a>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    uri: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
struct MetaFacts<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    protocol_version: Option<Cow<'a, str>>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", default)]
    client_capabilities: Option<IgnoredAny>,
}

/// Params that do not even have this shape are left for the gate to reject with a precise
/// message; routing treats them as carrying nothing.
fn facts(params: Option<&RawValue>) -> Facts<'_> {
    params
        .and_then(|p| serde_json::from_str(p.get()).ok())
        .unwrap_or_default()
}

/// Whether a message is on the stateless wire (its `_meta` names a protocol version) and, for
/// such a request, whether its routing headers agree with its body: the params are read once
/// for both.
pub(super) async fn classify(
    shared: &Shared,
    headers: &HeaderMap,
    message: &Incoming,
) -> Result<bool, McpError> {
    let params = match message {
        Incoming::Request(r) => r.params.as_deref(),
        Incoming::Notification(n) => n.params.as_deref(),
        Incoming::Response(_) => return Ok(false),
    };
    let facts = facts(params);
    let modern = facts
        .meta
        .as_ref()
        .is_some_and(|m| m.protocol_version.is_some());
    if let (true, Incoming::Request(request)) = (modern, message) {
        check_headers(shared, headers, request, facts).await?;
    }
    Ok(modern)
}

/// Serves one 2026-07-28 message whose headers [`classify`] accepted.
pub(super) async fn handle(
    shared: &Shared,
    headers: &HeaderMap,
    message: Incoming,
    identity: Option<Arc<Identity>>,
) -> Response {
    match message {
        Incoming::Request(request) => {
            let job = Job {
                request,
                connection: Arc::new(Connection::new()),
                identity,
                cancellation: CancellationToken::new(),
                rules: StatusRules::Modern,
                sse_allowed: headers::accepts(headers, "text/event-stream"),
                held_until_done: None,
            };
            respond::run(&shared.server, job).await
        }
        // Over HTTP a request is cancelled by closing its stream, so a notification has
        // nothing to act on; it is acknowledged and dropped.
        Incoming::Notification(n) => {
            tracing::debug!(method = %n.method, "ignored a notification");
            respond::empty(StatusCode::ACCEPTED)
        }
        Incoming::Response(r) => {
            tracing::debug!(id = %r.id, "dropped a response: the 2026-07-28 wire sends no requests");
            respond::empty(StatusCode::ACCEPTED)
        }
    }
}

/// Validates the routing headers, once `_meta` is complete enough to compare them with: a
/// request missing its `_meta` fields gets the gate's -32602, which says more than -32020.
async fn check_headers(
    shared: &Shared,
    headers: &HeaderMap,
    request: &RawRequest,
    facts: Facts<'_>,
) -> Result<(), McpError> {
    let Some(meta) = facts.meta else {
        return Ok(());
    };
    let (Some(version), Some(_)) = (meta.protocol_version, meta.client_capabilities) else {
        return Ok(());
    };
    let name = match request.method.as_str() {
        methods::TOOLS_CALL | methods::PROMPTS_GET => Some(facts.name.as_deref()),
        methods::RESOURCES_READ => Some(facts.uri.as_deref()),
        _ => None,
    };
    headers::check_routing(
        headers,
        &BodyFacts {
            method: &request.method,
            protocol_version: &version,
            name,
        },
    )?;
    if request.method == methods::TOOLS_CALL {
        let bindings = shared
            .header_bindings(facts.name.as_deref().unwrap_or_default())
            .await;
        if !bindings.is_empty() {
            let arguments: Option<Value> = facts
                .arguments
                .and_then(|a| serde_json::from_str(a.get()).ok());
            headers::check_params(headers, &bindings, arguments.as_ref())?;
        }
    }
    Ok(())
}
