//! How a server runs its tasks: the store, and the ttl and poll interval tasks get. The
//! runtime that uses them is the server's (`server::tasks`).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::{MemoryTaskStore, TaskStore};

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

    /// How long a finished task is kept.
    pub fn task_ttl(&self) -> Duration {
        self.ttl
    }

    /// How often clients are told to poll.
    pub fn task_poll_interval(&self) -> Duration {
        self.poll_interval
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
