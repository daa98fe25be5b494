//! How much a task store holds at most.

use std::time::Duration;

/// The bounds of a task store: how many tasks it holds, and for how long a finished one.
///
/// A task counts from its creation until it expires, `ttl` after it finished: running and
/// finished tasks alike take room, since both are kept. With the ttl capped too, what a store
/// holds is bounded however its clients behave.
///
/// ```
/// use std::time::Duration;
/// use mcp::tasks::{MemoryTaskStore, TaskLimits};
///
/// let mut limits = TaskLimits::default();
/// limits.per_owner = 20;
/// limits.max_ttl = Duration::from_secs(600);
/// let store = MemoryTaskStore::with_limits(limits);
/// # let _ = store;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskLimits {
    /// Tasks one owner may hold ([`DEFAULT_PER_OWNER`] by default); one more is
    /// [`TaskStoreError::OwnerLimit`](super::TaskStoreError::OwnerLimit). The empty owner
    /// (every unauthenticated caller of a server without auth) is bounded by
    /// [`total`](Self::total) only: one client could not be told apart from the others.
    pub per_owner: usize,
    /// Tasks the store may hold ([`DEFAULT_TOTAL`] by default); one more is
    /// [`TaskStoreError::StoreFull`](super::TaskStoreError::StoreFull).
    pub total: usize,
    /// The longest a finished task is kept ([`DEFAULT_MAX_TTL`] by default): a longer ttl
    /// asked at creation is cut to this, and the record says so.
    pub max_ttl: Duration,
}

/// [`TaskLimits::per_owner`] by default.
pub const DEFAULT_PER_OWNER: usize = 1_000;
/// [`TaskLimits::total`] by default.
pub const DEFAULT_TOTAL: usize = 100_000;
/// [`TaskLimits::max_ttl`] by default: one hour.
pub const DEFAULT_MAX_TTL: Duration = Duration::from_secs(3600);

impl Default for TaskLimits {
    fn default() -> Self {
        Self {
            per_owner: DEFAULT_PER_OWNER,
            total: DEFAULT_TOTAL,
            max_ttl: DEFAULT_MAX_TTL,
        }
    }
}

impl TaskLimits {
    /// The ttl a task asked to keep `ttl` gets: at most [`max_ttl`](Self::max_ttl), to the
    /// millisecond.
    pub(crate) fn ttl(&self, ttl: Duration) -> Duration {
        Duration::from_millis(millis(ttl.min(self.max_ttl)))
    }
}

/// `duration` in whole milliseconds, saturating.
pub(crate) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ttl_is_capped_and_cut_to_the_millisecond() {
        let limits = TaskLimits::default();
        assert_eq!(
            limits.ttl(Duration::from_secs(7200)),
            Duration::from_secs(3600)
        );
        assert_eq!(
            limits.ttl(Duration::from_micros(1_500)),
            Duration::from_millis(1)
        );
        assert_eq!(limits.ttl(Duration::ZERO), Duration::ZERO);
    }
}
