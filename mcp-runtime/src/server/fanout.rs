//! Delivery of the bus's changes to the listeners connected to this instance: one task per
//! server reads the bus and hands each change to every listener that wants it, through a
//! bounded queue of its own. A listener whose queue is full has fallen behind: it is ended
//! (its queue closes) rather than waited for, so one slow client never delays the others.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use tokio::sync::{broadcast, mpsc, watch};

use crate::push::{Change, NotificationBus, PushStats};

use super::connection::Connection;

/// How many changes may wait for one listener before it counts as fallen behind and is ended.
pub const LISTENER_QUEUE: usize = 64;

/// Which list changes a listener hears about.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Lists {
    pub tools: bool,
    pub prompts: bool,
    pub resources: bool,
}

impl Lists {
    /// A change of each list it covers.
    pub fn all(&self) -> Vec<Change> {
        [
            (self.tools, Change::ToolsListChanged),
            (self.prompts, Change::PromptsListChanged),
            (self.resources, Change::ResourcesListChanged),
        ]
        .into_iter()
        .filter_map(|(on, change)| on.then_some(change))
        .collect()
    }

    fn wants(&self, change: &Change) -> bool {
        match change {
            Change::ToolsListChanged => self.tools,
            Change::PromptsListChanged => self.prompts,
            Change::ResourcesListChanged => self.resources,
            Change::ResourceUpdated { .. } | Change::TaskStatus { .. } | Change::Task(_) => false,
        }
    }
}

/// What a 2025-11-25 session may have missed once changes meant for it were lost: every list
/// it hears about, and every resource it is subscribed to. Told all of them, its client reads
/// again what it cares about.
pub(crate) fn may_have_changed(lists: Lists, connection: &Connection) -> Vec<Change> {
    let updated = connection
        .subscriptions()
        .into_iter()
        .map(|uri| Change::ResourceUpdated { uri });
    lists.all().into_iter().chain(updated).collect()
}

/// What one listener wants to hear.
#[derive(Debug)]
pub(crate) enum Interest {
    /// A 2026-07-28 listen: the list changes and the URIs it asked for (and was granted),
    /// and the tasks it asked for (granted or not: the listen reads each task as its caller
    /// before it knows, and must not miss a change made meanwhile; it drops the others').
    Listen {
        lists: Lists,
        uris: HashSet<String>,
        tasks: HashSet<String>,
    },
    /// A 2025-11-25 session: the list changes the server advertises, and updates of whatever
    /// the session is subscribed to at the time of the change.
    Session {
        lists: Lists,
        connection: Weak<Connection>,
    },
}

impl Interest {
    fn wants(&self, change: &Change) -> bool {
        match (self, change) {
            (Self::Listen { uris, .. }, Change::ResourceUpdated { uri }) => uris.contains(uri),
            (Self::Listen { tasks, .. }, Change::TaskStatus { task_id }) => tasks.contains(task_id),
            (Self::Listen { tasks, .. }, Change::Task(task)) => tasks.contains(task.task_id()),
            // The tasks extension is 2026-07-28 only.
            (Self::Session { .. }, Change::TaskStatus { .. } | Change::Task(_)) => false,
            (Self::Session { connection, .. }, Change::ResourceUpdated { uri }) => {
                connection.upgrade().is_some_and(|c| c.is_subscribed(uri))
            }
            (Self::Listen { lists, .. } | Self::Session { lists, .. }, change) => {
                lists.wants(change)
            }
        }
    }
}

struct Entry {
    interest: Interest,
    queue: mpsc::Sender<Change>,
}

/// The listeners of one server.
pub(crate) struct Fanout {
    bus: Arc<dyn NotificationBus>,
    listeners: Mutex<Listeners>,
    /// Whether the task reading the bus runs (started with the first listener).
    reading: AtomicBool,
    fallen_behind: AtomicU64,
}

#[derive(Default)]
struct Listeners {
    next: u64,
    by_id: HashMap<u64, Entry>,
}

impl Fanout {
    pub fn new(bus: Arc<dyn NotificationBus>) -> Self {
        Self {
            bus,
            listeners: Mutex::default(),
            reading: AtomicBool::new(false),
            fallen_behind: AtomicU64::new(0),
        }
    }

    pub fn bus(&self) -> &Arc<dyn NotificationBus> {
        &self.bus
    }

    /// A listener that hears every change published from now on that `interest` wants, until
    /// it is dropped or falls behind. Must be called inside a Tokio runtime.
    pub fn listen(self: &Arc<Self>, interest: Interest) -> Listener {
        // Subscribed before the listener exists, so nothing published after this call returns
        // is missed.
        if !self.reading.swap(true, Ordering::AcqRel) {
            tokio::spawn(read_bus(
                Arc::downgrade(self),
                self.bus.subscribe(),
                self.bus.losses(),
            ));
        }
        let (queue, changes) = mpsc::channel(LISTENER_QUEUE);
        let mut listeners = self.lock();
        let id = listeners.next;
        listeners.next += 1;
        listeners.by_id.insert(id, Entry { interest, queue });
        Listener {
            id,
            changes,
            fanout: Arc::downgrade(self),
        }
    }

