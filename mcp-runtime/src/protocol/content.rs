//! Content blocks: what tools return, prompts contain and sampling exchanges.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::jsonrpc::JsonObject;
use super::meta::Annotations;
use super::resources::{Resource, ResourceContents};

/// One piece of content in a tool result or a prompt message.
///
/// ```
/// use mcp::protocol::ContentBlock;
/// let block = ContentBlock::text("hello");
/// assert_eq!(serde_json::to_string(&block).unwrap(), r#"{"type":"text","text":"hello"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Text.
    Text(TextContent),
    /// A base64 image.
    Image(MediaContent),
    /// Base64 audio.
    Audio(MediaContent),
    /// A link to a resource the client may read.
    ResourceLink(Resource),
    /// A resource's contents, inline.
    Resource(EmbeddedResource),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

impl From<String> for ContentBlock {
    fn from(text: String) -> Self {
        ContentBlock::text(text)
    }
}

impl From<&str> for ContentBlock {
    fn from(text: &str) -> Self {
        ContentBlock::text(text)
    }
}

/// A text block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Display hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Extra metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl TextContent {
    /// Plain text.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }
}

/// An image or audio block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaContent {
    /// Base64 data.
    pub data: String,
    /// The MIME type.
    pub mime_type: String,
    /// Display hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Extra metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A resource's contents embedded in a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The contents.
    pub resource: ResourceContents,
    /// Display hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Extra metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Content in a sampling message: text, media, or a step of the model's tool use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SamplingContent {
    /// Text.
    Text(TextContent),
    /// A base64 image.
    Image(MediaContent),
    /// Base64 audio.
    Audio(MediaContent),
    /// The model calls a tool.
    ToolUse(ToolUseContent),
    /// The result of a tool the model called.
    ToolResult(ToolResultContent),
}

impl SamplingContent {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        SamplingContent::Text(TextContent::new(text))
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            SamplingContent::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// The model asks to call a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUseContent {
    /// Correlates the result.
    pub id: String,
    /// The tool.
    pub name: String,
    /// Its arguments.
    pub input: JsonObject,
    /// Extra metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The outcome of a tool call the model made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// The `id` of the matching tool use.
    pub tool_use_id: String,
    /// What the tool returned.
    pub content: Vec<ContentBlock>,
    /// Structured output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Extra metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// One item or a list of them (sampling content may be either).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    /// A single item.
    One(T),
    /// Several items.
    Many(Vec<T>),
}

impl<T> OneOrMany<T> {
    /// The items as a slice.
    pub fn as_slice(&self) -> &[T] {
        match self {
            OneOrMany::One(t) => std::slice::from_ref(t),
            OneOrMany::Many(v) => v,
        }
    }
}
