//! What a store holds about a task, and what its operations answer.

use std::time::Duration;

use serde_json::{Map, Value};

use super::Timestamp;
use crate::protocol::{InputRequests, InputResponses, McpError, TaskStatus};

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
