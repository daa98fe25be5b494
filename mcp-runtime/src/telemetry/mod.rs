//! Traces and metrics by the OpenTelemetry semantic conventions for MCP (feature `otel`).
//!
//! With the feature on, the server opens a span of kind `SERVER` for every request and the
//! client one of kind `CLIENT` for every request it sends, named `{mcp.method.name}
//! {target}` (`tools/call provision`), with the conventions' attributes: `mcp.method.name`,
//! `jsonrpc.request.id`, `mcp.protocol.version`, `mcp.session.id` (2025-11-25 HTTP
//! sessions), `gen_ai.tool.name` / `gen_ai.prompt.name`, `gen_ai.operation.name`,
//! `mcp.resource.uri`, `network.transport`, on the client's `server.address` and
//! `server.port` (HTTP), and on failure `error.type` (`tool_error` for a `CallToolResult`
//! with `isError`, else the JSON-RPC error code) and `rpc.response.status_code`.
//!
//! The client writes its span's context into `params._meta` (`traceparent`, `tracestate`,
//! `baggage`) of every request, each round of a multi-round call included, and the server
//! continues it; the rounds of one call share a parent, an `INTERNAL` span for the whole
//! call, so a trace shows the whole exchange.
//!
//! Every request's duration goes to the histograms `mcp.server.operation.duration` and
//! `mcp.client.operation.duration` (seconds, the conventions' buckets, `error.type` set on
//! failures, so tool errors are counted by filtering on it), the length of every
//! 2025-11-25 HTTP session to `mcp.server.session.duration` and of every session a client
//! held to `mcp.client.session.duration`. Two counters of this runtime's own:
//! `mcp.server.request_state.rejected` and `mcp.server.capability.refused`.
//!
//! [`Telemetry`] exports all of it over OTLP/HTTP, and a [`Prometheus`] scrape serves the
//! metrics as Prometheus text (a `/metrics` route on the HTTP transport when asked for); an
//! application with its own OpenTelemetry setup installs its providers, its propagator and a
//! `tracing-opentelemetry` layer instead.

mod client;
mod conventions;
mod metrics;
mod operation;
mod otlp_http;
mod prometheus;
mod propagation;
mod server;
mod setup;

pub(crate) use client::{ServerPeer, SessionClock};
pub(crate) use conventions::OTHER_ERROR;
pub(crate) use metrics::server_session;
pub(crate) use operation::{
    Ending, Operation, Side, Target, Underway, note_tool_error, watching_tool_errors,
};
pub use prometheus::Prometheus;
pub(crate) use propagation::inject;
pub(crate) use server::{Peer, observe};
pub use setup::{OTLP_ENDPOINT_VARIABLE, Telemetry, TelemetryBuilder, TelemetryError};
