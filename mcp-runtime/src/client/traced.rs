//! The client's requests under the telemetry's spans (feature `otel`): a `CLIENT` span per
//! request, its context written into the request's `_meta` for the server to continue, and
//! an `INTERNAL` span over the rounds of a multi-round call so they share one parent.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tracing::Instrument as _;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

use crate::telemetry::{
    Ending, OTHER_ERROR, Operation, ServerPeer, Side, Target, Underway, inject, note_tool_error,
    watching_tool_errors,
};

use super::{Client, ClientError};

impl Client {
    /// [`send_request`](Self::send_request) under its span, its duration recorded.
    pub(super) async fn traced_request<R: DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
    ) -> Result<R, ClientError> {
        let mut params = match params {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let server = self.inner.server.as_ref();
        // Only a 2025-11-25 session has an id; the transport may still hold one from it.
        let session_id = server
            .filter(|_| self.in_session())
            .and_then(ServerPeer::session_id);
        let operation = Operation {
            side: Side::Client,
            method,
            target: target(method, &params),
            protocol_version: Some(Cow::Owned(self.protocol_version())),
            network_transport: server.map(|server| server.network_transport),
            session_id: session_id.as_deref(),
            server_address: server
                .and_then(|server| server.address.as_ref())
                .map(|(address, port)| (address.as_str(), *port)),
        };
        // The JSON-RPC id is recorded on it when the connection picks one.
        let span = operation.span(None);
        if !span.is_disabled() {
            inject(&span.context(), &mut params);
        }
        let underway = Underway::start(&operation, &span);
        let sent = self.send_request(method, Value::Object(params));
        let (outcome, tool_error) = watching_tool_errors(sent.instrument(span.clone())).await;
        let ending = match &outcome {
            Ok(_) if tool_error => Ending::ToolError,
            Ok(_) => Ending::Success,
            Err(ClientError::Rpc(error)) => Ending::Rpc(error),
            Err(_) => Ending::Other(OTHER_ERROR, "the request failed"),
        };
        underway.finish(ending);
        outcome
    }
}

/// Owned, as the params go on to be sent while the span still needs it.
fn target(method: &str, params: &Map<String, Value>) -> Target<'static> {
    let text = |key: &str| {
        let text = params.get(key).and_then(Value::as_str)?;
        Some(Cow::Owned(text.to_owned()))
    };
    Target::of(method, text("name"), text("uri"))
}

/// A multi-round call under one span, the parent of each round's span, so that the rounds
/// (and the server's spans under them) land in one trace; a failed call marks it too.
pub(super) async fn whole_call<T>(
    method: &str,
    name_or_uri: &str,
    call: impl Future<Output = Result<T, ClientError>>,
) -> Result<T, ClientError> {
    let target = Target::of(
        method,
        Some(Cow::Borrowed(name_or_uri)),
        Some(Cow::Borrowed(name_or_uri)),
    );
    let operation = Operation {
        side: Side::Call,
        method,
        target,
        protocol_version: None,
        network_transport: None,
        session_id: None,
        server_address: None,
    };
    let span = operation.span(None);
    let underway = Underway::start(&operation, &span);
    let outcome = call.instrument(span.clone()).await;
    underway.finish(match &outcome {
        Ok(_) => Ending::Success,
        Err(ClientError::Rpc(error)) => Ending::Rpc(error),
        Err(ClientError::Timeout(_)) => Ending::Other("timeout", "the call timed out"),
        Err(_) => Ending::Other(OTHER_ERROR, "the call failed"),
    });
    outcome
}

/// Notes a `tools/call` answer that is a tool's failure, for the span of the request it
/// answers.
pub(super) fn saw_tool_result(result: &Value) {
    if result.get("isError") == Some(&Value::Bool(true)) {
        note_tool_error();
    }
}
