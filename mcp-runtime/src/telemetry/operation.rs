//! One MCP operation as the conventions describe it, on either side: its span (named
//! `{mcp.method.name} {target}`), the attributes its span and its duration share, and how it
//! ended.

use std::borrow::Cow;
use std::cell::Cell;
use std::time::{Duration, Instant};

use opentelemetry::KeyValue;
use tracing::field::Empty;

use crate::protocol::{McpError, RequestId, code, methods};

use super::conventions as semconv;
use super::metrics;

/// What a request is about, beyond its method.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Target<'a> {
    Tool(Cow<'a, str>),
    Prompt(Cow<'a, str>),
    Resource(Cow<'a, str>),
    Nothing,
}

impl<'a> Target<'a> {
    /// The target of `method` with the params' `name` and `uri`.
    pub(crate) fn of(method: &str, name: Option<Cow<'a, str>>, uri: Option<Cow<'a, str>>) -> Self {
        match method {
            methods::TOOLS_CALL => name.map_or(Self::Nothing, Self::Tool),
            methods::PROMPTS_GET => name.map_or(Self::Nothing, Self::Prompt),
            methods::RESOURCES_READ
            | methods::RESOURCES_SUBSCRIBE
            | methods::RESOURCES_UNSUBSCRIBE => uri.map_or(Self::Nothing, Self::Resource),
            _ => Self::Nothing,
        }
    }

    /// The low-cardinality part of the span name: a tool or prompt name, never a URI.
    fn in_span_name(&self) -> Option<&str> {
        match self {
            Self::Tool(name) | Self::Prompt(name) => Some(name),
            Self::Resource(_) | Self::Nothing => None,
        }
    }
}

/// Which side of the exchange records the operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Server,
    Client,
    /// The client's whole multi-round call, over the `Client` spans of its rounds.
    Call,
}

/// An operation's attributes, for its span and its duration.
#[derive(Debug)]
pub(crate) struct Operation<'a> {
    pub(crate) side: Side,
    pub(crate) method: &'a str,
    pub(crate) target: Target<'a>,
    pub(crate) protocol_version: Option<Cow<'a, str>>,
    pub(crate) network_transport: Option<&'static str>,
    pub(crate) session_id: Option<&'a str>,
    /// `server.address` and `server.port`: the server a client's request went to over HTTP.
    pub(crate) server_address: Option<(&'a str, u16)>,
}

/// How an operation ended.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Ending<'a> {
    Success,
    /// A `CallToolResult` with `isError: true`: a JSON-RPC success that failed.
    ToolError,
    /// A JSON-RPC error response.
    Rpc(&'a McpError),
    /// Failed without a JSON-RPC error (a timeout, a closed connection): `error.type` is the
    /// given low-cardinality class.
    Other(&'static str, &'a str),
}

impl Ending<'_> {
    fn error_type(&self) -> Option<Cow<'static, str>> {
        match self {
            Self::Success => None,
            Self::ToolError => Some(Cow::Borrowed(semconv::TOOL_ERROR)),
            Self::Rpc(error) => Some(Cow::Owned(error.code.to_string())),
            Self::Other(class, _) => Some(Cow::Borrowed(class)),
        }
    }
}

