//! The wire of the tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): the task a
//! `tools/call` may be answered with (`resultType: "task"`), the task `tasks/get` shows, and the
//! params of `tasks/get`, `tasks/update` and `tasks/cancel`.

use std::fmt;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{InputRequests, InputResponses, JsonObject, McpError};

/// The tasks extension's id, under `capabilities.extensions` on both sides.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The `resultType` of a `tools/call` answered with a task (a `CreateTaskResult`).
pub const TASK_RESULT_TYPE: &str = "task";

/// Where a task is in its life, as `status` on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// `working`: the function runs.
    Working,
    /// `input_required`: the function waits for answers to its input requests.
    InputRequired,
    /// `completed`: the function returned a result (a tool result with `isError: true` too).
    Completed,
    /// `failed`: the function ended with a JSON-RPC error, or its runner stopped.
    Failed,
    /// `cancelled`: the function was stopped at the client's request.
    Cancelled,
}

impl TaskStatus {
    /// The status as the wire spells it (`input_required`).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// The status spelled `text` on the wire.
    pub fn from_wire(text: &str) -> Option<Self> {
        [
            TaskStatus::Working,
            TaskStatus::InputRequired,
            TaskStatus::Completed,
            TaskStatus::Failed,
            TaskStatus::Cancelled,
        ]
        .into_iter()
        .find(|status| status.as_str() == text)
    }

    /// `completed`, `failed` and `cancelled` are terminal: a task never leaves them.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A task as the wire shows it: the members of a `CreateTaskResult` (with `resultType:
/// "task"`), and the common part of what `tasks/get` and `notifications/tasks` show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The task's id, for `tasks/get`, `tasks/update` and `tasks/cancel`.
    pub task_id: String,
    /// Where it is.
    pub status: TaskStatus,
    /// What the server says about its status, if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was made (ISO 8601).
    pub created_at: String,
    /// When its status last changed (ISO 8601).
    pub last_updated_at: String,
    /// How long the server keeps it, in milliseconds; `None` (`null`) for as long as it likes.
    pub ttl_ms: Option<u64>,
    /// How often the server suggests polling, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

/// A task with what its status carries: what `tasks/get` answers (with `resultType:
/// "complete"`) and `notifications/tasks` sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedTask {
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// `input_required`: every request still waiting for an answer, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// `completed`: the result of the request the task stands for (a `CallToolResult`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<JsonObject>,
    /// `failed`: the JSON-RPC error the request ended with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<McpError>,
}

/// `notifications/tasks` as a listening client hears it: the task whole, as `tasks/get`
/// showed it when the server sent the notification.
///
/// It keeps the params as they came (without their `_meta`) beside the task read from them,
/// and two notifications are equal when their params are, member for member: so it is `Eq`
/// and `Hash`, as every [`Change`](crate::push::Change) is, although a task's result is any
/// JSON.
///
/// ```
/// use mcp::protocol::{TaskNotification, TaskStatus};
/// use serde_json::json;
///
/// let params = json!({
///     "taskId": "t-1", "status": "completed",
///     "createdAt": "2026-12-04T10:00:00.000Z", "lastUpdatedAt": "2026-12-04T10:00:02.000Z",
///     "ttlMs": 60000,
///     "result": {"content": [{"type": "text", "text": "Done."}], "isError": false},
///     "_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"},
/// });
/// let params = params.as_object().cloned().unwrap_or_default();
/// let notification = TaskNotification::from_params(params)?;
/// assert_eq!(notification.task_id(), "t-1");
/// assert_eq!(notification.task().task.status, TaskStatus::Completed);
/// assert!(notification.params().get("_meta").is_none());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct TaskNotification(
    // Boxed: every `Change` is as small as the others, which are a URI at most.
    Box<Heard>,
);

#[derive(Debug, Clone)]
struct Heard {
    task: DetailedTask,
    params: JsonObject,
}

impl TaskNotification {
    /// Reads the params of a `notifications/tasks`; fails when they are not a task.
    pub fn from_params(mut params: JsonObject) -> Result<Self, serde_json::Error> {
        // The listen's subscription id, not the task's: two notifications of one state are
        // one, whichever listen carried them.
        params.remove("_meta");
        let task = serde_json::from_value(serde_json::Value::Object(params.clone()))?;
        Ok(Self(Box::new(Heard { task, params })))
    }

    /// The task.
    pub fn task(&self) -> &DetailedTask {
        &self.0.task
    }

    /// The task, taken out.
    pub fn into_task(self) -> DetailedTask {
        self.0.task
    }

    /// The task's id.
    pub fn task_id(&self) -> &str {
        &self.0.task.task.task_id
    }

    /// The params as they came, without their `_meta`.
    pub fn params(&self) -> &JsonObject {
        &self.0.params
    }
}

impl PartialEq for TaskNotification {
    fn eq(&self, other: &Self) -> bool {
        self.0.params == other.0.params
    }
}

impl Eq for TaskNotification {}

impl Hash for TaskNotification {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.params.hash(state);
    }
}

impl Serialize for TaskNotification {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.params.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for TaskNotification {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let params = JsonObject::deserialize(deserializer)?;
        Self::from_params(params).map_err(serde::de::Error::custom)
    }
}

/// The params of `tasks/get` and `tasks/cancel`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
}

/// The params of `tasks/update`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskParams {
    /// The task.
    pub task_id: String,
    /// Answers to its outstanding input requests, by key.
    pub input_responses: InputResponses,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn statuses_spell_as_on_the_wire_and_back() {
        for (status, text, terminal) in [
            (TaskStatus::Working, "working", false),
            (TaskStatus::InputRequired, "input_required", false),
            (TaskStatus::Completed, "completed", true),
            (TaskStatus::Failed, "failed", true),
            (TaskStatus::Cancelled, "cancelled", true),
        ] {
            assert_eq!(status.to_string(), text);
            assert_eq!(TaskStatus::from_wire(text), Some(status));
            assert_eq!(serde_json::to_value(status).ok(), Some(json!(text)));
            assert_eq!(status.is_terminal(), terminal, "{text}");
        }
        assert_eq!(TaskStatus::from_wire("Working"), None);
        assert_eq!(TaskStatus::from_wire(""), None);
    }

    #[test]
    fn a_detailed_task_is_flat_and_says_null_for_an_unlimited_ttl() {
        let task = DetailedTask {
            task: Task {
                task_id: "t1".into(),
                status: TaskStatus::Failed,
                status_message: None,
                created_at: "2026-12-04T10:00:00.000Z".into(),
                last_updated_at: "2026-12-04T10:00:01.000Z".into(),
                ttl_ms: None,
                poll_interval_ms: Some(500),
            },
            input_requests: None,
            result: None,
            error: Some(McpError::internal("boom")),
        };
        let wire = serde_json::to_value(&task).unwrap_or_default();
        assert_eq!(
            wire,
            json!({
                "taskId": "t1", "status": "failed",
                "createdAt": "2026-12-04T10:00:00.000Z",
                "lastUpdatedAt": "2026-12-04T10:00:01.000Z",
                "ttlMs": null, "pollIntervalMs": 500,
                "error": {"code": -32603, "message": "boom"},
            })
        );
        let back: Option<DetailedTask> = serde_json::from_value(wire).ok();
        assert_eq!(back, Some(task));
    }
}