    pub fn stats(&self) -> PushStats {
        PushStats {
            listeners: self.lock().by_id.len(),
            fallen_behind: self.fallen_behind.load(Ordering::Relaxed),
        }
    }

    /// Hands `change` to this instance's listeners that want it (the bus's changes come this
    /// way; so do changes to this instance alone).
    pub fn deliver(&self, change: &Change) {
        let mut ended = 0u64;
        self.lock().by_id.retain(|id, entry| {
            if !entry.interest.wants(change) {
                return true;
            }
            match entry.queue.try_send(change.clone()) {
                Ok(()) => true,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    tracing::warn!(
                        listener = id,
                        queue = LISTENER_QUEUE,
                        "ended a listener that fell behind"
                    );
                    ended += 1;
                    false
                }
                Err(mpsc::error::TrySendError::Closed(_)) => false,
            }
        });
        if ended > 0 {
            self.fallen_behind.fetch_add(ended, Ordering::Relaxed);
        }
    }

    /// Changes were lost before this instance read them: every listener may have missed one,
    /// so every listener is ended, and its client starts again from a fresh listing.
    fn end_all(&self, why: Lost) {
        let mut listeners = self.lock();
        let count = listeners.by_id.len() as u64;
        listeners.by_id.clear();
        drop(listeners);
        match why {
            Lost::FellBehind(missed) => tracing::warn!(
                missed,
                listeners = count,
                "this instance fell behind its notification bus; ended every listener"
            ),
            Lost::ByTheBus => tracing::warn!(
                listeners = count,
                "the notification bus may have lost changes; ended every listener"
            ),
        }
        self.fallen_behind.fetch_add(count, Ordering::Relaxed);
    }

    fn remove(&self, id: u64) {
        self.lock().by_id.remove(&id);
    }

    fn lock(&self) -> MutexGuard<'_, Listeners> {
        // Every critical section is one insert, removal or pass of `try_send`s.
        self.listeners.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Why every listener is ended.
enum Lost {
    /// This instance read the bus too slowly and lost that many changes.
    FellBehind(u64),
    /// The bus said it may have lost some ([`NotificationBus::losses`]).
    ByTheBus,
}

/// The one task of a server that reads its bus. It holds the fanout weakly: once the server is
/// gone it stops at the next change, or when the bus closes.
async fn read_bus(
    fanout: Weak<Fanout>,
    mut changes: broadcast::Receiver<Change>,
    mut losses: Option<watch::Receiver<u64>>,
) {
    loop {
        let received = tokio::select! {
            // Losses first: a change read after them is one the new listeners may hear.
            biased;
            lost = lost(&mut losses) => {
                match fanout.upgrade() {
                    Some(fanout) if lost => fanout.end_all(Lost::ByTheBus),
                    Some(_) => losses = None,
                    None => return,
                }
                continue;
            }
            received = changes.recv() => received,
        };
        let Some(fanout) = fanout.upgrade() else {
            return;
        };
        match received {
            Ok(change) => fanout.deliver(&change),
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                fanout.end_all(Lost::FellBehind(missed));
            }
            // Nothing more will come; the listeners stay, hearing nothing, rather than being
            // ended into re-listening on a bus that is gone.
            Err(broadcast::error::RecvError::Closed) => {
                tracing::error!("the notification bus closed; no more changes are delivered");
                return;
            }
        }
    }
}

/// Waits for the bus's next loss: `true` when it reports one, `false` once it never will
/// again (the bus is gone or has no such report); never returns without a report otherwise.
async fn lost(losses: &mut Option<watch::Receiver<u64>>) -> bool {
    match losses {
        Some(losses) => losses.changed().await.is_ok(),
        None => std::future::pending().await,
    }
}

/// One listener's changes. Dropping it removes the listener.
pub(crate) struct Listener {
    id: u64,
    changes: mpsc::Receiver<Change>,
    fanout: Weak<Fanout>,
}

