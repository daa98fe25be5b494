//! The Prometheus scrape beside the MCP endpoint (feature `otel`), when the application asks
//! for it: a plain `GET`, outside the endpoint's authorization and `Host` checks.

use std::sync::Arc;

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse as _, Response};
use axum::routing::{MethodRouter, get};

use crate::telemetry::Prometheus;

use super::endpoint::{Shared, on_other_metadata_method};

/// The route serving `scrape`: `GET` (and `HEAD`), any other method a 405.
pub(super) fn scrape_route(scrape: Prometheus) -> MethodRouter<Arc<Shared>> {
    let render = move |State(shared): State<Arc<Shared>>| {
        let text = scrape.render();
        async move {
            let response: Response =
                ([(header::CONTENT_TYPE, Prometheus::CONTENT_TYPE)], text).into_response();
            shared.finish(response)
        }
    };
    get(render).fallback(on_other_metadata_method)
}
