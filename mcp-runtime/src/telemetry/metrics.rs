//! The instruments: the operation-duration histograms of the conventions, and two counters
//! of refusals this runtime makes on its own.
//!
//! They are made from the global meter provider on first use, so the provider must be
//! installed ([`Telemetry::install`](super::TelemetryBuilder::install) does it) before the
//! first request; made earlier, they would record into the no-op provider for good.

use std::sync::OnceLock;
use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram};

use super::conventions as semconv;

struct Instruments {
    server_duration: Histogram<f64>,
    client_duration: Histogram<f64>,
    session_duration: Histogram<f64>,
    client_session_duration: Histogram<f64>,
    request_state_rejected: Counter<u64>,
    capability_refused: Counter<u64>,
}

fn instruments() -> &'static Instruments {
    static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();
    INSTRUMENTS.get_or_init(|| {
        let scope = opentelemetry::InstrumentationScope::builder("mcp")
            .with_version(env!("CARGO_PKG_VERSION"))
            .build();
        let meter = opentelemetry::global::meter_with_scope(scope);
        let duration = |name: &'static str, description: &'static str| {
            meter
                .f64_histogram(name)
                .with_unit("s")
                .with_description(description)
                .with_boundaries(semconv::DURATION_BUCKETS.to_vec())
                .build()
        };
        Instruments {
            server_duration: duration(
                semconv::SERVER_OPERATION_DURATION,
                "The duration of the MCP request or notification as observed on the receiver \
                 from the time it was received until the result or ack is sent.",
            ),
            client_duration: duration(
                semconv::CLIENT_OPERATION_DURATION,
                "The duration of the MCP request or notification as observed on the sender \
                 from the time it was sent until the response or ack is received.",
            ),
            session_duration: duration(
                semconv::SERVER_SESSION_DURATION,
                "The duration of the MCP session as observed on the MCP server.",
            ),
            client_session_duration: duration(
                semconv::CLIENT_SESSION_DURATION,
                "The duration of the MCP session as observed on the MCP client.",
            ),
            request_state_rejected: meter
                .u64_counter(semconv::REQUEST_STATE_REJECTED)
                .with_unit("{request}")
                .with_description(
                    "Requests refused because their requestState did not verify (forged, \
                     expired, bound elsewhere, another key).",
                )
                .build(),
            capability_refused: meter
                .u64_counter(semconv::CAPABILITY_REFUSED)
                .with_unit("{request}")
                .with_description(
                    "Requests refused because answering them needs client capabilities the \
                     client did not declare (-32021).",
                )
                .build(),
        }
    })
}

pub(crate) fn server_operation(elapsed: Duration, attributes: &[KeyValue]) {
    instruments()
        .server_duration
        .record(elapsed.as_secs_f64(), attributes);
}

pub(crate) fn client_operation(elapsed: Duration, attributes: &[KeyValue]) {
    instruments()
        .client_duration
        .record(elapsed.as_secs_f64(), attributes);
}

/// A 2025-11-25 HTTP session ended (closed, expired or evicted) after `elapsed`, speaking
/// `protocol_version` if it got as far as `initialize`.
pub(crate) fn server_session(elapsed: Duration, protocol_version: Option<String>) {
    let mut attributes = vec![
        KeyValue::new(semconv::NETWORK_TRANSPORT, "tcp"),
        KeyValue::new(semconv::NETWORK_PROTOCOL_NAME, "http"),
    ];
    if let Some(version) = protocol_version {
        attributes.push(KeyValue::new(semconv::PROTOCOL_VERSION, version));
    }
    instruments()
        .session_duration
        .record(elapsed.as_secs_f64(), &attributes);
}

/// A client's 2025-11-25 session, speaking `protocol_version`, ended after `elapsed`;
/// `server` is the HTTP server it was held with, `None` over a pipe.
pub(crate) fn client_session(
    elapsed: Duration,
    protocol_version: String,
    server: Option<(String, u16)>,
) {
    let mut attributes = vec![KeyValue::new(semconv::PROTOCOL_VERSION, protocol_version)];
    if let Some((address, port)) = server {
        attributes.push(KeyValue::new(semconv::NETWORK_PROTOCOL_NAME, "http"));
        attributes.push(KeyValue::new(semconv::SERVER_ADDRESS, address));
        attributes.push(KeyValue::new(semconv::SERVER_PORT, i64::from(port)));
    }
    instruments()
        .client_session_duration
        .record(elapsed.as_secs_f64(), &attributes);
}

pub(crate) fn request_state_rejected(method: &str) {
    let method = KeyValue::new(semconv::METHOD_NAME, method.to_owned());
    instruments().request_state_rejected.add(1, &[method]);
}

pub(crate) fn capability_refused(method: &str) {
    let method = KeyValue::new(semconv::METHOD_NAME, method.to_owned());
    instruments().capability_refused.add(1, &[method]);
}
