//! Tools: listing and calling.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::content::ContentBlock;
use super::jsonrpc::JsonObject;
use super::meta::{CacheScope, Icon, ResultMeta, ResultType};
use super::mrtr::InputResponses;

/// A tool a server offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// A programmatic name (`[A-Za-z0-9_.-]{1,128}`).
    pub name: String,
    /// A display name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it does, for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// JSON Schema of the arguments (an object schema). Shared, since it never changes.
    pub input_schema: Arc<Value>,
    /// JSON Schema of `structuredContent`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Arc<Value>>,
    /// Behaviour hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Extra metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl Tool {
    /// A tool with a name and an input schema.
    pub fn new(name: impl Into<String>, input_schema: Value) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            icons: None,
            input_schema: Arc::new(input_schema),
            output_schema: None,
            annotations: None,
            meta: None,
        }
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// Hints about a tool's behaviour (untrusted unless the server is).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// A display name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// It changes nothing (default false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// It may destroy data (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling it twice equals calling it once (default false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// It reaches beyond the server (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// `tools/call` params. May carry the answers of a previous round.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolParams {
    /// The tool.
    pub name: String,
    /// Its arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// Answers to the previous round's input requests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The previous round's state, as plaintext once the runtime has opened it.
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

/// `tools/call` result.
///
/// ```
/// use mcp::protocol::CallToolResult;
/// let ok = CallToolResult::text("done");
/// assert_eq!(ok.is_error, None);
/// let failed = CallToolResult::error("no such region");
/// assert_eq!(failed.is_error, Some(true));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Filled in by the runtime.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// What the tool produced.
    pub content: Vec<ContentBlock>,
    /// Structured output matching the tool's output schema.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// The tool failed (the model sees why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Result `_meta`.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

impl CallToolResult {
    /// A successful result with these blocks.
    pub fn new(content: Vec<ContentBlock>) -> Self {
        Self {
            content,
            ..Self::default()
        }
    }

    /// A successful text result.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(vec![ContentBlock::text(text)])
    }

    /// A failed result: the message goes to the model, `isError` is set.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            is_error: Some(true),
            ..Self::text(message)
        }
    }
}

/// `tools/list` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// Filled in by the runtime.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// One page of tools.
    pub tools: Vec<Tool>,
    /// Where the next page starts; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Result `_meta`.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
    /// Freshness in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may reuse it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
}
