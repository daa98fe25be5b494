//! The 2026-07-28 wire: one self-describing message per POST, no session.

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::Response;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::identity::Identity;
use crate::protocol::{Incoming, McpError, RawRequest, methods};
use crate::server::{Connection, Preparsed, Preread};

use super::Shared;
use super::headers::{self, BodyFacts, Decisive};
use super::respond::{self, Job, StatusRules};

/// What the routing headers are compared with.
#[derive(Default)]
struct Target<'a> {
    name: Option<&'a str>,
    uri: Option<&'a str>,
    arguments: Option<&'a str>,
    /// For a method an extension routes by a params member: that member, if it is a string.
    routed: Option<Option<&'a str>>,
}

/// How a POSTed message travels.
pub(super) struct Classified {
    /// On the stateless wire: its `_meta` names a protocol version.
    pub stateless: bool,
    /// A request's params as the gate reads them, read while routing it.
    pub preparsed: Option<Preparsed>,
}

/// Whether a message is on the stateless wire and, for such a request, whether its routing
/// headers agree with its body. The params are read once for this and for the gate.
pub(super) async fn classify(
    shared: &Shared,
    sent: &Decisive<'_>,
    message: &Incoming,
) -> Result<Classified, McpError> {
    let (params, request) = match message {
        Incoming::Request(r) => (r.params.as_deref(), Some(r)),
        Incoming::Notification(n) => (n.params.as_deref(), None),
        Incoming::Response(_) => {
            return Ok(Classified {
                stateless: false,
                preparsed: None,
            });
        }
    };
    let Some(params) = params else {
        return Ok(Classified {
            stateless: false,
            preparsed: None,
        });
    };
    let routed_by = request.and_then(|r| shared.server.routing_param(&r.method));
    // Fail closed: a body the server's own reader refuses is refused here, before anything
    // is decided on what it seems to say.
    let read = Preread::read(params, routed_by)?;
    let Preread {
        preparsed,
        name,
        uri,
        arguments,
        routed,
    } = read;
    let version = preparsed.protocol_version();
    let stateless = version.is_some();
    // A request missing its `_meta` fields gets the gate's -32602, which says more than
    // -32020.
    if let (Some(version), true, Some(request)) =
        (version, preparsed.declares_client_capabilities(), request)
    {
        let target = Target {
            name: name.as_deref(),
            uri: uri.as_deref(),
            arguments,
            routed: routed_by.map(|_| routed.as_deref()),
        };
        check_headers(shared, sent, request, version, target).await?;
    }
    let preparsed = request.map(|_| preparsed);
    Ok(Classified {
        stateless,
        preparsed,
    })
}

/// What the POST handler learnt about a request before it is served.
pub(super) struct Envelope {
    /// The verified caller.
    pub identity: Option<Arc<Identity>>,
    /// The params as the gate reads them, read while routing.
    pub preparsed: Option<Preparsed>,
    /// Whether the client accepts `text/event-stream`.
    pub sse_allowed: bool,
}

/// Serves one 2026-07-28 message whose headers [`classify`] accepted.
// Not an `async fn`, so `message` is held once (see `endpoint::post`).
pub(super) fn handle(
    shared: &Shared,
    message: Incoming,
    envelope: Envelope,
) -> impl Future<Output = Response> + '_ {
    let Envelope {
        identity,
        preparsed,
        sse_allowed,
    } = envelope;
    async move {
        match message {
            Incoming::Request(request) => {
                let job = Job {
                    request,
                    connection: stateless_connection(),
                    identity,
                    cancellation: CancellationToken::new(),
                    rules: StatusRules::Stateless,
                    sse_allowed,
                    held_until_done: None,
                    preparsed,
                    closing: shared.streams_closing.clone(),
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
                tracing::debug!(
                    id = %r.id,
                    "dropped a response: the 2026-07-28 wire sends no requests"
                );
                respond::empty(StatusCode::ACCEPTED)
            }
        }
    }
}

/// Validates the routing headers of a request whose `_meta` is complete enough to compare
/// them with.
async fn check_headers(
    shared: &Shared,
    sent: &Decisive<'_>,
    request: &RawRequest,
    version: &str,
    target: Target<'_>,
) -> Result<(), McpError> {
    let name = match request.method.as_str() {
        methods::TOOLS_CALL | methods::PROMPTS_GET => Some(target.name),
        methods::RESOURCES_READ => Some(target.uri),
        // An extension's method is held to its routing field as a core method to its name.
        _ => target.routed,
    };
    headers::check_routing(
        sent,
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
            let arguments: Option<Value> =
                target.arguments.and_then(|a| serde_json::from_str(a).ok());
            headers::check_params(sent.all, &bindings, arguments.as_ref())?;
        }
    }
    Ok(())
}

/// The connection of one stateless request, which the telemetry knows came over HTTP.
fn stateless_connection() -> Arc<Connection> {
    let connection = Connection::new();
    #[cfg(feature = "otel")]
    let _ = connection.peer.set(crate::telemetry::Peer::http(None));
    Arc::new(connection)
}
