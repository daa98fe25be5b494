//! A request served under its span, by the OpenTelemetry conventions for MCP (feature
//! `otel`): the connection tells its transport and session, the request the rest.

use serde_json::value::RawValue;

use crate::protocol::{McpError, RequestId};
use crate::telemetry;

use super::Server;
use super::answer::Exchange;

impl Server {
    /// [`dispatch`](Self::dispatch) under the request's span, its duration recorded.
    pub(super) async fn traced_dispatch(
        &self,
        id: &RequestId,
        method: &str,
        params: Option<Box<RawValue>>,
        exchange: Exchange,
    ) -> Result<String, McpError> {
        // The span reads the params while the request, which owns them, runs: a copy, made
        // only when the feature is on.
        let seen = params.clone();
        let connection = exchange.connection.clone();
        let session_version = || {
            connection
                .legacy_session()
                .map(|session| session.protocol_version)
        };
        let work = self.dispatch(id, method, params, exchange);
        telemetry::observe(
            id,
            method,
            seen.as_deref(),
            connection.peer.get(),
            session_version,
            work,
        )
        .await
    }
}
