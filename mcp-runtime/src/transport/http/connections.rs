//! The open connections: how many there are, which one has been idle the longest (to close
//! when room is needed), and ordering them all to close at shutdown.
//!
//! Room is made rather than new connections refused, because an attacker holding idle
//! connections must not lock out a client that arrives after them: the one idle the longest
//! goes, and the newcomer is served. Only when every connection carries a request is a new one
//! refused.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use super::activity::{Activity, Order, Timeouts};

#[derive(Debug)]
pub(super) struct Connections {
    capacity: usize,
    timeouts: Timeouts,
    table: Mutex<Table>,
    /// Notified whenever a connection closes.
    closed: Notify,
}

#[derive(Debug, Default)]
struct Table {
    next_id: u64,
    open: HashMap<u64, Arc<Activity>>,
    /// Shutting down: every connection, also one registered from now on, closes when idle.
    closing: bool,
}

impl Connections {
    pub fn new(capacity: usize, timeouts: Timeouts) -> Arc<Self> {
        Arc::new(Self {
            // Zero would refuse every connection; one is the least that serves.
            capacity: capacity.max(1),
            timeouts,
            table: Mutex::default(),
            closed: Notify::new(),
        })
    }

    /// Registers a connection just accepted. At capacity, first orders the connection idle the
    /// longest to close; `None` when every connection has a request in progress, and the new
    /// one is to be refused.
    pub fn admit(self: &Arc<Self>) -> Option<Registration> {
        let mut table = self.lock();
        if table.open.len() >= self.capacity && !make_room(&table) {
            return None;
        }
        let activity = Arc::new(Activity::new(self.timeouts, Instant::now()));
        if table.closing {
            activity.order(Order::CloseWhenIdle);
        }
        let id = table.next_id;
        table.next_id += 1;
        table.open.insert(id, activity.clone());
        Some(Registration {
            id,
            activity,
            connections: self.clone(),
        })
    }

    /// Orders the connection idle the longest to close and waits (up to `limit`) until a
    /// connection has closed: for when the process has run out of file descriptors. False,
    /// at once, when every connection has a request in progress.
    pub async fn make_room_within(&self, limit: Duration) -> bool {
        let closed = self.closed.notified();
        tokio::pin!(closed);
        // Registered before the order, so a close in between is not missed.
        closed.as_mut().enable();
        if !make_room(&self.lock()) {
            return false;
        }
        let _ = tokio::time::timeout(limit, closed).await;
        true
    }

    /// Shutting down: every connection closes as soon as it has nothing in progress.
    pub fn close_when_idle(&self) {
        let mut table = self.lock();
        table.closing = true;
        for activity in table.open.values() {
            activity.order(Order::CloseWhenIdle);
        }
    }

    /// Completes once every registered connection has closed.
    pub async fn all_closed(&self) {
        loop {
            let closed = self.closed.notified();
            tokio::pin!(closed);
            closed.as_mut().enable();
            if self.lock().open.is_empty() {
                return;
            }
            closed.await;
        }
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        // Every critical section is a lookup, an insert or a removal.
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Orders the connection idle the longest to close; false if none is idle.
fn make_room(table: &Table) -> bool {
    let idlest = table
        .open
        .values()
        .filter_map(|activity| Some((activity.idle_since()?, activity)))
        .min_by_key(|(since, _)| *since);
    match idlest {
        Some((_, activity)) => {
            activity.order(Order::MakeRoom);
            true
        }
        None => false,
    }
}

/// A connection's place in the table, given up when the connection closes.
#[derive(Debug)]
pub(super) struct Registration {
    id: u64,
    activity: Arc<Activity>,
    connections: Arc<Connections>,
}

impl Registration {
    pub fn activity(&self) -> &Arc<Activity> {
        &self.activity
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.connections.lock().open.remove(&self.id);
        self.connections.closed.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::transport::http::activity::TEST_TIMEOUTS as TIMEOUTS;

    #[tokio::test(start_paused = true)]
    async fn at_capacity_the_longest_idle_makes_room_and_busy_ones_never_do() {
        let connections = Connections::new(2, TIMEOUTS);
        let oldest = connections.admit().expect("room");
        tokio::time::advance(Duration::from_secs(1)).await;
        let newer = connections.admit().expect("room");
        let third = connections.admit().expect("room made");
        assert!(oldest.activity().idle_since().is_none(), "told to close");
        assert!(newer.activity().idle_since().is_some());

        // With the others busy, a newcomer is refused.
        let _busy = [newer.activity(), third.activity()].map(|a| a.request_started());
        assert!(connections.admit().is_none());
        drop(oldest);
        assert!(connections.admit().is_none(), "still two busy ones");
    }
}
