//! The 2026-07-28 wire: one self-describing message per POST, no session.

use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use crate::auth::Identity;
use crate::protocol::{Incoming, McpError, RawRequest, RequestMeta, Text, methods};
use crate::server::{Connection, Head};

use super::Shared;
use super::headers::{self, BodyFacts};
use super::respond::{self, Job, StatusRules};

/// A request's params as routing and the gate read them, in one pass: the gate's head
/// (`_meta`, `requestState`) and, borrowed, what the routing headers are checked against.
#[derive(Deserialize)]
struct Read<'a> {
    #[serde(rename = "_meta", default)]
    meta: Option<RequestMeta>,
    #[serde(rename = "requestState", default)]
    request_state: Option<Value>,
    #[serde(borrow, default)]
    name: Option<Text<'a>>,
    #[serde(borrow, default)]
    uri: Option<Text<'a>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

/// What routing reads from params that do not have the shape [`Read`] expects (a `_meta` the
/// gate will reject, a `name` that is not a string): whether they claim the stateless wire.
/// Their headers are still checked, against a body that names no target, so an odd body cannot
/// slip past the routing checks; the gate then says precisely what is wrong.
#[derive(Deserialize, Default)]
struct Claim<'a> {
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<ClaimedMeta<'a>>,
}

#[derive(Deserialize, Default)]
struct ClaimedMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    protocol_version: Option<Text<'a>>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", default)]
    client_capabilities: Option<IgnoredAny>,
}

/// What the routing headers are compared with.
#[derive(Default)]
struct Target<'a> {
    name: Option<&'a str>,
    uri: Option<&'a str>,
    arguments: Option<&'a RawValue>,
}

/// How a POSTed message travels.
pub(super) struct Classified {
    /// On the stateless wire: its `_meta` names a protocol version.
    pub modern: bool,
    /// The gate's head of a request's params, read while routing it.
    pub head: Option<Box<Head>>,
}

/// Whether a message is on the stateless wire and, for such a request, whether its routing
/// headers agree with its body. The params are read once for this and for the gate.
pub(super) async fn classify(
    shared: &Shared,
    headers: &HeaderMap,
    message: &Incoming,
) -> Result<Classified, McpError> {
    let (params, request) = match message {
        Incoming::Request(r) => (r.params.as_deref(), Some(r)),
        Incoming::Notification(n) => (n.params.as_deref(), None),
        Incoming::Response(_) => {
            return Ok(Classified {
                modern: false,
                head: None,
            });
        }
    };
    let Some(params) = params else {
        return Ok(Classified {
            modern: false,
            head: None,
        });
    };
    let Ok(read) = serde_json::from_str::<Read<'_>>(params.get()) else {
        let claim: Claim<'_> = serde_json::from_str(params.get()).unwrap_or_default();
        let Some(meta) = claim.meta else {
            return Ok(Classified {
                modern: false,
                head: None,
            });
        };
        let modern = meta.protocol_version.is_some();
        if let (Some(version), Some(_), Some(request)) =
            (&meta.protocol_version, &meta.client_capabilities, request)
        {
            check_headers(shared, headers, request, version, Target::default()).await?;
        }
        return Ok(Classified { modern, head: None });
    };
    // The head is boxed before the headers are checked, so the future that awaits the
    // check does not carry the whole `_meta` inline.
    let Read {
        meta,
        request_state,
        name,
        uri,
        arguments,
    } = read;
    let head = Box::new(Head {
        meta,
        request_state,
    });
    let version = head
        .meta
        .as_ref()
        .and_then(|m| m.protocol_version.as_deref());
    let modern = version.is_some();
    if let (Some(version), Some(request)) = (version, request) {
        let has_capabilities = head
            .meta
            .as_ref()
            .is_some_and(|m| m.client_capabilities.is_some());
        // A request missing its `_meta` fields gets the gate's -32602, which says more than
        // -32020.
        if has_capabilities {
            let target = Target {
                name: name.as_deref(),
                uri: uri.as_deref(),
                arguments,
            };
            check_headers(shared, headers, request, version, target).await?;
        }
    }
    let head = request.map(|_| head);
    Ok(Classified { modern, head })
}

/// What the POST handler learnt about a request before it is served.
pub(super) struct Envelope {
    /// The verified caller.
    pub identity: Option<Arc<Identity>>,
    /// The gate's head of the params, read while routing.
    pub head: Option<Box<Head>>,
    /// Whether the client accepts `text/event-stream`.
    pub sse_allowed: bool,
}

/// Serves one 2026-07-28 message whose headers [`classify`] accepted.
pub(super) async fn handle(shared: &Shared, message: Incoming, envelope: Envelope) -> Response {
    let Envelope {
        identity,
        head,
        sse_allowed,
    } = envelope;
    match message {
        Incoming::Request(request) => {
            let job = Job {
                request,
                connection: Arc::new(Connection::new()),
                identity,
                cancellation: CancellationToken::new(),
                rules: StatusRules::Modern,
                sse_allowed,
                held_until_done: None,
                head,
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

/// Validates the routing headers of a request whose `_meta` is complete enough to compare
/// them with.
async fn check_headers(
    shared: &Shared,
    headers: &HeaderMap,
    request: &RawRequest,
    version: &str,
    target: Target<'_>,
) -> Result<(), McpError> {
    let name = match request.method.as_str() {
        methods::TOOLS_CALL | methods::PROMPTS_GET => Some(target.name),
        methods::RESOURCES_READ => Some(target.uri),
        _ => None,
    };
    headers::check_routing(
        headers,
        &BodyFacts {
            method: &request.method,
            protocol_version: version,
            name,
        },
    )?;
    if request.method == methods::TOOLS_CALL {
        let bindings = shared
            .header_bindings(target.name.unwrap_or_default())
            .await;
        if !bindings.is_empty() {
            let arguments: Option<Value> = target
                .arguments
                .and_then(|a| serde_json::from_str(a.get()).ok());
            headers::check_params(headers, &bindings, arguments.as_ref())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_read_in_one_pass_for_routing_and_the_gate() {
        let params = r#"{"name":"provision","arguments":{"name":"orders"},"inputResponses":{"region":{"action":"accept","content":{"region":"eu-west-1"}}},"requestState":"v1.abc","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"0.1.0"}}}"#;
        let read: Read<'_> = serde_json::from_str(params).expect("one pass reads it");
        assert_eq!(read.name.as_deref(), Some("provision"));
        assert_eq!(read.request_state, Some(Value::from("v1.abc")));
        let meta = read.meta.expect("_meta");
        assert_eq!(meta.protocol_version.as_deref(), Some("2026-07-28"));
        assert!(meta.client_capabilities.is_some());
    }
}
