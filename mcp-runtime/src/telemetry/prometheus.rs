//! The metrics scraped rather than pushed: a pull reader on the meter provider, rendered on
//! demand in the Prometheus text exposition format (0.0.4), by the OpenTelemetry rules for
//! Prometheus (dots become underscores, the unit a suffix, counters end in `_total`, the
//! resource a `target_info` series).
//!
//! Our own few hundred lines rather than the `prometheus` crate and its exporter: the SDK's
//! `ManualReader` already aggregates, and the text format is small.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::data::{
    AggregatedMetrics, Histogram, Metric, MetricData, ResourceMetrics, Sum,
};
use opentelemetry_sdk::metrics::reader::MetricReader;
use opentelemetry_sdk::metrics::{InstrumentKind, ManualReader, Pipeline, Temporality};

/// The metrics of this process, read when scraped, as Prometheus text.
///
/// Make one, give it to [`TelemetryBuilder::prometheus`](super::TelemetryBuilder::prometheus)
/// before installing, and serve it: on the MCP server's HTTP transport with
/// `McpServer::metrics_route` or `HttpTransport::metrics_route`, or from a handler of your own
/// that answers [`render`](Self::render) with [`CONTENT_TYPE`](Self::CONTENT_TYPE).
///
/// ```no_run
/// use mcp::telemetry::{Prometheus, Telemetry};
///
/// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let scrape = Prometheus::new();
/// // Scraped only: no collector to export to.
/// let telemetry = Telemetry::builder("notes").without_otlp().prometheus(&scrape).install()?;
/// mcp::McpServer::new("notes")
///     .metrics_route("/metrics", scrape)
///     .serve_http("127.0.0.1:8000")
///     .await?;
/// telemetry.shutdown().await;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct Prometheus {
    reader: Arc<ManualReader>,
}

impl Prometheus {
    /// The `Content-Type` of [`render`](Self::render)'s text.
    pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

    /// A scrape not yet attached to a meter provider: it renders nothing until
    /// [`TelemetryBuilder::prometheus`](super::TelemetryBuilder::prometheus) attaches it.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every metric of the meter provider as it stands, in the text exposition format 0.0.4.
    /// Empty before the provider is installed and after it shut down.
    pub fn render(&self) -> String {
        let mut collected = ResourceMetrics::default();
        if self.reader.collect(&mut collected).is_err() {
            return String::new();
        }
        render(&collected)
    }

    /// The reader to register with the meter provider.
    pub(super) fn reader(&self) -> SharedReader {
        SharedReader(self.reader.clone())
    }
}

/// The provider owns its readers; this one is shared with the [`Prometheus`] that reads it.
#[derive(Debug)]
pub(super) struct SharedReader(Arc<ManualReader>);

impl MetricReader for SharedReader {
    fn register_pipeline(&self, pipeline: std::sync::Weak<Pipeline>) {
        self.0.register_pipeline(pipeline);
    }

    fn collect(&self, collected: &mut ResourceMetrics) -> OTelSdkResult {
        self.0.collect(collected)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.0.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.0.shutdown_with_timeout(timeout)
    }

    fn temporality(&self, kind: InstrumentKind) -> Temporality {
        self.0.temporality(kind)
    }
}

/// One metric family: its `# HELP` and `# TYPE`, then its samples, contiguous as the format
/// wants them even when two scopes name the same metric.
struct Family {
    kind: &'static str,
    help: String,
    samples: String,
}

fn render(collected: &ResourceMetrics) -> String {
    let mut families: BTreeMap<String, Family> = BTreeMap::new();
    for scope in collected.scope_metrics() {
        let scope_labels = [
            KeyValue::new("otel.scope.name", scope.scope().name().to_owned()),
            KeyValue::new(
                "otel.scope.version",
                scope.scope().version().unwrap_or_default().to_owned(),
            ),
        ];
        for metric in scope.metrics() {
            family_of(metric, &scope_labels, &mut families);
        }
    }

    let mut text = String::new();
    let resource = collected.resource();
    if !resource.is_empty() {
        let attributes: Vec<KeyValue> = resource
            .iter()
            .map(|(key, value)| KeyValue::new(key.clone(), value.clone()))
            .collect();
        text.push_str("# HELP target_info Target metadata\n# TYPE target_info gauge\n");
        sample(&mut text, "target_info", &attributes, &[], None, "1");
    }
    for (name, family) in families {
        let _ = writeln!(text, "# HELP {name} {}", escape_help(&family.help));
        let _ = writeln!(text, "# TYPE {name} {}", family.kind);
        text.push_str(&family.samples);
    }
    text
}

