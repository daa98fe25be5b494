//! JSON-RPC errors and the MCP error codes.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::capabilities::ClientCapabilities;
use super::version::MODERN_VERSIONS;

/// The error codes MCP uses, JSON-RPC's own and the 2026-07-28 additions.
pub mod code {
    /// Invalid JSON.
    pub const PARSE_ERROR: i32 = -32700;
    /// Not a valid JSON-RPC request.
    pub const INVALID_REQUEST: i32 = -32600;
    /// Unknown method, or one behind a server capability the server does not offer.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Bad params: missing `_meta`, unknown tool or prompt, bad cursor, unknown resource,
    /// a rejected `requestState`.
    pub const INVALID_PARAMS: i32 = -32602;
    /// The server failed.
    pub const INTERNAL_ERROR: i32 = -32603;
    /// The request took longer than a middleware timeout allows (the code the TypeScript
    /// and Python SDKs use for a timed-out request).
    pub const REQUEST_TIMEOUT: i32 = -32001;
    /// The caller's access token lacks a scope the tool needs; `data.requiredScopes` names
    /// them. Over HTTP the answer is `403` with an `insufficient_scope` challenge.
    pub const INSUFFICIENT_SCOPE: i32 = -32003;
    /// A middleware layer shed the request because the server is at its limit.
    pub const SERVER_OVERLOADED: i32 = -32005;
    /// 2025-11-25 only: the resource does not exist (2026-07-28 says -32602 instead).
    pub const LEGACY_RESOURCE_NOT_FOUND: i32 = -32002;
    /// HTTP routing headers missing or not matching the body.
    pub const HEADER_MISMATCH: i32 = -32020;
    /// The request needs a client capability it did not declare.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i32 = -32021;
    /// The requested protocol version is not served here.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
    /// 2025-11-25 only: the request cannot go on until the user has been to a URL (retired by
    /// 2026-07-28, which must not send it).
    pub const URL_ELICITATION_REQUIRED: i32 = -32042;
}

/// The one message every rejected `requestState` gets, whatever the cause.
pub const INVALID_REQUEST_STATE_MESSAGE: &str = "Invalid or expired requestState";

/// `{"elicitation":{"form":{}},"sampling":{}}` → `elicitation.form`, `sampling`.
fn capability_names(capabilities: &Value) -> Vec<String> {
    let Some(top) = capabilities.as_object() else {
        return Vec::new();
    };
    top.iter()
        .flat_map(
            |(name, inner)| match inner.as_object().filter(|o| !o.is_empty()) {
                Some(inner) => inner.keys().map(|k| format!("{name}.{k}")).collect(),
                None => vec![name.clone()],
            },
        )
        .collect()
}

/// A JSON-RPC error object: what a request fails with on the wire.
///
/// ```
/// use mcp::protocol::McpError;
/// let e = McpError::invalid_params("unknown tool: nope");
/// assert_eq!(e.code, -32602);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{message} ({code})")]
pub struct McpError {
    /// The error code (see [`code`]).
    pub code: i32,
    /// A short description.
    pub message: Cow<'static, str>,
    /// Structured detail, when the code defines some.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl McpError {
    /// An error with a code and a message.
    pub fn new(code: i32, message: impl Into<Cow<'static, str>>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attaches `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// -32700: the message is not JSON.
    pub fn parse_error(detail: impl Into<Cow<'static, str>>) -> Self {
        Self::new(code::PARSE_ERROR, detail)
    }

    /// -32600: not a valid JSON-RPC request.
    pub fn invalid_request(detail: impl Into<Cow<'static, str>>) -> Self {
        Self::new(code::INVALID_REQUEST, detail)
    }

    /// -32601: the method does not exist here.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            code::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
    }

    /// -32602: the params are not acceptable.
    pub fn invalid_params(detail: impl Into<Cow<'static, str>>) -> Self {
        Self::new(code::INVALID_PARAMS, detail)
    }

    /// -32603: the server failed. Keep `detail` free of internals a client should not see.
    pub fn internal(detail: impl Into<Cow<'static, str>>) -> Self {
        Self::new(code::INTERNAL_ERROR, detail)
    }

    /// -32003: the caller's token lacks `required` scopes (all of them named, so a client
    /// asks for every one in a single step-up authorization).
    ///
    /// ```
    /// use mcp::protocol::McpError;
    /// let e = McpError::insufficient_scope(&["notes:write".to_owned()]);
    /// assert_eq!(e.code, -32003);
    /// assert_eq!(e.required_scopes(), Some(vec!["notes:write"]));
    /// ```
    pub fn insufficient_scope(required: &[String]) -> Self {
        Self::new(
            code::INSUFFICIENT_SCOPE,
            "The access token lacks a scope this request needs",
        )
        .with_data(json!({ "requiredScopes": required }))
    }

    /// The scopes an [`insufficient_scope`](Self::insufficient_scope) error names.
    pub fn required_scopes(&self) -> Option<Vec<&str>> {
        if self.code != code::INSUFFICIENT_SCOPE {
            return None;
        }
        let scopes = self.data.as_ref()?.get("requiredScopes")?.as_array()?;
        Some(scopes.iter().filter_map(Value::as_str).collect())
    }