impl Listener {
    /// The next change; `None` once the listener is ended (it fell behind, or the server is
    /// gone).
    pub async fn next(&mut self) -> Option<Change> {
        self.changes.recv().await
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Some(fanout) = self.fanout.upgrade() {
            fanout.remove(self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::push::LocalBus;

    fn everything() -> Interest {
        let lists = Lists {
            tools: true,
            prompts: true,
            resources: true,
        };
        Interest::Listen {
            lists,
            uris: HashSet::from(["x://a".to_owned()]),
            tasks: HashSet::from(["t-a".to_owned()]),
        }
    }

    #[tokio::test]
    async fn a_listener_that_falls_behind_is_ended_and_the_others_keep_hearing() {
        let fanout = Arc::new(Fanout::new(Arc::new(LocalBus::new())));
        let mut slow = fanout.listen(everything());
        let mut fast = fanout.listen(everything());
        for _ in 0..=LISTENER_QUEUE {
            fanout.bus().publish(Change::ToolsListChanged);
            assert_eq!(fast.next().await, Some(Change::ToolsListChanged));
        }
        let mut heard = 0;
        while slow.next().await.is_some() {
            heard += 1;
        }
        assert_eq!(
            heard, LISTENER_QUEUE,
            "the slow one keeps what was queued, then ends"
        );
        assert_eq!(fanout.stats().fallen_behind, 1);
        assert_eq!(fanout.stats().listeners, 1);
        fanout.bus().publish(Change::PromptsListChanged);
        assert_eq!(fast.next().await, Some(Change::PromptsListChanged));
    }

    #[tokio::test]
    async fn only_what_a_listener_asked_for_reaches_it_and_dropping_it_removes_it() {
        let fanout = Arc::new(Fanout::new(Arc::new(LocalBus::new())));
        let mut listener = fanout.listen(Interest::Listen {
            lists: Lists {
                tools: true,
                ..Lists::default()
            },
            uris: HashSet::from(["x://a".to_owned()]),
            tasks: HashSet::from(["t-a".to_owned()]),
        });
        let bus = fanout.bus().clone();
        bus.publish(Change::PromptsListChanged);
        bus.resource_updated_for_test("x://b");
        bus.resource_updated_for_test("x://a");
        let task = |id: &str| Change::TaskStatus {
            task_id: id.to_owned(),
        };
        bus.publish(task("t-b"));
        bus.publish(task("t-a"));
        bus.publish(Change::ToolsListChanged);
        let a = Change::ResourceUpdated {
            uri: "x://a".into(),
        };
        assert_eq!(listener.next().await, Some(a));
        assert_eq!(listener.next().await, Some(task("t-a")));
        assert_eq!(listener.next().await, Some(Change::ToolsListChanged));
        assert_eq!(fanout.stats().listeners, 1);
        drop(listener);
        assert_eq!(fanout.stats().listeners, 0);
    }

    #[tokio::test]
    async fn an_instance_that_falls_behind_its_bus_ends_every_listener() {
        let fanout = Arc::new(Fanout::new(Arc::new(LocalBus::new())));
        let mut listener = fanout.listen(everything());
        // Published before the reading task first runs: more than the bus keeps.
        for _ in 0..crate::push::LOCAL_BUS_CAPACITY + 1 {
            fanout.bus().publish(Change::ToolsListChanged);
        }
        assert_eq!(listener.next().await, None, "ended without a change");
        assert_eq!(fanout.stats().fallen_behind, 1);
        assert_eq!(fanout.stats().listeners, 0);
    }

    /// A bus that reports losses when told to.
    struct Lossy {
        bus: LocalBus,
        losses: watch::Sender<u64>,
    }

    impl NotificationBus for Lossy {
        fn publish(&self, change: Change) {
            self.bus.publish(change);
        }

        fn subscribe(&self) -> broadcast::Receiver<Change> {
            self.bus.subscribe()
        }

        fn losses(&self) -> Option<watch::Receiver<u64>> {
            Some(self.losses.subscribe())
        }
    }

    #[tokio::test]
    async fn a_loss_the_bus_reports_ends_every_listener_and_later_ones_hear_on() {
        let losses = watch::channel(0).0;
        let bus = Lossy {
            bus: LocalBus::new(),
            losses: losses.clone(),
        };
        let fanout = Arc::new(Fanout::new(Arc::new(bus)));
        let mut first = fanout.listen(everything());
        let mut second = fanout.listen(everything());
        fanout.bus().publish(Change::ToolsListChanged);
        assert_eq!(first.next().await, Some(Change::ToolsListChanged));

        losses.send_modify(|n| *n += 1);
        assert_eq!(first.next().await, None);
        assert_eq!(second.next().await, Some(Change::ToolsListChanged));
        assert_eq!(second.next().await, None);
        assert_eq!(fanout.stats().fallen_behind, 2);

        let mut later = fanout.listen(everything());
        fanout.bus().publish(Change::PromptsListChanged);
        assert_eq!(later.next().await, Some(Change::PromptsListChanged));
        assert_eq!(fanout.stats().listeners, 1);
    }

    trait Updated {
        fn resource_updated_for_test(&self, uri: &str);
    }

    impl Updated for Arc<dyn NotificationBus> {
        fn resource_updated_for_test(&self, uri: &str) {
            self.publish(Change::ResourceUpdated { uri: uri.into() });
        }
    }
}