/// Adds `metric`'s samples to its family, made if it is new; a metric whose name another of
/// another type took is left out (a scrape must not declare one name twice).
fn family_of(metric: &Metric, scope: &[KeyValue], families: &mut BTreeMap<String, Family>) {
    let kind = match metric.data() {
        AggregatedMetrics::F64(data) => kind_of(data),
        AggregatedMetrics::U64(data) => kind_of(data),
        AggregatedMetrics::I64(data) => kind_of(data),
    };
    let Some(kind) = kind else { return };
    let name = metric_name(metric.name(), metric.unit(), kind);
    let family = families.entry(name.clone()).or_insert_with(|| Family {
        kind,
        help: metric.description().to_owned(),
        samples: String::new(),
    });
    if family.kind != kind {
        return;
    }
    let out = &mut family.samples;
    match metric.data() {
        AggregatedMetrics::F64(data) => samples(out, &name, data, scope),
        AggregatedMetrics::U64(data) => samples(out, &name, data, scope),
        AggregatedMetrics::I64(data) => samples(out, &name, data, scope),
    }
}

/// The Prometheus type of an aggregation; `None` for an exponential histogram, which the
/// text format cannot carry.
fn kind_of<T>(data: &MetricData<T>) -> Option<&'static str> {
    match data {
        MetricData::Gauge(_) => Some("gauge"),
        MetricData::Sum(sum) if sum.is_monotonic() => Some("counter"),
        MetricData::Sum(_) => Some("gauge"),
        MetricData::Histogram(_) => Some("histogram"),
        MetricData::ExponentialHistogram(_) => None,
    }
}

/// A number as the format writes it.
trait Number: Copy {
    fn text(self) -> String;
}

impl Number for u64 {
    fn text(self) -> String {
        self.to_string()
    }
}

impl Number for i64 {
    fn text(self) -> String {
        self.to_string()
    }
}

impl Number for f64 {
    fn text(self) -> String {
        float(self)
    }
}

fn samples<T: Number>(out: &mut String, name: &str, data: &MetricData<T>, scope: &[KeyValue]) {
    match data {
        MetricData::Gauge(gauge) => {
            for point in gauge.data_points() {
                let labels: Vec<KeyValue> = point.attributes().cloned().collect();
                sample(out, name, &labels, scope, None, &point.value().text());
            }
        }
        MetricData::Sum(sum) => sum_samples(out, name, sum, scope),
        MetricData::Histogram(histogram) => histogram_samples(out, name, histogram, scope),
        MetricData::ExponentialHistogram(_) => {}
    }
}

fn sum_samples<T: Number>(out: &mut String, name: &str, sum: &Sum<T>, scope: &[KeyValue]) {
    for point in sum.data_points() {
        let labels: Vec<KeyValue> = point.attributes().cloned().collect();
        sample(out, name, &labels, scope, None, &point.value().text());
    }
}

/// A histogram's cumulative `_bucket` series (the SDK counts each bucket on its own), `+Inf`
/// last, then `_sum` and `_count`.
fn histogram_samples<T: Number>(
    out: &mut String,
    name: &str,
    histogram: &Histogram<T>,
    scope: &[KeyValue],
) {
    let bucket = format!("{name}_bucket");
    for point in histogram.data_points() {
        let labels: Vec<KeyValue> = point.attributes().cloned().collect();
        let mut below = 0u64;
        for (bound, count) in point.bounds().zip(point.bucket_counts()) {
            below += count;
            let le = ("le", float(bound));
            sample(out, &bucket, &labels, scope, Some(le), &below.to_string());
        }
        let total = point.count().to_string();
        let le = ("le", "+Inf".to_owned());
        sample(out, &bucket, &labels, scope, Some(le), &total);
        let sum = format!("{name}_sum");
        sample(out, &sum, &labels, scope, None, &point.sum().text());
        let count = format!("{name}_count");
        sample(out, &count, &labels, scope, None, &total);
    }
}