    /// -32020: HTTP routing headers missing or disagreeing with the body.
    pub fn header_mismatch(detail: impl Into<Cow<'static, str>>) -> Self {
        Self::new(code::HEADER_MISMATCH, detail)
    }

    /// -32021: the request needs client capabilities it did not declare. The message names
    /// them (`elicitation.form`, `sampling`), after `detail`.
    ///
    /// ```
    /// use mcp::protocol::{ClientCapabilities, McpError};
    /// let required: ClientCapabilities =
    ///     serde_json::from_value(serde_json::json!({"elicitation": {"form": {}}})).unwrap();
    /// let e = McpError::missing_capability("This tool asks the user", &required);
    /// assert_eq!(e.message, "This tool asks the user (missing: elicitation.form)");
    /// ```
    pub fn missing_capability(
        detail: impl Into<Cow<'static, str>>,
        required: &ClientCapabilities,
    ) -> Self {
        let required = serde_json::to_value(required).unwrap_or_default();
        let names = capability_names(&required);
        let detail = detail.into();
        let message = if names.is_empty() {
            detail
        } else {
            format!("{detail} (missing: {})", names.join(", ")).into()
        };
        Self::new(code::MISSING_REQUIRED_CLIENT_CAPABILITY, message)
            .with_data(json!({ "requiredCapabilities": required }))
    }

    /// -32021 for a request that needs extension `id`, which the client did not declare on it:
    /// `requiredCapabilities` is `{"extensions": {id: {}}}`.
    ///
    /// ```
    /// use mcp::protocol::McpError;
    /// let e = McpError::missing_extension("Tasks need the tasks extension", "io.modelcontextprotocol/tasks");
    /// assert_eq!(e.code, -32021);
    /// assert_eq!(
    ///     e.data.unwrap()["requiredCapabilities"],
    ///     serde_json::json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    /// );
    /// ```
    pub fn missing_extension(detail: impl Into<Cow<'static, str>>, id: &str) -> Self {
        Self::missing_capability(detail, &ClientCapabilities::default().with_extension(id))
    }

    /// -32042, 2025-11-25 only: the request cannot go on until the user has completed these
    /// URL elicitations (each with its `elicitationId`); the client may retry it afterwards.
    /// The 2026-07-28 wire retired this code: ask there with an `InputRequiredResult`.
    ///
    /// ```
    /// use mcp::protocol::{ElicitParams, McpError};
    ///
    /// let sign_in = ElicitParams::Url {
    ///     message: "Sign in to GitHub".into(),
    ///     url: "https://example.com/connect/github".into(),
    ///     elicitation_id: Some("e-1".into()),
    /// };
    /// let error = McpError::url_elicitation_required("Sign in first", &[sign_in]);
    /// assert_eq!(error.code, -32042);
    /// assert_eq!(error.data.unwrap()["elicitations"][0]["elicitationId"], "e-1");
    /// ```
    pub fn url_elicitation_required(
        message: impl Into<Cow<'static, str>>,
        elicitations: &[super::ElicitParams],
    ) -> Self {
        Self::new(code::URL_ELICITATION_REQUIRED, message)
            .with_data(json!({ "elicitations": elicitations }))
    }

    /// -32022: the requested protocol version is not served here.
    pub fn unsupported_version(requested: &str) -> Self {
        Self::new(
            code::UNSUPPORTED_PROTOCOL_VERSION,
            format!("Unsupported protocol version: {requested}"),
        )
        .with_data(json!({ "supported": MODERN_VERSIONS, "requested": requested }))
    }

    /// The fixed answer to any `requestState` that fails verification.
    pub fn invalid_request_state() -> Self {
        Self::new(code::INVALID_PARAMS, INVALID_REQUEST_STATE_MESSAGE)
            .with_data(json!({ "reason": "invalid_request_state" }))
    }

    /// Whether this is the fixed rejection of a `requestState` (see
    /// [`invalid_request_state`](Self::invalid_request_state)): the round cannot be retried,
    /// only the call started over.
    ///
    /// ```
    /// use mcp::protocol::McpError;
    /// assert!(McpError::invalid_request_state().is_invalid_request_state());
    /// assert!(!McpError::invalid_params("unknown tool: nope").is_invalid_request_state());
    /// ```
    pub fn is_invalid_request_state(&self) -> bool {
        self.code == code::INVALID_PARAMS && self.message == INVALID_REQUEST_STATE_MESSAGE
    }

    /// -32002 for a resource that does not exist, as 2025-11-25 says it (2026-07-28 retired
    /// the code: use [`resource_not_found`](Self::resource_not_found) there).
    pub fn legacy_resource_not_found(uri: &str) -> Self {
        Self::new(
            code::LEGACY_RESOURCE_NOT_FOUND,
            format!("Resource not found: {uri}"),
        )
        .with_data(json!({ "uri": uri }))
    }

    /// -32602 for a resource that does not exist, with the URI in `data`.
    pub fn resource_not_found(uri: &str) -> Self {
        Self::new(code::INVALID_PARAMS, format!("Resource not found: {uri}"))
            .with_data(json!({ "uri": uri }))
    }
}
