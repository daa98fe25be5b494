//! The methods that introduce the server: 2026-07-28 `server/discover` and 2025-11-25
//! `initialize`.

use serde_json::value::RawValue;

use crate::protocol::{
    DiscoverResult, InitializeParams, InitializeResult, MODERN_VERSIONS, McpError, RequestId,
    decode_params, negotiate_legacy, result_line,
};

use super::Server;
use super::connection::{Connection, LegacySession};

impl Server {
    /// 2025-11-25 sessions may subscribe to resources whenever the server has any. (On
    /// 2026-07-28 the same wish goes through `subscriptions/listen`, which is not served yet,
    /// so `discover` does not advertise it.)
    pub(super) fn subscribable(&self) -> bool {
        self.inner.handlers.read_resource.is_some()
    }

    pub(super) fn discover(&self) -> DiscoverResult {
        DiscoverResult {
            result_type: None,
            supported_versions: MODERN_VERSIONS.iter().map(|v| (*v).to_owned()).collect(),
            capabilities: self.capabilities(),
            instructions: self.inner.instructions.clone(),
            meta: None,
            ttl_ms: self.inner.discover_cache.map(|h| h.ttl_ms),
            cache_scope: self.inner.discover_cache.map(|h| h.scope),
        }
    }

    /// Opens the connection's 2025-11-25 session.
    pub(super) fn initialize(
        &self,
        id: &RequestId,
        params: Option<&RawValue>,
        connection: &Connection,
    ) -> Result<String, McpError> {
        let p: InitializeParams = decode_params(params)?;
        let version = negotiate_legacy(&p.protocol_version);
        let opened = connection.open_legacy(LegacySession {
            protocol_version: version.to_owned(),
            capabilities: p.capabilities,
            client_info: p.client_info,
            log_level: self.inner.default_log_level,
            initialized: false,
        });
        if !opened {
            return Err(McpError::invalid_request(
                "The session is already initialized",
            ));
        }
        let mut capabilities = self.capabilities();
        // Extensions are negotiated per request on 2026-07-28 only (see `Extension`).
        capabilities.extensions = None;
        let result = InitializeResult {
            protocol_version: version.to_owned(),
            capabilities,
            server_info: (*self.inner.info).clone(),
            instructions: self.inner.instructions.clone(),
            meta: None,
        };
        Ok(result_line(id, &result))
    }
}