/// One sample line: `name{labels} value`. Labels whose sanitized names repeat an earlier
/// one are left out, as a line must not name a label twice.
fn sample(
    out: &mut String,
    name: &str,
    labels: &[KeyValue],
    scope: &[KeyValue],
    extra: Option<(&str, String)>,
    value: &str,
) {
    let mut seen: Vec<String> = Vec::new();
    let mut pairs: Vec<(String, String)> = Vec::new();
    for kv in labels.iter().chain(scope) {
        let label = label_name(kv.key.as_str());
        if !seen.contains(&label) {
            seen.push(label.clone());
            pairs.push((label, kv.value.as_str().into_owned()));
        }
    }
    if let Some((label, value)) = extra {
        pairs.push((label.to_owned(), value));
    }
    out.push_str(name);
    if !pairs.is_empty() {
        out.push('{');
        for (i, (label, value)) in pairs.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{label}=\"{}\"", escape_label(value));
        }
        out.push('}');
    }
    out.push(' ');
    out.push_str(value);
    out.push('\n');
}

/// `mcp.server.operation.duration` in `s` is `mcp_server_operation_duration_seconds`; a
/// counter's name ends in `_total`.
fn metric_name(name: &str, unit: &str, kind: &str) -> String {
    let mut out = sanitize(name, |c| c.is_ascii_alphanumeric() || c == '_' || c == ':');
    if let Some(suffix) = unit_suffix(unit, kind)
        && !out.ends_with(&format!("_{suffix}"))
    {
        out.push('_');
        out.push_str(&suffix);
    }
    if kind == "counter" && !out.ends_with("_total") {
        out.push_str("_total");
    }
    out
}

/// The unit as a name suffix: the common UCUM units spelt out, annotations (`{request}`)
/// dropped, `1` a ratio for gauges only.
fn unit_suffix(unit: &str, kind: &str) -> Option<String> {
    let spelt = match unit {
        "" => return None,
        _ if unit.starts_with('{') => return None,
        "1" if kind == "gauge" => "ratio",
        "1" => return None,
        "s" => "seconds",
        "ms" => "milliseconds",
        "us" => "microseconds",
        "ns" => "nanoseconds",
        "min" => "minutes",
        "h" => "hours",
        "By" => "bytes",
        "KiBy" => "kibibytes",
        "MiBy" => "mebibytes",
        "%" => "percent",
        other => return Some(sanitize(other, |c| c.is_ascii_alphanumeric() || c == '_')),
    };
    Some(spelt.to_owned())
}

fn label_name(key: &str) -> String {
    sanitize(key, |c| c.is_ascii_alphanumeric() || c == '_')
}

/// Every character `allowed` refuses becomes `_`; a leading digit gets a `_` before it.
fn sanitize(text: &str, allowed: impl Fn(char) -> bool) -> String {
    let mut out: String = text
        .chars()
        .map(|c| if allowed(c) { c } else { '_' })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

fn escape_label(value: &str) -> String {
    value
        .replace('\\', r"\\")
        .replace('"', "\\\"")
        .replace('\n', r"\n")
}

fn escape_help(text: &str) -> String {
    text.replace('\\', r"\\").replace('\n', r"\n")
}

fn float(value: f64) -> String {
    if value.is_nan() {
        "NaN".to_owned()
    } else if value.is_infinite() {
        if value > 0.0 { "+Inf" } else { "-Inf" }.to_owned()
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_otel_rules_for_prometheus() {
        let histogram = metric_name("mcp.server.operation.duration", "s", "histogram");
        assert_eq!(histogram, "mcp_server_operation_duration_seconds");
        let counter = metric_name("mcp.server.capability.refused", "{request}", "counter");
        assert_eq!(counter, "mcp_server_capability_refused_total");
        assert_eq!(metric_name("queue.size", "By", "gauge"), "queue_size_bytes");
        assert_eq!(metric_name("2xx", "", "gauge"), "_2xx");
        assert_eq!(label_name("gen_ai.tool.name"), "gen_ai_tool_name");
    }

    #[test]
    fn label_values_and_help_are_escaped() {
        assert_eq!(escape_label("a\\b\"c\nd"), r#"a\\b\"c\nd"#);
        assert_eq!(escape_help("one\\two\nthree"), r"one\\two\nthree");
        assert_eq!(float(f64::INFINITY), "+Inf");
        assert_eq!(float(0.01), "0.01");
    }
}
