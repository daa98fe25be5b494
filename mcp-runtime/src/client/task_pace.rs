//! How often the client asks after a task, and until when: the task's `pollIntervalMs` (with a
//! default and a floor), stretched gently while polls show nothing new, and its `createdAt +
//! ttlMs` as a deadline on this machine's monotonic clock.

use std::time::Duration;

use tokio::time::Instant;

use crate::protocol::{Task, TaskStatus};
use crate::tasks::Timestamp;

/// The wait between polls of a task that suggests no `pollIntervalMs`.
///
/// A task is polled at its own interval (this one when it names none, never closer than
/// [`MIN_POLL_INTERVAL`]) while things move; after each poll that shows nothing new (the same
/// status, no request to answer) the wait grows by half, up to 5 times the interval and at most
/// [`MAX_POLL_BACKOFF`], so a task that works for an hour costs its server few requests and one
/// that is quick is not waited on long. A new status starts over at the interval.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// The shortest wait between polls of a task, whatever it suggests: a server that says `0` is
/// not asked in a tight loop.
pub const MIN_POLL_INTERVAL: Duration = Duration::from_millis(50);

/// The longest the back-off stretches the wait between polls to, unless the task itself
/// suggests a longer interval.
pub const MAX_POLL_BACKOFF: Duration = Duration::from_secs(5);

/// The back-off stretches the wait to at most this many times the task's interval.
const BACKOFF_LIMIT_IN_INTERVALS: u32 = 5;

/// One task followed by polling: the waits between polls, the deadline, the status seen last.
#[derive(Debug, Default)]
pub(crate) struct TaskWatch {
    pace: Pace,
    deadline: Deadline,
    last: Option<TaskStatus>,
}

impl TaskWatch {
    /// Starts from `seed`, the task as the call that made it showed it, if any. A task made
    /// working has nothing to show yet, so the first poll waits; any other status is worth a
    /// look now.
    pub async fn start(seed: Option<&Task>) -> Self {
        let mut watch = Self::default();
        if let Some(seed) = seed {
            watch.observe(seed);
            if seed.status == TaskStatus::Working {
                watch.wait(seed, true).await;
            }
        }
        watch
    }

    /// Takes in what a poll showed of `task`; whether its status changed.
    pub fn observe(&mut self, task: &Task) -> bool {
        self.deadline.observe(task);
        self.last.replace(task.status) != Some(task.status)
    }

    /// Whether the task outlived its ttl.
    pub fn expired(&self) -> bool {
        self.deadline.passed()
    }

    /// Waits before the next poll of `task`, at its interval after a poll that showed
    /// something new (`changed`), longer after one that did not; never past the deadline.
    pub async fn wait(&mut self, task: &Task, changed: bool) {
        let wait = self.pace.next(task.poll_interval_ms, changed);
        self.deadline.sleep(wait).await;
    }
}

/// The waits between the polls of one task.
#[derive(Debug, Default)]
struct Pace {
    /// Polls in a row that showed nothing new.
    unchanged: u32,
}

impl Pace {
    /// The wait before the next poll of a task that suggests `poll_interval_ms`, after a poll
    /// that showed something new (a status, a request to answer) or not (see
    /// [`DEFAULT_POLL_INTERVAL`]).
    pub fn next(&mut self, poll_interval_ms: Option<u64>, changed: bool) -> Duration {
        self.unchanged = if changed {
            0
        } else {
            self.unchanged.saturating_add(1)
        };
        let interval = poll_interval_ms
            .map_or(DEFAULT_POLL_INTERVAL, Duration::from_millis)
            .max(MIN_POLL_INTERVAL);
        let limit = interval
            .saturating_mul(BACKOFF_LIMIT_IN_INTERVALS)
            .min(MAX_POLL_BACKOFF)
            .max(interval);
        let mut wait = interval;
        for _ in 0..self.unchanged {
            if wait >= limit {
                break;
            }
            wait = wait.saturating_add(wait / 2);
        }
        wait.min(limit)
    }
}

/// When a task is no longer worth polling: `createdAt + ttlMs`, if the task has a ttl.
#[derive(Debug, Default)]
struct Deadline {
    /// The `createdAt` and `ttlMs` `at` was computed from (a ttl may change over a task's life).
    from: Option<(String, Option<u64>)>,
    at: Option<Instant>,
}

