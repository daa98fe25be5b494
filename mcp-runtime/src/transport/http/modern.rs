//! The 2026-07-28 wire: one self-describing message per POST, no session.

use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::protocol::{Incoming, McpError, RawRequest, keys, methods};
use crate::server::Connection;

use super::Shared;
use super::headers::{self, BodyFacts};
use super::respond::{self, Job, StatusRules};

/// Whether a message's `_meta` names a protocol version: the mark of the stateless wire.
pub(super) fn is_modern_message(params: Option<&serde_json::value::RawValue>) -> bool {
    #[derive(Deserialize)]
    struct Head {
        #[serde(rename = "_meta")]
        meta: Option<serde_json::Map<String, Value>>,
    }
    params
        .and_then(|p| serde_json::from_str::<Head>(p.get()).ok())
        .and_then(|h| h.meta)
        .is_some_and(|m| m.contains_key(keys::PROTOCOL_VERSION))
}

/// Serves one 2026-07-28 message.
pub(super) async fn handle(shared: &Shared, headers: &HeaderMap, message: Incoming) -> Response {
    match message {
        Incoming::Request(request) => {
            if let Err(error) = check_headers(shared, headers, &request).await {
                return respond::error(Some(&request.id), &error, StatusRules::Modern);
            }
            let job = Job {
                request,
                connection: Arc::new(Connection::new()),
                identity: None,
                cancellation: CancellationToken::new(),
                rules: StatusRules::Modern,
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
) -> Result<(), McpError> {
    let params: Option<Value> = match request.params.as_deref() {
        Some(raw) => serde_json::from_str(raw.get()).ok(),
        None => None,
    };
    let meta = params.as_ref().and_then(|p| p.get("_meta"));
    let version = meta
        .and_then(|m| m.get(keys::PROTOCOL_VERSION))
        .and_then(Value::as_str);
    let has_capabilities = meta.is_some_and(|m| m.get(keys::CLIENT_CAPABILITIES).is_some());
    let Some(version) = version.filter(|_| has_capabilities) else {
        return Ok(());
    };
    headers::check_routing(
        headers,
        &BodyFacts {
            method: &request.method,
            protocol_version: version,
            params: params.as_ref(),
        },
    )?;
    if request.method == methods::TOOLS_CALL {
        let name = params
            .as_ref()
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let bindings = shared.header_bindings(name).await;
        let arguments = params.as_ref().and_then(|p| p.get("arguments"));
        headers::check_params(headers, &bindings, arguments)?;
    }
    Ok(())
}
