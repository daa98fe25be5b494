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
        params: Option<&RawValue>,
        exchange: Exchange,
    ) -> Result<String, McpError> {
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
            params,
            connection.peer.get(),
            session_version,
            work,
        )
        .await
    }
}
