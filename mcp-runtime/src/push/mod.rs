//! Server push: what changed on a server, and the bus that carries each change to every
//! instance serving the same application, so a client listening on one instance hears of a
//! change made through another.
//!
//! The server publishes a [`Change`] on its [`NotificationBus`] and delivers what the bus
//! hands back to the listeners connected to this instance. One process needs nothing more
//! than the default [`LocalBus`]; a fleet shares one bus backed by a real engine.

mod local;
#[cfg(feature = "redis")]
mod redis_bus;

pub use local::{LOCAL_BUS_CAPACITY, LocalBus};
#[cfg(feature = "redis")]
pub use redis_bus::{REDIS_KEEPALIVE, REDIS_QUEUE_CAPACITY, RedisBus, RedisBusError};

use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, watch};

use crate::protocol::TaskNotification;

/// Something a listening client is told about.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// The tools listing changed (`notifications/tools/list_changed`).
    ToolsListChanged,
    /// The prompts listing changed (`notifications/prompts/list_changed`).
    PromptsListChanged,
    /// The resources or resource templates listing changed
    /// (`notifications/resources/list_changed`).
    ResourcesListChanged,
    /// The resource at `uri` changed (`notifications/resources/updated`), for the clients
    /// subscribed to it.
    ResourceUpdated {
        /// The resource's URI, as clients subscribe to it.
        uri: String,
    },
    /// The task `task_id` reached a new status (the tasks extension): what the tasks runtime
    /// publishes at each. Only the id travels: the instance holding a listen that was granted
    /// the task reads it from the task store as the listen's caller, and sends
    /// `notifications/tasks` with the task whole.
    TaskStatus {
        /// The task's id.
        task_id: String,
    },
    /// `notifications/tasks`, as a client's [`Listen`](crate::client::Listen) hears it: the
    /// task whole. A server handed one treats it as a [`TaskStatus`](Self::TaskStatus) of
    /// that task: its listeners are sent the task as the store holds it, never this copy.
    Task(TaskNotification),
}

/// What a server's delivery of changes looks like right now, from
/// [`Server::push_stats`](crate::server::Server::push_stats).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PushStats {
    /// Listeners connected to this instance: 2026-07-28 listens, and 2025-11-25 sessions
    /// that hear what the server pushes (on stdio while connected; over HTTP from their first
    /// GET stream until the session ends, so that what happens while the client reconnects
    /// is kept for it).
    pub listeners: usize,
    /// Listeners ended so far because they fell behind: a client that did not read what it
    /// was sent while [`LISTENER_QUEUE`](crate::server::LISTENER_QUEUE) changes piled up, or
    /// every listener of this instance when changes were lost on their way to it (the
    /// instance read its bus too slowly, or the bus reported a loss:
    /// [`NotificationBus::losses`]). Each such end is also logged as a warning.
    pub fallen_behind: u64,
}

/// Carries [`Change`]s between the instances of one application.
///
/// A server subscribes once, when its first listener connects, and publishes every change it
/// makes; what it receives (its own changes included) it delivers to its listeners. An implementation that
/// loses its engine keeps delivering this instance's own changes locally and says so in the
/// log, so one instance's listeners never go without their own instance's news.
pub trait NotificationBus: Send + Sync + 'static {
    /// Sends `change` to every subscriber of every instance, this one's included. Never
    /// waits: a bus that must talk to an engine queues the change.
    fn publish(&self, change: Change);

    /// The changes published from now on, by any instance. A receiver that falls behind
    /// loses the oldest ones (`RecvError::Lagged`) rather than holding the bus up.
    fn subscribe(&self) -> broadcast::Receiver<Change>;

    /// For a bus that can lose changes without its receivers lagging (one whose engine was
    /// unreachable for a while): a count that goes up each time changes may have been lost.
    /// The server then ends every listener connected to this instance, as it does when it
    /// falls behind the bus itself, so each client re-reads what it cares about and listens
    /// again. `None` (the default): this bus loses nothing that way.
    fn losses(&self) -> Option<watch::Receiver<u64>> {
        None
    }
}
