//! Argument completion (`completion/complete`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::meta::{ResultMeta, ResultType};

/// What is being completed: a prompt's argument or a resource template's variable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum CompletionReference {
    /// A prompt.
    #[serde(rename = "ref/prompt")]
    Prompt {
        /// The prompt's name.
        name: String,
        /// Its display name.
        #[serde(skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
    /// A resource template.
    #[serde(rename = "ref/resource")]
    Resource {
        /// The URI or URI template.
        uri: String,
    },
}

/// The argument being typed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompletionArgument {
    /// Its name.
    pub name: String,
    /// What has been typed so far.
    pub value: String,
}

/// Values of other arguments already given.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompletionContext {
    /// Argument values by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
}

/// `completion/complete` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompleteParams {
    /// What is being completed.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument.
    pub argument: CompletionArgument,
    /// Other arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
}

/// The suggestions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most 100 values.
    pub values: Vec<String>,
    /// How many exist in total.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// More exist than were returned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

/// `completion/complete` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteResult {
    /// Filled in by the runtime.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The suggestions.
    pub completion: Completion,
    /// Result `_meta`.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

impl CompleteResult {
    /// Suggestions, truncated to the 100 the spec allows (`hasMore` set when cut).
    pub fn values(mut values: Vec<String>) -> Self {
        let total = values.len();
        let has_more = total > 100;
        values.truncate(100);
        Self {
            completion: Completion {
                values,
                total: Some(total as u64),
                has_more: Some(has_more),
            },
            ..Self::default()
        }
    }
}
