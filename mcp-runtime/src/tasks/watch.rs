//! Waking a task's runner, in the process where it runs, when answers or a cancel arrive.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;

/// The watches on one task: a number for each, to remove it by, and what wakes it.
type Watches = Vec<(u64, Arc<Notify>)>;

/// The runners of this process waiting on their tasks, by task id. A store wakes them when a
/// `tasks/update` or `tasks/cancel` for their task arrives, here or (for a store shared by a
/// fleet) through another instance.
///
/// For implementors of [`TaskStore`](super::TaskStore): keep one, hand out its
/// [`TaskWatch`]es from [`TaskStore::watch`](super::TaskStore::watch), and call
/// [`wake`](Self::wake) whenever a task gets answers or a cancel request.
///
/// ```
/// use mcp::tasks::Watchers;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let watchers = Watchers::new();
/// let watch = watchers.watch("task-1");
/// // A tasks/update for task-1 arrived (here or through another instance).
/// watchers.wake("task-1");
/// watch.changed().await;
/// # }
/// ```
#[derive(Default)]
pub struct Watchers {
    by_task: Mutex<HashMap<String, Watches>>,
    next_token: AtomicU64,
}

impl Watchers {
    /// No watches yet.
    pub fn new() -> Arc<Self> {
        Arc::default()
    }

    fn by_task(&self) -> MutexGuard<'_, HashMap<String, Watches>> {
        // Every change below is one insert or remove: a panic cannot leave it half-made.
        self.by_task.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A watch on task `id`, woken by every later [`wake`](Self::wake) of that task.
    pub fn watch(self: &Arc<Self>, id: &str) -> TaskWatch {
        let token = self.next_token.fetch_add(1, Ordering::Relaxed);
        let notify = Arc::new(Notify::new());
        self.by_task()
            .entry(id.to_owned())
            .or_default()
            .push((token, notify.clone()));
        TaskWatch {
            watchers: self.clone(),
            task_id: id.to_owned(),
            token,
            notify,
        }
    }

    /// Wakes every watch on task `id`.
    pub fn wake(&self, id: &str) {
        if let Some(watches) = self.by_task().get(id) {
            for (_, notify) in watches {
                notify.notify_one();
            }
        }
    }

    /// Wakes every watch: a store that may have missed wake-ups (its link to the other
    /// instances was down) calls this, and each runner looks at its task again.
    pub fn wake_all(&self) {
        for watches in self.by_task().values() {
            for (_, notify) in watches {
                notify.notify_one();
            }
        }
    }

    /// How many tasks are watched.
    pub fn watched_tasks(&self) -> usize {
        self.by_task().len()
    }

    fn unwatch(&self, id: &str, token: u64) {
        let mut by_task = self.by_task();
        if let Some(watches) = by_task.get_mut(id) {
            watches.retain(|(t, _)| *t != token);
            if watches.is_empty() {
                by_task.remove(id);
            }
        }
    }
}

impl fmt::Debug for Watchers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Watchers")
            .field("watched_tasks", &self.watched_tasks())
            .finish()
    }
}

/// A runner's watch on its task: [`changed`](Self::changed) returns once answers or a cancel
/// request may have arrived. Dropping it stops the watch.
///
/// Make the watch before looking at the task
/// ([`TaskStore::take_inbox`](super::TaskStore::take_inbox)): what arrives after it is made
/// is never missed, even between the look and the wait. A wake may find nothing new (wakes
/// coalesce, and a store that lost its link to the fleet wakes everyone once it is back), so
/// look again after each one.
pub struct TaskWatch {
    watchers: Arc<Watchers>,
    task_id: String,
    token: u64,
    notify: Arc<Notify>,
}

impl TaskWatch {
    /// Returns at the first wake since the watch was made or since the last call returned.
    pub async fn changed(&self) {
        self.notify.notified().await;
    }

    /// The task watched.
    pub fn task_id(&self) -> &str {
        &self.task_id
    }
}

impl Drop for TaskWatch {
    fn drop(&mut self) {
        self.watchers.unwatch(&self.task_id, self.token);
    }
}

impl fmt::Debug for TaskWatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskWatch")
            .field("task_id", &self.task_id)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    async fn woken(watch: &TaskWatch) -> bool {
        tokio::time::timeout(Duration::from_millis(50), watch.changed())
            .await
            .is_ok()
    }

    #[tokio::test]
    async fn a_wake_before_the_wait_is_kept_and_wakes_coalesce() {
        let watchers = Watchers::new();
        let watch = watchers.watch("a");
        watchers.wake("a");
        watchers.wake("a");
        assert!(woken(&watch).await);
        assert!(!woken(&watch).await, "two wakes before a wait are one");
    }

    #[tokio::test]
    async fn a_wake_reaches_every_watch_of_its_task_and_no_other() {
        let watchers = Watchers::new();
        let (a1, a2, b) = (
            watchers.watch("a"),
            watchers.watch("a"),
            watchers.watch("b"),
        );
        watchers.wake("a");
        assert!(woken(&a1).await && woken(&a2).await);
        assert!(!woken(&b).await);
        watchers.wake_all();
        assert!(woken(&a1).await && woken(&a2).await && woken(&b).await);
    }

    #[tokio::test]
    async fn a_dropped_watch_is_forgotten() {
        let watchers = Watchers::new();
        let a1 = watchers.watch("a");
        let a2 = watchers.watch("a");
        assert_eq!(watchers.watched_tasks(), 1);
        drop(a1);
        watchers.wake("a");
        assert!(woken(&a2).await);
        drop(a2);
        assert_eq!(watchers.watched_tasks(), 0);
    }
}
