//! The generation gate: decides, per request, which wire it travels on and with what
//! capabilities, before any handler runs.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::protocol::{
    ClientCapabilities, Generation, Implementation, JsonObject, LoggingLevel, McpError,
    ProgressToken, RequestMeta, is_modern, keys, methods,
};

use super::session::Connection;

/// What the gate admitted.
#[derive(Debug)]
pub(crate) struct Admitted {
    pub generation: Generation,
    pub protocol_version: String,
    pub client_capabilities: ClientCapabilities,
    pub client_info: Option<Implementation>,
    pub log_level: Option<LoggingLevel>,
    pub progress_token: Option<ProgressToken>,
    pub meta: JsonObject,
    /// The raw `requestState` member (`null` already folded into `None`).
    pub request_state: Option<Value>,
}

/// What the gate reads from a request's params: its `_meta` and its raw `requestState`. A
/// transport that has read them already (to route the request) hands them over in the
/// [`Exchange`](super::Exchange), so the params are not read for them twice.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct Head {
    #[serde(rename = "_meta", default)]
    pub meta: Option<RequestMeta>,
    #[serde(rename = "requestState", default)]
    pub request_state: Option<Value>,
}

impl Head {
    /// Reads the head of `params`.
    pub fn read(params: Option<&RawValue>) -> Result<Self, McpError> {
        match params {
            Some(raw) => serde_json::from_str(raw.get())
                .map_err(|e| McpError::invalid_params(format!("Invalid _meta: {e}"))),
            None => Ok(Self::default()),
        }
    }
}

/// Admits a request or says why not.
pub(crate) fn admit(method: &str, head: Head, conn: &Connection) -> Result<Admitted, McpError> {
    let meta = head.meta.unwrap_or_default();
    if let Some(version) = meta.protocol_version {
        if !is_modern(&version) {
            return Err(McpError::unsupported_version(&version));
        }
        let Some(client_capabilities) = meta.client_capabilities else {
            return Err(McpError::invalid_params(format!(
                "Missing _meta[\"{}\"]",
                keys::CLIENT_CAPABILITIES
            )));
        };
        if methods::LEGACY_ONLY.contains(&method) {
            return Err(McpError::method_not_found(method));
        }
        return Ok(Admitted {
            generation: Generation::Modern,
            protocol_version: version,
            client_capabilities,
            client_info: meta.client_info,
            log_level: meta.log_level,
            progress_token: meta.progress_token,
            meta: meta.extra,
            request_state: head.request_state,
        });
    }
    let session = conn.legacy_session();
    if method == methods::INITIALIZE || session.is_some() {
        let (protocol_version, client_capabilities, client_info, log_level) = match session {
            Some(s) => (
                s.protocol_version,
                s.capabilities,
                Some(s.client_info),
                s.log_level,
            ),
            None => Default::default(),
        };
        return Ok(Admitted {
            generation: Generation::Legacy,
            protocol_version,
            client_capabilities,
            client_info,
            log_level,
            progress_token: meta.progress_token,
            meta: meta.extra,
            request_state: head.request_state,
        });
    }
    Err(McpError::invalid_params(format!(
        "Missing _meta[\"{}\"]: a 2026-07-28 request carries its protocol version and client \
         capabilities; a 2025-11-25 client must call initialize first",
        keys::PROTOCOL_VERSION
    )))
}
