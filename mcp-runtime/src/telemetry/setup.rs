//! Installing the exporters: OTLP over HTTP (protobuf) for traces and metrics, the W3C
//! propagators, and a `tracing` layer that turns this crate's spans into OpenTelemetry spans.

use std::time::Duration;

use opentelemetry::propagation::TextMapCompositePropagator;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use opentelemetry_sdk::trace::SdkTracerProvider;

use super::otlp_http::OtlpHttpClient;
use super::prometheus::Prometheus;

/// The variable that turns exporting on in [`Telemetry::from_env`].
pub const OTLP_ENDPOINT_VARIABLE: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
const SERVICE_NAME_VARIABLE: &str = "OTEL_SERVICE_NAME";
/// How long one export may take before it is given up.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// Why the telemetry could not be installed.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// It was installed outside a Tokio runtime, which its exports run on.
    #[error("the telemetry must be installed from within a Tokio runtime")]
    NoRuntime,
    /// An exporter refused its settings (an endpoint that is not a URL, say).
    #[error("the OTLP exporter could not be built: {0}")]
    Exporter(#[from] opentelemetry_otlp::ExporterBuildError),
}

/// This process's MCP traces and metrics, exported over OTLP/HTTP (protobuf) to a collector,
/// and the metrics scraped too when given a [`Prometheus`]
/// ([`TelemetryBuilder::prometheus`]).
///
/// Installing it sets the global tracer and meter providers and the W3C Trace Context and
/// Baggage propagators, which the server reads from `params._meta` and the client writes
/// there. Spans reach it through `tracing`: add [`layer`](Self::layer) to the application's
/// subscriber. Dropping it (or [`shutdown`](Self::shutdown)) exports what is still buffered.
///
/// Install it before the first request: the metric instruments are made on first use.
///
/// ```no_run
/// use tracing_subscriber::layer::SubscriberExt as _;
/// use tracing_subscriber::util::SubscriberInitExt as _;
///
/// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // Exports to $OTEL_EXPORTER_OTLP_ENDPOINT as $OTEL_SERVICE_NAME (else "notes"), when set.
/// let telemetry = mcp::telemetry::Telemetry::from_env("notes")?;
/// tracing_subscriber::registry()
///     .with(telemetry.as_ref().map(|telemetry| telemetry.layer()))
///     .with(tracing_subscriber::fmt::layer())
///     .init();
/// // ... serve ...
/// if let Some(telemetry) = telemetry {
///     telemetry.shutdown().await;
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Telemetry {
    tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
}

impl Telemetry {
    /// Settings for exporting as `default_service_name` (unless `OTEL_SERVICE_NAME` says
    /// otherwise); the server's name is the usual choice.
    pub fn builder(default_service_name: impl Into<String>) -> TelemetryBuilder {
        TelemetryBuilder {
            default_service_name: default_service_name.into(),
            endpoint: None,
            metric_interval: None,
            otlp: true,
            prometheus: None,
        }
    }

    /// Installs the exporters when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, and nothing when it
    /// is not. The standard variables apply (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`,
    /// `OTEL_METRIC_EXPORT_INTERVAL`, the per-signal endpoints and headers).
    pub fn from_env(default_service_name: &str) -> Result<Option<Self>, TelemetryError> {
        if std::env::var_os(OTLP_ENDPOINT_VARIABLE).is_none_or(|endpoint| endpoint.is_empty()) {
            return Ok(None);
        }
        Self::builder(default_service_name).install().map(Some)
    }

    /// The `tracing` layer that makes this crate's spans (and any other) OpenTelemetry spans.
    pub fn layer<S>(&self) -> impl tracing_subscriber::Layer<S> + use<S>
    where
        S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
    {
        tracing_opentelemetry::layer().with_tracer(self.tracer_provider.tracer("mcp"))
    }

    /// Exports every finished span and the metrics so far, now.
    pub fn flush(&self) {
        let _ = self.tracer_provider.force_flush();
        let _ = self.meter_provider.force_flush();
    }

    /// Exports what is buffered and stops the exporters, without blocking the runtime (which
    /// the exports run on): prefer it to dropping on a current-thread runtime.
    pub async fn shutdown(self) {
        let tracer_provider = self.tracer_provider.clone();
        let meter_provider = self.meter_provider.clone();
        let _ = tokio::task::spawn_blocking(move || stop(&tracer_provider, &meter_provider)).await;
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        let stopping = || stop(&self.tracer_provider, &self.meter_provider);
        match tokio::runtime::Handle::try_current() {
            // The exports run on this runtime: its other workers carry them while this one
            // waits.
            Ok(runtime)
                if runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread =>
            {
                tokio::task::block_in_place(stopping);
            }
            _ => stopping(),
        }
    }
}

