//! 2026-07-28 `subscriptions/listen`: what a client asks to hear about, and the result that
//! ends the stream.

use serde::{Deserialize, Serialize};

use super::jsonrpc::RequestId;
use super::meta::{ResultMeta, ResultType, keys};

/// The notifications a listen opts in to; each is off unless asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// `notifications/tasks` for these task ids (the tasks extension,
    /// `io.modelcontextprotocol/tasks`, which a listen asking for them must declare).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
}

impl SubscriptionFilter {
    /// Nothing yet; add what to hear about with the methods below.
    ///
    /// ```
    /// use mcp::protocol::SubscriptionFilter;
    ///
    /// let filter = SubscriptionFilter::new()
    ///     .tools_changed()
    ///     .resource("board://messages");
    /// assert_eq!(filter.tools_list_changed, Some(true));
    /// assert_eq!(filter.prompts_list_changed, None);
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// `notifications/tools/list_changed`.
    pub fn tools_changed(mut self) -> Self {
        self.tools_list_changed = Some(true);
        self
    }

    /// `notifications/prompts/list_changed`.
    pub fn prompts_changed(mut self) -> Self {
        self.prompts_list_changed = Some(true);
        self
    }

    /// `notifications/resources/list_changed` (resources and resource templates).
    pub fn resources_changed(mut self) -> Self {
        self.resources_list_changed = Some(true);
        self
    }

    /// `notifications/resources/updated` for the resource at `uri`.
    pub fn resource(mut self, uri: impl Into<String>) -> Self {
        self.resource_subscriptions
            .get_or_insert_with(Vec::new)
            .push(uri.into());
        self
    }

    /// `notifications/tasks` for the task `task_id`: each status it reaches, with the task
    /// whole (the tasks extension; the client must declare it).
    ///
    /// ```
    /// use mcp::protocol::SubscriptionFilter;
    ///
    /// let filter = SubscriptionFilter::new().task("t-1").tasks(["t-2", "t-3"]);
    /// assert_eq!(filter.task_ids, Some(vec!["t-1".into(), "t-2".into(), "t-3".into()]));
    /// assert_eq!(
    ///     serde_json::to_value(&filter)?,
    ///     serde_json::json!({"taskIds": ["t-1", "t-2", "t-3"]})
    /// );
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn task(self, task_id: impl Into<String>) -> Self {
        self.tasks([task_id])
    }

    /// `notifications/tasks` for each of `task_ids` (see [`task`](Self::task)).
    pub fn tasks<I, S>(mut self, task_ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.task_ids
            .get_or_insert_with(Vec::new)
            .extend(task_ids.into_iter().map(Into::into));
        self
    }
}

/// `subscriptions/listen` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListenParams {
    /// What the client opts in to.
    pub notifications: SubscriptionFilter,
}

/// The result that ends a listen the server tears down gracefully.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListenResult {
    /// Filled in by the runtime.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Carries the subscription id (the listen request's id).
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

impl ListenResult {
    /// The result ending the listen opened by request `id`.
    pub fn closing(id: &RequestId) -> Self {
        let mut meta = ResultMeta::default();
        meta.extra.insert(
            keys::SUBSCRIPTION_ID.to_owned(),
            serde_json::to_value(id).unwrap_or_default(),
        );
        Self {
            result_type: None,
            meta: Some(meta),
        }
    }
}
