//! Tasks on a server: a tool call answered with a task at once, its function run in the
//! background, its status, questions and result kept in a [`TaskStore`] for `tasks/get`,
//! `tasks/update` and `tasks/cancel`.
//!
//! - [`Tasks`]: the settings (the store, the ttl and poll interval tasks get).
//! - `start`: a `tools/call` made into a task; `runner`: its function run to the end, asking
//!   through the task's `input_required` status; `methods`: the three methods;
//!   `upkeep`: leases renewed and expired runners' tasks failed.

mod listen;
mod methods;
mod runner;
mod start;
mod upkeep;
mod wire;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::{MemoryTaskStore, TaskStore, TaskStoreError};
use crate::protocol::McpError;

/// How long a finished task is kept by default: an hour (the in-memory store's longest).
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(3600);
/// How often clients are told to poll by default.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// How a server runs its tasks: where they are kept, how long a finished one is kept, and how
/// often clients should poll. Give it to [`McpServer::tasks`](crate::server::McpServer::tasks).
///
/// The default keeps tasks in this process ([`MemoryTaskStore`]); a fleet shares a
/// `RedisTaskStore` (feature `redis`) so that any instance answers for any task.
///
/// ```
/// use std::time::Duration;
/// use mcp::tasks::{MemoryTaskStore, Tasks};
///
/// let tasks = Tasks::new(MemoryTaskStore::new())
///     .ttl(Duration::from_secs(600))
///     .poll_interval(Duration::from_millis(500));
/// # let _ = tasks;
/// ```
#[derive(Clone)]
pub struct Tasks {
    store: Arc<dyn TaskStore>,
    ttl: Duration,
    poll_interval: Duration,
}

impl Tasks {
    /// Tasks kept in `store`, with the default ttl and poll interval.
    pub fn new(store: impl TaskStore) -> Self {
        Self::shared(Arc::new(store))
    }

    /// Tasks kept in a store shared with other code (which may read it, say).
    pub fn shared(store: Arc<dyn TaskStore>) -> Self {
        Self {
            store,
            ttl: DEFAULT_TASK_TTL,
            poll_interval: DEFAULT_POLL_INTERVAL,
        }
    }

    /// How long a task is kept once finished ([`DEFAULT_TASK_TTL`] by default; the store
    /// may keep it less, up to its own limit). At least a millisecond.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl.max(Duration::from_millis(1));
        self
    }

    /// How often clients are told to poll ([`DEFAULT_POLL_INTERVAL`] by default). At least
    /// a millisecond.
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn TaskStore> {
        &self.store
    }
}

impl Default for Tasks {
    /// Kept in this process, an hour after they finish, polled every second.
    fn default() -> Self {
        Self::new(MemoryTaskStore::new())
    }
}

impl fmt::Debug for Tasks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tasks")
            .field("ttl", &self.ttl)
            .field("poll_interval", &self.poll_interval)
            .finish_non_exhaustive()
    }
}

/// The tasks of one server: its settings, and the runners of this process by task id.
pub(crate) struct TaskRuntime {
    tasks: Tasks,
    /// Each running task's cancellation: fired when its runner must stop without ending it
    /// (the store no longer holds it for this runner).
    running: Mutex<HashMap<String, CancellationToken>>,
    /// Set once the upkeep loop runs (it starts with the first task).
    upkeep: OnceLock<()>,
}

impl TaskRuntime {
    pub(crate) fn new(tasks: Tasks) -> Arc<Self> {
        Arc::new(Self {
            tasks,
            running: Mutex::default(),
            upkeep: OnceLock::new(),
        })
    }

    fn store(&self) -> &dyn TaskStore {
        self.tasks.store.as_ref()
    }

    fn running(&self) -> MutexGuard<'_, HashMap<String, CancellationToken>> {
        // Every change is one insert or remove: a panic cannot leave it half-made.
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl fmt::Debug for TaskRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskRuntime")
            .field("tasks", &self.tasks)
            .field("running", &self.running().len())
            .finish()
    }
}

/// A store's failure as the client sees it: a task that is not there is the caller's mistake
/// (-32602, as the spec asks); anything else is the server's, logged with its cause.
fn store_error(error: TaskStoreError) -> McpError {
    match error {
        TaskStoreError::NotFound => McpError::invalid_params("Task not found"),
        TaskStoreError::OwnerLimit { limit } => {
            McpError::invalid_request(format!("Too many tasks: at most {limit} per caller"))
        }
        other => {
            tracing::error!(error = %other, "the task store failed");
            McpError::internal("The task store is unavailable")
        }
    }
}