/// Shuts both providers down; a second time is a quick no-op.
fn stop(tracer_provider: &SdkTracerProvider, meter_provider: &SdkMeterProvider) {
    let _ = tracer_provider.shutdown();
    let _ = meter_provider.shutdown();
}

/// Settings of [`Telemetry`], from [`Telemetry::builder`].
#[derive(Debug, Clone)]
pub struct TelemetryBuilder {
    default_service_name: String,
    endpoint: Option<String>,
    metric_interval: Option<Duration>,
    otlp: bool,
    prometheus: Option<Prometheus>,
}

impl TelemetryBuilder {
    /// The collector's base URL (`http://host:4318`), to which `/v1/traces` and
    /// `/v1/metrics` are added. Without it the standard variables decide, and without them
    /// `http://localhost:4318`. Only `http://` is spoken.
    pub fn endpoint(mut self, base: impl Into<String>) -> Self {
        self.endpoint = Some(base.into());
        self
    }

    /// How often metrics are exported (default: `OTEL_METRIC_EXPORT_INTERVAL`, else 60 s).
    pub fn metric_interval(mut self, interval: Duration) -> Self {
        self.metric_interval = Some(interval);
        self
    }

    /// Makes the metrics scrapeable too: `scrape` renders them when asked (see
    /// [`Prometheus`]). OTLP export goes on alongside unless [`without_otlp`](Self::without_otlp).
    pub fn prometheus(mut self, scrape: &Prometheus) -> Self {
        self.prometheus = Some(scrape.clone());
        self
    }

    /// Exports nothing over OTLP: the metrics are only [scraped](Self::prometheus), and spans
    /// are made only to carry trace context between client and server.
    pub fn without_otlp(mut self) -> Self {
        self.otlp = false;
        self
    }

    /// Installs the exporters, the global providers and the W3C propagators. Call it from
    /// within the Tokio runtime the application serves on.
    pub fn install(self) -> Result<Telemetry, TelemetryError> {
        let runtime =
            tokio::runtime::Handle::try_current().map_err(|_| TelemetryError::NoRuntime)?;
        let client = OtlpHttpClient::new(runtime, EXPORT_TIMEOUT);
        let service_name = std::env::var(SERVICE_NAME_VARIABLE)
            .ok()
            .filter(|name| !name.is_empty())
            .unwrap_or(self.default_service_name);
        let resource = Resource::builder().with_service_name(service_name).build();
        let endpoint = |signal: &str| {
            self.endpoint
                .as_deref()
                .map(|base| format!("{}/v1/{signal}", base.trim_end_matches('/')))
        };

        let mut tracer_provider = SdkTracerProvider::builder().with_resource(resource.clone());
        let mut meter_provider = SdkMeterProvider::builder().with_resource(resource);
        if self.otlp {
            let mut spans = opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .with_protocol(Protocol::HttpBinary)
                .with_http_client(client.clone());
            if let Some(endpoint) = endpoint("traces") {
                spans = spans.with_endpoint(endpoint);
            }
            tracer_provider = tracer_provider.with_batch_exporter(spans.build()?);

            let mut metrics = opentelemetry_otlp::MetricExporter::builder()
                .with_http()
                .with_protocol(Protocol::HttpBinary)
                .with_http_client(client);
            if let Some(endpoint) = endpoint("metrics") {
                metrics = metrics.with_endpoint(endpoint);
            }
            let mut reader = PeriodicReader::builder(metrics.build()?);
            if let Some(interval) = self.metric_interval {
                reader = reader.with_interval(interval);
            }
            meter_provider = meter_provider.with_reader(reader.build());
        }
        if let Some(scrape) = &self.prometheus {
            meter_provider = meter_provider.with_reader(scrape.reader());
        }
        let tracer_provider = tracer_provider.build();
        let meter_provider = meter_provider.build();

        opentelemetry::global::set_tracer_provider(tracer_provider.clone());
        opentelemetry::global::set_meter_provider(meter_provider.clone());
        opentelemetry::global::set_text_map_propagator(TextMapCompositePropagator::new(vec![
            Box::new(TraceContextPropagator::new()),
            Box::new(BaggagePropagator::new()),
        ]));
        Ok(Telemetry {
            tracer_provider,
            meter_provider,
        })
    }
}
