//! Tasks on a server (the runtime of the tasks extension, built on the extension point): a tool call answered with a task at once, its function run in the
//! background, its status, questions and result kept in a [`TaskStore`] for `tasks/get`,
//! `tasks/update` and `tasks/cancel`.
//!
//! Its settings are [`Tasks`](crate::tasks::Tasks), of the tasks layer below with the
//! stores.
//!
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

use tokio_util::sync::CancellationToken;

use crate::protocol::McpError;
use crate::push::NotificationBus;
use crate::server::Context;
use crate::tasks::{TaskStore, TaskStoreError, Tasks};

/// The tasks of one server: its settings, and the runners of this process by task id.
pub(crate) struct TaskRuntime {
    tasks: Tasks,
    /// Each running task's cancellation: fired when its runner must stop without ending it
    /// (the store no longer holds it for this runner).
    running: Mutex<HashMap<String, CancellationToken>>,
    /// The bus the upkeep announces swept tasks on, set with the loop's start: at the first
    /// request that touches tasks on this instance (a task made, read, answered, cancelled or
    /// listened to), so that any instance serving tasks also fails the tasks of dead ones.
    upkeep: OnceLock<Arc<dyn NotificationBus>>,
}

impl TaskRuntime {
    pub(crate) fn new(tasks: Tasks) -> Arc<Self> {
        Arc::new(Self {
            tasks,
            running: Mutex::default(),
            upkeep: OnceLock::new(),
        })
    }

    /// Starts the upkeep loop, once, with the bus of the server `ctx` belongs to.
    fn keep_up(self: &Arc<Self>, ctx: &Context) {
        self.upkeep.get_or_init(|| {
            upkeep::spawn(Arc::downgrade(self), self.store().lease());
            ctx.server().bus()
        });
    }

    fn store(&self) -> &dyn TaskStore {
        self.tasks.store().as_ref()
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

/// What a request naming a task its caller has not got is answered (-32602, as the spec
/// asks): by a store that has no such task, and by a mounting server for an id none of its
/// servers made, so that neither tells the other apart.
pub(crate) fn not_found() -> McpError {
    McpError::invalid_params("Task not found")
}

/// A store's failure as the client sees it: a task that is not there is the caller's mistake
/// (-32602, as the spec asks); anything else is the server's, logged with its cause.
fn store_error(error: TaskStoreError) -> McpError {
    match error {
        TaskStoreError::NotFound => not_found(),
        TaskStoreError::OwnerLimit { limit } => {
            McpError::invalid_request(format!("Too many tasks: at most {limit} per caller"))
        }
        // The operator's limit, reached by load rather than by a fault: said as such, and
        // logged below an error.
        TaskStoreError::StoreFull { limit } => {
            tracing::warn!(limit, "the task store is full");
            McpError::internal("Too many tasks on this server: try again later")
        }
        other => {
            tracing::error!(error = %other, "the task store failed");
            McpError::internal("The task store is unavailable")
        }
    }
}
