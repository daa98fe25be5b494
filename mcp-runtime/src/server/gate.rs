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

#[derive(Deserialize)]
struct Head {
    #[serde(rename = "_meta", default)]
    meta: Option<RequestMeta>,
    #[serde(rename = "requestState", default)]
    request_state: Option<Value>,
}

/// Admits a request or says why not.
pub(crate) fn admit(
    method: &str,
    params: Option<&RawValue>,
    conn: &Connection,
) -> Result<Admitted, McpError> {
    let head: Head = match params {
        Some(raw) => serde_json::from_str(raw.get())
            .map_err(|e| McpError::invalid_params(format!("Invalid _meta: {e}")))?,
        None => Head {
            meta: None,
            request_state: None,
        },
    };
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
