//! Notifications: progress, log messages, cancellation.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::jsonrpc::RequestId;
use super::meta::{LoggingLevel, ProgressToken};

/// Notification method names.
pub mod method {
    /// Progress of a request.
    pub const PROGRESS: &str = "notifications/progress";
    /// A log message.
    pub const MESSAGE: &str = "notifications/message";
    /// A request was cancelled.
    pub const CANCELLED: &str = "notifications/cancelled";
    /// 2025-11-25: the client finished initializing.
    pub const INITIALIZED: &str = "notifications/initialized";
    /// 2025-11-25: the client's roots changed.
    pub const ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
    /// 2025-11-25: the out-of-band interaction of a URL elicitation is over.
    pub const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";
    /// 2026-07-28: the first message of a `subscriptions/listen` stream.
    pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
    /// The server's tools changed.
    pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
    /// The server's prompts changed.
    pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
    /// The server's resources or resource templates changed.
    pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
    /// A resource the client subscribed to changed.
    pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
    /// The tasks extension: a task the listen asked for reached a new status.
    pub const TASKS: &str = "notifications/tasks";
}

/// `notifications/progress` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressParams {
    /// The token from the request's `_meta`.
    pub progress_token: ProgressToken,
    /// Increases with every notification.
    pub progress: f64,
    /// The total, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// A human-readable status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `notifications/message` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessageParams {
    /// Severity.
    pub level: LoggingLevel,
    /// Which logger.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// Any JSON.
    pub data: Value,
}

/// `notifications/cancelled` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledParams {
    /// The request to stop.
    pub request_id: RequestId,
    /// Why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}
