//! Sampling: asking the client's LLM for a completion.

use serde::{Deserialize, Serialize};

use super::content::{OneOrMany, SamplingContent};
use super::jsonrpc::JsonObject;
use super::meta::Role;
use super::tools::Tool;

/// One message of the conversation sent for sampling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said: one block or several.
    pub content: OneOrMany<SamplingContent>,
    /// Extra metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl SamplingMessage {
    /// A user message with text.
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: OneOrMany::One(SamplingContent::text(text)),
            meta: None,
        }
    }
}

/// Which model the server would like.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Model name hints, in order of preference.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// 0..1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// 0..1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// 0..1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

/// A model name hint.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A full or partial model name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// Whether the model may, must or must not use tools.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolChoice {
    /// `auto`, `required` or `none`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
}

/// `sampling/createMessage` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageParams {
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// Model preferences.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// `none`, `thisServer` or `allServers` (the last two deprecated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_context: Option<String>,
    /// Sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The most tokens to generate.
    pub max_tokens: u64,
    /// Where to stop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Tools the model may call (needs the client's `sampling.tools`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// Tool policy (needs the client's `sampling.tools`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
}

impl CreateMessageParams {
    /// One user message and a token budget.
    pub fn prompt(text: impl Into<String>, max_tokens: u64) -> Self {
        Self {
            messages: vec![SamplingMessage::user(text)],
            max_tokens,
            ..Self::default()
        }
    }

    /// Whether answering needs the client's `sampling.tools` capability.
    pub fn uses_tools(&self) -> bool {
        self.tools.is_some() || self.tool_choice.is_some()
    }
}

/// The client's LLM's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Always `assistant` in practice.
    pub role: Role,
    /// What the model said.
    pub content: OneOrMany<SamplingContent>,
    /// The model that answered.
    pub model: String,
    /// Why it stopped (`endTurn`, `stopSequence`, `maxTokens`, `toolUse`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Extra metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CreateMessageResult {
    /// The text of the answer's first text block.
    pub fn text(&self) -> Option<&str> {
        self.content
            .as_slice()
            .iter()
            .find_map(SamplingContent::as_text)
    }
}
