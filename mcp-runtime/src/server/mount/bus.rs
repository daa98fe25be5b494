//! The bus a mounted server publishes on: its parent's, with its resource URIs and task ids
//! as the parent names them, so a child's changes reach the parent's listeners and subscribers.

use std::sync::Arc;

use tokio::sync::{broadcast, watch};

use crate::push::{Change, NotificationBus};

use super::prefix::Prefix;

pub(super) struct PrefixedBus {
    parent: Arc<dyn NotificationBus>,
    prefix: Prefix,
}

impl PrefixedBus {
    pub fn new(parent: Arc<dyn NotificationBus>, prefix: Prefix) -> Self {
        Self { parent, prefix }
    }
}

impl NotificationBus for PrefixedBus {
    fn publish(&self, change: Change) {
        let change = match change {
            Change::ResourceUpdated { uri } => Change::ResourceUpdated {
                uri: self.prefix.uri(&uri),
            },
            Change::TaskStatus { task_id } => Change::TaskStatus {
                task_id: self.prefix.task_id(&task_id),
            },
            // Listeners are sent the task as its store holds it, never a copy: only the id
            // matters, and it must read as the parent's clients know it.
            Change::Task(task) => Change::TaskStatus {
                task_id: self.prefix.task_id(task.task_id()),
            },
            other => other,
        };
        self.parent.publish(change);
    }

    // Every listener of a mounted server's clients is its parent's (requests reach the child
    // only routed through the parent), so the child's own fan-out never has one to feed.
    fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.parent.subscribe()
    }

    fn losses(&self) -> Option<watch::Receiver<u64>> {
        self.parent.losses()
    }
}
