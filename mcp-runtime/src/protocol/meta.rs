//! `_meta` on requests and results, and the small shared types around it.

use std::sync::Arc;

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use super::capabilities::ClientCapabilities;
use super::jsonrpc::{JsonObject, RequestId};
use super::lifecycle::Implementation;

/// `_meta` keys reserved by MCP 2026-07-28.
pub mod keys {
    /// The protocol version of this request.
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// The client's capabilities for this request.
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// The client's self-reported name and version.
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// The minimum log level the client wants for this request.
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// The server's name and version, on results.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// The listen request a subscription notification belongs to.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
}

/// A request's `_meta`: in 2026-07-28 the version and capabilities travel here on every request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestMeta {
    /// `io.modelcontextprotocol/protocolVersion`.
    #[serde(
        rename = "io.modelcontextprotocol/protocolVersion",
        skip_serializing_if = "Option::is_none"
    )]
    pub protocol_version: Option<String>,
    /// `io.modelcontextprotocol/clientCapabilities`.
    #[serde(
        rename = "io.modelcontextprotocol/clientCapabilities",
        skip_serializing_if = "Option::is_none"
    )]
    pub client_capabilities: Option<ClientCapabilities>,
    /// `io.modelcontextprotocol/clientInfo` (self-reported: for display and logs only).
    #[serde(
        rename = "io.modelcontextprotocol/clientInfo",
        skip_serializing_if = "Option::is_none"
    )]
    pub client_info: Option<Implementation>,
    /// `io.modelcontextprotocol/logLevel`: without it, no log notifications for this request.
    #[serde(
        rename = "io.modelcontextprotocol/logLevel",
        skip_serializing_if = "Option::is_none"
    )]
    pub log_level: Option<LoggingLevel>,
    /// Opt-in to progress notifications.
    #[serde(rename = "progressToken", skip_serializing_if = "Option::is_none")]
    pub progress_token: Option<ProgressToken>,
    /// Every other key (`traceparent`, extension keys, …), kept as sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A result's `_meta`: the server's identity plus anything a handler adds.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ResultMeta {
    /// `io.modelcontextprotocol/serverInfo`.
    #[serde(rename = "io.modelcontextprotocol/serverInfo", default)]
    pub server_info: Option<Arc<Implementation>>,
    /// Other keys.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ResultMeta {
    /// Whether there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.server_info.is_none() && self.extra.is_empty()
    }
}

impl Serialize for ResultMeta {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        if let Some(info) = &self.server_info {
            map.serialize_entry(keys::SERVER_INFO, info)?;
        }
        for (k, v) in &self.extra {
            if k != keys::SERVER_INFO || self.server_info.is_none() {
                map.serialize_entry(k, v)?;
            }
        }
        map.end()
    }
}

/// Whether a 2026-07-28 result is final or asks for input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultType {
    /// A final result.
    Complete,
    /// An `InputRequiredResult`: the client must answer and retry.
    InputRequired,
    /// A value from an extension (e.g. `task`).
    #[serde(untagged)]
    Other(String),
}

/// Who may reuse a cached result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Any client may reuse it.
    Public,
    /// Only within the same authorization context.
    Private,
}

/// Cache hints on cacheable 2026-07-28 results (`ttlMs`, `cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHint {
    /// How long the result stays fresh, in milliseconds.
    pub ttl_ms: u64,
    /// Who may reuse it.
    pub scope: CacheScope,
}

impl Default for CacheHint {
    /// Immediately stale and private: always safe.
    fn default() -> Self {
        Self {
            ttl_ms: 0,
            scope: CacheScope::Private,
        }
    }
}

/// A progress token: a string or an integer chosen by the client.
pub type ProgressToken = RequestId;

/// Log severities (RFC 5424).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Debug.
    Debug,
    /// Info.
    Info,
    /// Notice.
    Notice,
    /// Warning.
    Warning,
    /// Error.
    Error,
    /// Critical.
    Critical,
    /// Alert.
    Alert,
    /// Emergency.
    Emergency,
}

/// The sender of a message in a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The model.
    Assistant,
}

/// Hints on how a client should use a piece of content.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the content is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// ISO 8601 timestamp of the last change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// An icon for display.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// An `https:` or `data:` URI.
    pub src: String,
    /// The MIME type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `48x48` or `any`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// `light` or `dark`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

/// An arbitrary JSON value, re-exported for signatures.
pub type Json = Value;
