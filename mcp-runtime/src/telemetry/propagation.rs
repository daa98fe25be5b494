//! Trace context in `params._meta`, as the conventions (and SEP-414) carry it: the unprefixed
//! W3C keys `traceparent`, `tracestate` and `baggage`, read and written through the
//! propagator the application installed (W3C Trace Context and Baggage with
//! [`Telemetry`](super::Telemetry)).

use std::borrow::Cow;

use opentelemetry::propagation::{Extractor, Injector};
use serde::Deserialize;
use serde_json::{Map, Value};

/// The keys a propagator may read or write in `_meta`.
const KEYS: [&str; 3] = ["traceparent", "tracestate", "baggage"];

/// The trace context a request carried in `_meta`, borrowed from the request's text.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct CarriedContext<'a> {
    #[serde(borrow, default)]
    pub(super) traceparent: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) tracestate: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) baggage: Option<Cow<'a, str>>,
}

impl CarriedContext<'_> {
    /// The remote parent it names, if it names one the propagator understands.
    pub(crate) fn parent(&self) -> Option<opentelemetry::Context> {
        self.traceparent.as_ref()?;
        let cx =
            opentelemetry::global::get_text_map_propagator(|propagator| propagator.extract(self));
        use opentelemetry::trace::TraceContextExt as _;
        cx.span().span_context().is_valid().then_some(cx)
    }
}

impl Extractor for CarriedContext<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "traceparent" => self.traceparent.as_deref(),
            "tracestate" => self.tracestate.as_deref(),
            "baggage" => self.baggage.as_deref(),
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        KEYS.iter()
            .copied()
            .filter(|key| self.get(key).is_some())
            .collect()
    }
}

/// Writes the context `cx` into `params._meta`, creating `_meta` if the request has none.
pub(crate) fn inject(cx: &opentelemetry::Context, params: &mut Map<String, Value>) {
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.inject_context(cx, &mut MetaInjector(meta));
        });
    }
}

struct MetaInjector<'a>(&'a mut Map<String, Value>);

impl Injector for MetaInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), Value::String(value));
    }
}

#[cfg(test)]
mod tests {
    use opentelemetry::propagation::TextMapCompositePropagator;
    use opentelemetry::trace::TraceContextExt as _;
    use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};

    use super::*;

    fn w3c() {
        opentelemetry::global::set_text_map_propagator(TextMapCompositePropagator::new(vec![
            Box::new(TraceContextPropagator::new()),
            Box::new(BaggagePropagator::new()),
        ]));
    }

    #[test]
    fn a_context_written_into_meta_reads_back_as_the_parent() {
        w3c();
        let carried: CarriedContext<'_> = serde_json::from_str(
            r#"{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                "tracestate":"rojo=00f067aa0ba902b7","other":1}"#,
        )
        .unwrap();
        let parent = carried.parent().expect("a valid traceparent");
        let span = parent.span();
        let remote = span.span_context();
        assert_eq!(
            remote.trace_id().to_string(),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        assert!(remote.is_remote());

        let mut params = Map::new();
        inject(&parent, &mut params);
        let meta = &params["_meta"];
        assert_eq!(
            meta["traceparent"],
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        );
        assert_eq!(meta["tracestate"], "rojo=00f067aa0ba902b7");
    }

    #[test]
    fn a_malformed_traceparent_names_no_parent() {
        w3c();
        let carried: CarriedContext<'_> =
            serde_json::from_str(r#"{"traceparent":"00-zz-00f067aa0ba902b7-01"}"#).unwrap();
        assert!(carried.parent().is_none());
        assert!(CarriedContext::default().parent().is_none());
    }
}
