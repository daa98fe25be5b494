//! A minimal OTLP/HTTP receiver: takes the protobuf exports of traces and metrics on
//! 127.0.0.1 and keeps them, decoded, for the tests to look through.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::post;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::{HistogramDataPoint, metric, number_data_point};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use tokio::net::TcpListener;

#[derive(Default)]
struct Received {
    /// Each span with the `service.name` of the process that sent it.
    spans: Vec<(String, Span)>,
    metrics: Vec<ExportMetricsServiceRequest>,
}

/// The `service.name` of an exported resource.
fn service(resource: Option<&Resource>) -> &str {
    resource
        .and_then(|resource| attribute(&resource.attributes, "service.name"))
        .unwrap_or_default()
}

/// The receiver's address and what it has received so far.
#[derive(Clone)]
pub struct Receiver {
    pub base: String,
    received: Arc<Mutex<Received>>,
}

impl Receiver {
    /// Listens on a fresh loopback port, serving from the current runtime.
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("address"));
        let received = Arc::new(Mutex::new(Received::default()));
        let app = Router::new()
            .route("/v1/traces", post(traces))
            .route("/v1/metrics", post(metrics))
            .with_state(received.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { base, received }
    }

    /// Every span received so far.
    pub fn spans(&self) -> Vec<Span> {
        let received = self.received.lock().expect("lock");
        received
            .spans
            .iter()
            .map(|(_, span)| span.clone())
            .collect()
    }

    /// Every span received so far from the service `name`.
    #[cfg_attr(
        not(feature = "otel"),
        expect(
            dead_code,
            reason = "only the provisioner's test, with `otel`, has two services"
        )
    )]
    pub fn spans_of(&self, name: &str) -> Vec<Span> {
        let received = self.received.lock().expect("lock");
        let spans = received.spans.iter();
        spans
            .filter(|(service, _)| service == name)
            .map(|(_, span)| span.clone())
            .collect()
    }

    /// Every histogram data point of `metric` received so far, newest export last.
    pub fn histogram_points(&self, metric: &str) -> Vec<HistogramDataPoint> {
        self.histogram_points_of("otel-tests", metric)
    }

    /// Every histogram data point of `metric` received so far from the service `name`.
    pub fn histogram_points_of(&self, name: &str, metric: &str) -> Vec<HistogramDataPoint> {
        let received = self.received.lock().expect("lock");
        received
            .metrics
            .iter()
            .flat_map(|export| &export.resource_metrics)
            .filter(|resource| service(resource.resource.as_ref()) == name)
            .flat_map(|resource| &resource.scope_metrics)
            .flat_map(|scope| &scope.metrics)
            .filter(|m| m.name == metric)
            .filter_map(|m| match &m.data {
                Some(metric::Data::Histogram(histogram)) => Some(histogram.data_points.clone()),
                _ => None,
            })
            .flatten()
            .collect()
    }

    /// Every sum data point of `metric` received so far.
    /// The largest value a counter reached for one method (the exports are cumulative).
    pub fn count_of(&self, metric: &str, method: &str) -> u64 {
        let received = self.received.lock().expect("lock");
        received
            .metrics
            .iter()
            .flat_map(|export| &export.resource_metrics)
            .flat_map(|resource| &resource.scope_metrics)
            .flat_map(|scope| &scope.metrics)
            .filter(|m| m.name == metric)
            .filter_map(|m| match &m.data {
                Some(metric::Data::Sum(sum)) => Some(&sum.data_points),
                _ => None,
            })
            .flatten()
            .filter(|point| attribute(&point.attributes, "mcp.method.name") == Some(method))
            .map(|point| match point.value {
                Some(number_data_point::Value::AsInt(n)) => u64::try_from(n).unwrap_or(0),
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    }
}

async fn traces(State(received): State<Arc<Mutex<Received>>>, body: Bytes) -> impl IntoResponse {
    let Ok(export) = ExportTraceServiceRequest::decode(body) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let mut received = received.lock().expect("lock");
    for resource in export.resource_spans {
        let service = service(resource.resource.as_ref()).to_owned();
        let spans = resource
            .scope_spans
            .into_iter()
            .flat_map(|scope| scope.spans);
        received
            .spans
            .extend(spans.map(|span| (service.clone(), span)));
    }
    protobuf_ok()
}

async fn metrics(State(received): State<Arc<Mutex<Received>>>, body: Bytes) -> impl IntoResponse {
    let Ok(export) = ExportMetricsServiceRequest::decode(body) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    received.lock().expect("lock").metrics.push(export);
    protobuf_ok()
}

/// An empty export response, which is every success's encoding.
fn protobuf_ok() -> axum::response::Response {
    (
        [(header::CONTENT_TYPE, "application/x-protobuf")],
        Vec::<u8>::new(),
    )
        .into_response()
}

/// The integer value of attribute `key`, if it has one.
pub fn int_attribute(attributes: &[KeyValue], key: &str) -> Option<i64> {
    let value = attributes.iter().find(|kv| kv.key == key)?.value.as_ref()?;
    match value.value {
        Some(any_value::Value::IntValue(n)) => Some(n),
        _ => None,
    }
}

/// The string value of attribute `key`, if it has one.
pub fn attribute<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a str> {
    let value = attributes.iter().find(|kv| kv.key == key)?.value.as_ref()?;
    match value {
        AnyValue {
            value: Some(any_value::Value::StringValue(text)),
        } => Some(text),
        _ => None,
    }
}
