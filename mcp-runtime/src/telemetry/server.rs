//! The server's side: a span per request, continued from the trace context the client put
//! in `params._meta`, and the duration of every request.

use std::borrow::Cow;

use opentelemetry::trace::TraceContextExt as _;
use serde::Deserialize;
use serde_json::value::RawValue;
use tracing::Instrument as _;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

use crate::protocol::{McpError, RequestId};

use super::operation::{
    Ending, Operation, Side, Target, Underway, count_refusal, watching_tool_errors,
};
use super::propagation::CarriedContext;

/// What the telemetry knows of the connection a request came on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Peer {
    /// `network.transport`: `tcp` for HTTP, `pipe` for stdio (and the in-memory pair).
    pub(crate) network_transport: &'static str,
    /// `mcp.session.id`: the 2025-11-25 HTTP session.
    pub(crate) session_id: Option<String>,
}

impl Peer {
    /// A connection over HTTP, in the 2025-11-25 session `session_id` if it has one.
    pub(crate) fn http(session_id: Option<String>) -> Self {
        Self {
            network_transport: "tcp",
            session_id,
        }
    }

    /// A connection over a pipe pair: stdio, or the in-memory pair within one process.
    pub(crate) fn pipe() -> Self {
        Self {
            network_transport: "pipe",
            session_id: None,
        }
    }
}

/// The part of a request's params the telemetry reads, borrowed from the request's text.
#[derive(Debug, Default, Deserialize)]
struct Glimpse<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    uri: Option<Cow<'a, str>>,
    /// `initialize`'s requested revision.
    #[serde(borrow, default, rename = "protocolVersion")]
    protocol_version: Option<Cow<'a, str>>,
    #[serde(borrow, default, rename = "_meta")]
    meta: Option<MetaGlimpse<'a>>,
}

#[derive(Debug, Default, Deserialize)]
struct MetaGlimpse<'a> {
    #[serde(borrow, default, rename = "io.modelcontextprotocol/protocolVersion")]
    protocol_version: Option<Cow<'a, str>>,
    // Read as `CarriedContext`'s own fields, not flattened: flattening would buffer every
    // other `_meta` key (the client's capabilities and info) on each request.
    #[serde(borrow, default)]
    traceparent: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tracestate: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    baggage: Option<Cow<'a, str>>,
}

/// Serves one request under its span and records its duration. `session_version` is the
/// revision of the 2025-11-25 session the request belongs to, asked only when the request
/// does not name its own.
pub(crate) async fn observe(
    id: &RequestId,
    method: &str,
    params: Option<&RawValue>,
    peer: Option<&Peer>,
    session_version: impl FnOnce() -> Option<String>,
    work: impl Future<Output = Result<String, McpError>>,
) -> Result<String, McpError> {
    // Params the server cannot read are refused by the server; the span just knows less.
    let glimpse: Glimpse<'_> = params
        .and_then(|params| serde_json::from_str(params.get()).ok())
        .unwrap_or_default();
    let Glimpse {
        name,
        uri,
        protocol_version,
        meta,
    } = glimpse;
    let (meta_version, carried) = match meta {
        Some(meta) => (
            meta.protocol_version,
            CarriedContext {
                traceparent: meta.traceparent,
                tracestate: meta.tracestate,
                baggage: meta.baggage,
            },
        ),
        None => (None, CarriedContext::default()),
    };
    let operation = Operation {
        side: Side::Server,
        method,
        target: Target::of(method, name, uri),
        protocol_version: meta_version
            .or(protocol_version)
            .or_else(|| session_version().map(Cow::Owned)),
        network_transport: peer.map(|peer| peer.network_transport),
        session_id: peer.and_then(|peer| peer.session_id.as_deref()),
        server_address: None,
    };
    let span = operation.span(Some(id));
    if !span.is_disabled()
        && let Some(parent) = carried.parent()
    {
        // The ambient span (an HTTP server span, say) is linked rather than the parent: the
        // MCP client's span is the parent whatever the transport did in between.
        let ambient = tracing::Span::current().context();
        let ambient = ambient.span().span_context().clone();
        let _ = span.set_parent(parent);
        if ambient.is_valid() {
            span.add_link(ambient);
        }
    }
    let underway = Underway::start(&operation, &span);
    let (outcome, tool_error) = watching_tool_errors(work.instrument(span.clone())).await;
    let ending = match &outcome {
        Ok(_) if tool_error => Ending::ToolError,
        Ok(_) => Ending::Success,
        Err(error) => {
            count_refusal(method, error);
            Ending::Rpc(error)
        }
    };
    underway.finish(ending);
    outcome
}
