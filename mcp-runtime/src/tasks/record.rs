//! What a store holds about a task, and what its operations answer.

use std::fmt;
use std::time::Duration;

use serde_json::{Map, Value};

use super::Timestamp;
use crate::protocol::{InputRequests, InputResponses, McpError};

/// Where a task is in its life, as `status` on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

/// A task's status with what that status carries: the outstanding input requests, the
/// result, the error. A runner moves its task to the next one with
/// [`TaskStore::advance`](super::TaskStore::advance).
#[derive(Debug, Clone, PartialEq)]
pub enum TaskState {
    /// The function runs.
    Working,
    /// The function waits for answers: the requests not answered yet, by key.
    InputRequired(InputRequests),
    /// The function's result (for a tool, its `CallToolResult` as a JSON object).
    Completed(Map<String, Value>),
    /// The JSON-RPC error the function ended with.
    Failed(McpError),
    /// The function was stopped at the client's request.
    Cancelled,
}

impl TaskState {
    /// The status this state is in.
    pub fn status(&self) -> TaskStatus {
        match self {
            TaskState::Working => TaskStatus::Working,
            TaskState::InputRequired(_) => TaskStatus::InputRequired,
            TaskState::Completed(_) => TaskStatus::Completed,
            TaskState::Failed(_) => TaskStatus::Failed,
            TaskState::Cancelled => TaskStatus::Cancelled,
        }
    }
}

/// A task as a store holds it: what `tasks/get` shows, plus its owner and whether a cancel was
/// requested.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRecord {
    /// The task id (`taskId`): unguessable, made by the store.
    pub task_id: String,
    /// The principal the task belongs to; nobody else can read, answer or cancel it.
    pub owner: String,
    /// The status and what it carries.
    pub state: TaskState,
    /// `statusMessage`: what the runner last said about the task, if anything.
    pub status_message: Option<String>,
    /// `createdAt`.
    pub created_at: Timestamp,
    /// `lastUpdatedAt`: every change of state moves it forward, by at least a millisecond.
    pub last_updated_at: Timestamp,
    /// `ttlMs`: how long the task is kept after it reaches a terminal status.
    pub ttl: Duration,
    /// `pollIntervalMs`: how often clients should poll, if the server says.
    pub poll_interval: Option<Duration>,
    /// A client asked to cancel the task (`tasks/cancel`), and the runner has not ended it
    /// yet (or has not seen the request).
    pub cancel_requested: bool,
}

impl TaskRecord {
    /// The task's status.
    pub fn status(&self) -> TaskStatus {
        self.state.status()
    }
}

/// Why a store did not take the answer under one key of a `tasks/update`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// The key was answered before: each key is answered once over the task's life.
    AlreadyAnswered,
    /// The task is not waiting for an answer under this key: it never asked it, asked
    /// something else since, or has ended.
    NotOutstanding,
}

/// What a store did with the answers of a `tasks/update`. The spec has a server ignore
/// answers to keys that are not outstanding, so a refusal is not an error of the whole
/// update: the accepted answers are kept and the runner woken all the same.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UpdateOutcome {
    /// The keys whose answers were stored for the runner.
    pub accepted: Vec<String>,
    /// The keys whose answers were not, and why.
    pub refused: Vec<(String, Refusal)>,
}

/// What reached a task's runner since it last looked: see
/// [`TaskStore::take_inbox`](super::TaskStore::take_inbox).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Inbox {
    /// Answers to the task's input requests, each handed out once.
    pub responses: InputResponses,
    /// A client asked to cancel the task. It stays set until the runner ends the task.
    pub cancel_requested: bool,
}

#[cfg(test)]
mod tests {
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
            assert_eq!(status.is_terminal(), terminal, "{text}");
        }
        assert_eq!(TaskStatus::from_wire("Working"), None);
        assert_eq!(TaskStatus::from_wire(""), None);
    }
}
