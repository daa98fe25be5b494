//! `_meta` on requests and results, and the small shared types around it.

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use super::capabilities::ClientCapabilities;
use super::frozen::Frozen;
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
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
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

// By hand rather than derived: `#[serde(flatten)]` buffers the whole map before reading a
// field, and every request of the stateless wire carries a `_meta`.
impl<'de> Deserialize<'de> for RequestMeta {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MetaVisitor;
        impl<'de> serde::de::Visitor<'de> for MetaVisitor {
            type Value = RequestMeta;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<RequestMeta, A::Error> {
                // `null` reads as absent, as a derived `Option` field does; but a key given
                // twice is refused even when one of the two is `null`, so no reader of
                // `_meta` can take the first where another takes the last.
                fn once<T, E: serde::de::Error>(
                    seen: &mut bool,
                    slot: &mut Option<T>,
                    value: Option<T>,
                    key: &'static str,
                ) -> Result<(), E> {
                    if std::mem::replace(seen, true) {
                        return Err(E::duplicate_field(key));
                    }
                    *slot = value;
                    Ok(())
                }
                let mut meta = RequestMeta::default();
                let mut seen = [false; 5];
                // `Text`, not `Cow`: a bare `Cow` key is always copied.
                while let Some(key) = map.next_key::<super::Text<'de>>()? {
                    match &*key {
                        keys::PROTOCOL_VERSION => once(
                            &mut seen[0],
                            &mut meta.protocol_version,
                            map.next_value()?,
                            keys::PROTOCOL_VERSION,
                        )?,
                        keys::CLIENT_CAPABILITIES => once(
                            &mut seen[1],
                            &mut meta.client_capabilities,
                            map.next_value()?,
                            keys::CLIENT_CAPABILITIES,
                        )?,
                        keys::CLIENT_INFO => once(
                            &mut seen[2],
                            &mut meta.client_info,
                            map.next_value()?,
                            keys::CLIENT_INFO,
                        )?,
                        keys::LOG_LEVEL => once(
                            &mut seen[3],
                            &mut meta.log_level,
                            map.next_value()?,
                            keys::LOG_LEVEL,
                        )?,
                        "progressToken" => once(
                            &mut seen[4],
                            &mut meta.progress_token,
                            map.next_value()?,
                            "progressToken",
                        )?,
                        _ => {
                            let value = map.next_value()?;
                            let key = key.0.into_owned();
                            if meta.extra.contains_key(&key) {
                                return Err(serde::de::Error::custom(format_args!(
                                    "duplicate field `{key}`"
                                )));
                            }
                            meta.extra.insert(key, value);
                        }
                    }
                }
                Ok(meta)
            }
        }
        d.deserialize_map(MetaVisitor)
    }
}

/// A result's `_meta`: the server's identity plus anything a handler adds.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ResultMeta {
    /// `io.modelcontextprotocol/serverInfo`.
    #[serde(rename = "io.modelcontextprotocol/serverInfo", default)]
    pub server_info: Option<Frozen<Implementation>>,
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

impl CacheHint {
    /// Fresh for `ttl` (whole milliseconds), and any client or shared cache may reuse it: for
    /// answers that hold nothing particular to the caller.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp::protocol::{CacheHint, CacheScope};
    ///
    /// let hint = CacheHint::public(Duration::from_secs(60));
    /// assert_eq!((hint.ttl_ms, hint.scope), (60_000, CacheScope::Public));
    /// ```
    pub fn public(ttl: std::time::Duration) -> Self {
        Self {
            ttl_ms: millis(ttl),
            scope: CacheScope::Public,
        }
    }

    /// Fresh for `ttl` (whole milliseconds), reusable only within the same authorization
    /// context (the same access token, say).
    pub fn private(ttl: std::time::Duration) -> Self {
        Self {
            ttl_ms: millis(ttl),
            scope: CacheScope::Private,
        }
    }
}

fn millis(ttl: std::time::Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX)
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
///
/// ```
/// use mcp::protocol::{Icon, IconTheme};
///
/// let icon = Icon::new("https://example.com/logo-dark.png")
///     .with_mime_type("image/png")
///     .with_sizes(["48x48", "96x96"])
///     .with_theme(IconTheme::Dark);
/// assert_eq!(
///     serde_json::to_value(&icon)?,
///     serde_json::json!({
///         "src": "https://example.com/logo-dark.png",
///         "mimeType": "image/png",
///         "sizes": ["48x48", "96x96"],
///         "theme": "dark",
///     })
/// );
/// # Ok::<(), serde_json::Error>(())
/// ```
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
    /// `light` or `dark` (a string, so a peer's unknown theme does not fail a whole result;
    /// [`with_theme`](Self::with_theme) writes one of the two).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

impl Icon {
    /// An icon at `src`: an `https:` URL or a `data:` URI.
    pub fn new(src: impl Into<String>) -> Self {
        Self {
            src: src.into(),
            ..Self::default()
        }
    }

    /// Its MIME type, when the source's is missing or generic (`image/png`, `image/svg+xml`).
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The sizes it can be shown at: `WxH` (`48x48`) or `any` for a scalable format.
    pub fn with_sizes<I, S>(mut self, sizes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.sizes = Some(sizes.into_iter().map(Into::into).collect());
        self
    }

    /// The background it is drawn for.
    pub fn with_theme(mut self, theme: IconTheme) -> Self {
        self.theme = Some(theme.as_str().to_owned());
        self
    }
}

/// The background an [`Icon`] is drawn for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IconTheme {
    /// A light background.
    Light,
    /// A dark background.
    Dark,
}

impl IconTheme {
    /// `light` or `dark`, as on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            IconTheme::Light => "light",
            IconTheme::Dark => "dark",
        }
    }
}

/// An arbitrary JSON value, re-exported for signatures.
pub type Json = Value;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn request_meta_reads_the_reserved_keys_and_keeps_the_rest() {
        let meta: RequestMeta = serde_json::from_value(json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
            "io.modelcontextprotocol/logLevel": "debug",
            "progressToken": 7,
            "traceparent": "00-abc-def-01",
            "x.example/flag": {"on": true}
        }))
        .expect("a valid _meta");
        assert_eq!(meta.protocol_version.as_deref(), Some("2026-07-28"));
        assert!(
            meta.client_capabilities
                .as_ref()
                .is_some_and(ClientCapabilities::supports_form_elicitation)
        );
        assert_eq!(
            meta.client_info.as_ref().map(|i| i.name.as_str()),
            Some("c")
        );
        assert_eq!(meta.log_level, Some(LoggingLevel::Debug));
        assert!(meta.progress_token.is_some());
        assert_eq!(meta.extra.len(), 2);
        assert_eq!(meta.extra["x.example/flag"], json!({"on": true}));
        // What comes in goes out again.
        let back = serde_json::to_value(&meta).expect("serializes");
        assert_eq!(back["traceparent"], "00-abc-def-01");
        assert_eq!(back["io.modelcontextprotocol/logLevel"], "debug");
    }

    #[test]
    fn request_meta_reads_null_as_absent_and_refuses_a_repeated_key() {
        let meta: RequestMeta = serde_json::from_value(json!({
            "io.modelcontextprotocol/protocolVersion": null,
            "progressToken": null
        }))
        .expect("nulls are absent");
        assert_eq!(meta, RequestMeta::default());
        let repeated = r#"{"progressToken":1,"progressToken":2}"#;
        assert!(serde_json::from_str::<RequestMeta>(repeated).is_err());
        assert!(serde_json::from_str::<RequestMeta>("[]").is_err());
    }
}