impl Deadline {
    /// Takes in what `task` now says of its life.
    pub fn observe(&mut self, task: &Task) {
        let unchanged = self
            .from
            .as_ref()
            .is_some_and(|(created, ttl)| *created == task.created_at && *ttl == task.ttl_ms);
        if unchanged {
            return;
        }
        self.at = task.ttl_ms.and_then(|ttl| {
            let left = match Timestamp::parse(&task.created_at) {
                Some(created) => created
                    .unix_millis()
                    .saturating_add(ttl)
                    .saturating_sub(Timestamp::now().unix_millis()),
                // A creation time this client cannot read: the ttl counts from now.
                None => ttl,
            };
            // The wall clock is read once and the rest counted on the monotonic one, so a clock
            // set forward or back while the client waits moves nothing. Too far off to count
            // to is no deadline.
            Instant::now().checked_add(Duration::from_millis(left))
        });
        self.from = Some((task.created_at.clone(), task.ttl_ms));
    }

    /// Whether the deadline has passed.
    pub fn passed(&self) -> bool {
        self.at.is_some_and(|at| Instant::now() >= at)
    }

    /// Waits `wait`, or until the deadline if that comes first.
    pub async fn sleep(&self, wait: Duration) {
        let until = Instant::now().checked_add(wait);
        match (until, self.at) {
            (Some(until), Some(at)) => tokio::time::sleep_until(until.min(at)).await,
            (None, Some(at)) => tokio::time::sleep_until(at).await,
            (_, None) => tokio::time::sleep(wait).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::TaskStatus;

    fn waits(poll_interval_ms: Option<u64>, changes: &[bool]) -> Vec<u128> {
        let mut pace = Pace::default();
        changes
            .iter()
            .map(|&changed| pace.next(poll_interval_ms, changed).as_millis())
            .collect()
    }

    #[test]
    fn the_wait_is_the_tasks_interval_stretched_while_nothing_changes() {
        let quiet = [true, false, false, false, false, false, true, false];
        assert_eq!(
            waits(Some(1000), &quiet),
            [1000, 1500, 2250, 3375, 5000, 5000, 1000, 1500]
        );
        // At most five intervals...
        assert_eq!(
            waits(Some(100), &quiet),
            [100, 150, 225, 337, 500, 500, 100, 150]
        );
        // ...and at most 5 s, unless the server asks for longer itself.
        assert_eq!(waits(Some(2000), &quiet[..4]), [2000, 3000, 4500, 5000]);
        assert_eq!(waits(Some(60_000), &quiet[..3]), [60_000; 3]);
    }

    #[test]
    fn no_interval_is_one_second_and_none_is_shorter_than_the_floor() {
        assert_eq!(waits(None, &[true, false]), [1000, 1500]);
        assert_eq!(waits(Some(0), &[true, false, false]), [50, 75, 112]);
        assert_eq!(waits(Some(u64::MAX), &[true, false]).len(), 2);
    }

    fn task(created_at: &str, ttl_ms: Option<u64>) -> Task {
        Task {
            task_id: "t".into(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: created_at.into(),
            last_updated_at: created_at.into(),
            ttl_ms,
            poll_interval_ms: None,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn the_deadline_is_created_at_plus_ttl_and_moves_with_the_ttl() {
        let now = Timestamp::now().to_string();
        let mut deadline = Deadline::default();
        deadline.observe(&task(&now, None));
        assert!(!deadline.passed());
        deadline.observe(&task(&now, Some(60_000)));
        tokio::time::sleep(Duration::from_secs(59)).await;
        assert!(!deadline.passed());
        // A later poll saying the same changes nothing; one with a longer ttl moves it.
        deadline.observe(&task(&now, Some(60_000)));
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert!(deadline.passed());
        deadline.observe(&task(&now, Some(120_000)));
        assert!(!deadline.passed());
        // A long wait ends at the deadline.
        let before = Instant::now();
        deadline.sleep(Duration::from_secs(3600)).await;
        assert!(deadline.passed());
        assert!(before.elapsed() <= Duration::from_secs(120));
    }

    #[tokio::test(start_paused = true)]
    async fn a_task_made_long_ago_is_past_its_deadline_and_an_unreadable_time_counts_from_now() {
        let mut deadline = Deadline::default();
        deadline.observe(&task("2020-01-01T00:00:00Z", Some(60_000)));
        assert!(deadline.passed());
        let mut deadline = Deadline::default();
        deadline.observe(&task("yesterday", Some(1000)));
        assert!(!deadline.passed());
        tokio::time::sleep(Duration::from_millis(1000)).await;
        assert!(deadline.passed());
    }
}