impl Operation<'_> {
    /// The operation's span: a child of the current span unless given a parent afterwards.
    /// `id` is the JSON-RPC id, absent for a whole multi-round call.
    pub(crate) fn span(&self, id: Option<&RequestId>) -> tracing::Span {
        let kind = match self.side {
            Side::Server => "server",
            Side::Client => "client",
            Side::Call => "internal",
        };
        let span = tracing::info_span!(
            target: "mcp::telemetry",
            "mcp operation",
            otel.name = %self.span_name(),
            otel.kind = kind,
            otel.status_code = Empty,
            otel.status_description = Empty,
            mcp.method.name = self.method,
            jsonrpc.request.id = Empty,
            mcp.protocol.version = Empty,
            mcp.session.id = Empty,
            gen_ai.operation.name = Empty,
            gen_ai.tool.name = Empty,
            gen_ai.prompt.name = Empty,
            mcp.resource.uri = Empty,
            network.transport = Empty,
            server.address = Empty,
            server.port = Empty,
            error.type = Empty,
            rpc.response.status_code = Empty,
        );
        if span.is_disabled() {
            return span;
        }
        if let Some(id) = id {
            span.record("jsonrpc.request.id", tracing::field::display(id_text(id)));
        }
        if let Some(version) = &self.protocol_version {
            span.record("mcp.protocol.version", &**version);
        }
        if let Some(session) = self.session_id {
            span.record("mcp.session.id", session);
        }
        if let Some(transport) = self.network_transport {
            span.record("network.transport", transport);
        }
        if let Some((address, port)) = self.server_address {
            span.record("server.address", address);
            // As an integer: the bridge writes unsigned values out as text.
            span.record("server.port", i64::from(port));
        }
        match &self.target {
            Target::Tool(name) => {
                span.record("gen_ai.operation.name", semconv::EXECUTE_TOOL);
                span.record("gen_ai.tool.name", &**name);
            }
            Target::Prompt(name) => {
                span.record("gen_ai.prompt.name", &**name);
            }
            Target::Resource(uri) => {
                span.record("mcp.resource.uri", &**uri);
            }
            Target::Nothing => {}
        }
        span
    }

    fn span_name(&self) -> Cow<'_, str> {
        match self.target.in_span_name() {
            Some(target) => Cow::Owned(format!("{} {target}", self.method)),
            None => Cow::Borrowed(self.method),
        }
    }

    /// Records how the operation ended on its span and its duration histogram.
    fn finish(&self, span: &tracing::Span, ending: Ending<'_>, elapsed: Duration) {
        let error_type = ending.error_type();
        if let Some(error_type) = &error_type {
            span.record("error.type", &**error_type);
            span.record("otel.status_code", "error");
            match ending {
                Ending::Rpc(error) => {
                    span.record(
                        "rpc.response.status_code",
                        tracing::field::display(error.code),
                    );
                    span.record("otel.status_description", &*error.message);
                }
                Ending::Other(_, message) => {
                    span.record("otel.status_description", message);
                }
                Ending::Success | Ending::ToolError => {}
            }
        }
        let attributes = self.metric_attributes(error_type, ending);
        match self.side {
            Side::Server => metrics::server_operation(elapsed, &attributes),
            Side::Client => metrics::client_operation(elapsed, &attributes),
            // Its rounds are the operations the conventions time.
            Side::Call => {}
        }
    }

    /// The histogram's attributes: the span's, less the high-cardinality ones (the request
    /// id, the session, the resource URI, which the conventions leave opt-in).
    fn metric_attributes(
        &self,
        error_type: Option<Cow<'static, str>>,
        ending: Ending<'_>,
    ) -> Vec<KeyValue> {
        let mut attributes = Vec::with_capacity(9);
        attributes.push(KeyValue::new(semconv::METHOD_NAME, self.method.to_owned()));
        match &self.target {
            Target::Tool(name) => {
                attributes.push(KeyValue::new(semconv::TOOL_NAME, name.to_string()));
                attributes.push(KeyValue::new(
                    semconv::OPERATION_NAME,
                    semconv::EXECUTE_TOOL,
                ));
            }
            Target::Prompt(name) => {
                attributes.push(KeyValue::new(semconv::PROMPT_NAME, name.to_string()));
            }
            Target::Resource(_) | Target::Nothing => {}
        }
        if let Some(version) = &self.protocol_version {
            attributes.push(KeyValue::new(
                semconv::PROTOCOL_VERSION,
                version.to_string(),
            ));
        }
        if let Some(transport) = self.network_transport {
            attributes.push(KeyValue::new(semconv::NETWORK_TRANSPORT, transport));
        }
        if let Some((address, port)) = self.server_address {
            attributes.push(KeyValue::new(semconv::SERVER_ADDRESS, address.to_owned()));
            attributes.push(KeyValue::new(semconv::SERVER_PORT, i64::from(port)));
        }
        if let Some(error_type) = error_type {
            attributes.push(KeyValue::new(semconv::ERROR_TYPE, error_type));
        }
        if let Ending::Rpc(error) = ending {
            attributes.push(KeyValue::new(
                semconv::RESPONSE_STATUS_CODE,
                error.code.to_string(),
            ));
        }
        attributes
    }
}

/// An operation under way: ends it as `cancelled` when dropped before [`finish`](Self::finish),
/// so a request whose caller stopped waiting (a call timeout, a dropped future, a client's
/// `notifications/cancelled`) still has its span's end and its duration.
pub(crate) struct Underway<'o, 'a> {
    operation: &'o Operation<'a>,
    span: &'o tracing::Span,
    started: Instant,
    finished: bool,
}

impl<'o, 'a> Underway<'o, 'a> {
    pub(crate) fn start(operation: &'o Operation<'a>, span: &'o tracing::Span) -> Self {
        Self {
            operation,
            span,
            started: Instant::now(),
            finished: false,
        }
    }

    pub(crate) fn finish(mut self, ending: Ending<'_>) {
        self.finished = true;
        let elapsed = self.started.elapsed();
        self.operation.finish(self.span, ending, elapsed);
    }
}

impl Drop for Underway<'_, '_> {
    fn drop(&mut self) {
        if !self.finished {
            let ending = Ending::Other(CANCELLED, "the caller stopped waiting");
            let elapsed = self.started.elapsed();
            self.operation.finish(self.span, ending, elapsed);
        }
    }
}

/// `error.type` of an operation given up before it ended.
const CANCELLED: &str = "cancelled";

/// The conventions' string form of a JSON-RPC id: a number as its digits, a string as is.
fn id_text(id: &RequestId) -> Cow<'_, str> {
    match id {
        RequestId::String(text) => Cow::Borrowed(text),
        other => Cow::Owned(other.to_string()),
    }
}

/// The server's refusals worth a counter of their own.
pub(crate) fn count_refusal(method: &str, error: &McpError) {
    if error.is_invalid_request_state() {
        metrics::request_state_rejected(method);
    } else if error.code == code::MISSING_REQUIRED_CLIENT_CAPABILITY {
        metrics::capability_refused(method);
    }
}

tokio::task_local! {
    /// Set while an operation runs, by whoever sees its `CallToolResult` say `isError`.
    static TOOL_ERROR: Cell<bool>;
}

/// Notes that the operation running on this task ended in a tool error (`isError: true`).
/// Outside an observed operation it does nothing.
pub(crate) fn note_tool_error() {
    let _ = TOOL_ERROR.try_with(|flag| flag.set(true));
}

/// Runs `work`, and tells whether it noted a tool error.
pub(crate) async fn watching_tool_errors<T>(work: impl Future<Output = T>) -> (T, bool) {
    TOOL_ERROR
        .scope(Cell::new(false), async {
            let out = work.await;
            (out, TOOL_ERROR.with(Cell::get))
        })
        .await
}
