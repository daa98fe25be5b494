//! Making a [`RedisTaskStore`]: its settings, and what refuses them.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::connection::Commands;
use super::health::Health;
use super::{Inner, RedisTaskStore, wakes};
use crate::tasks::{TaskLimits, Watchers};

/// The key prefix of a [`RedisTaskStore`] by default.
pub const REDIS_TASKS_PREFIX: &str = "mcp:tasks:";
/// How long a runner holds its tasks without renewing, by default: see
/// [`RedisTaskStoreBuilder::lease`].
pub const REDIS_TASKS_LEASE: Duration = Duration::from_secs(30);
/// How long one operation may take, by default: see [`RedisTaskStoreBuilder::timeout`].
pub const REDIS_TASKS_TIMEOUT: Duration = Duration::from_secs(3);

/// The shortest lease a store takes: a shorter one would expire between two renewals.
const MIN_LEASE: Duration = Duration::from_millis(100);

/// Why a [`RedisTaskStore`] could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RedisTaskStoreError {
    /// The URL is not a Redis URL (`redis://[user:password@]host[:port][/db]`).
    #[error("not a Redis URL: {0}")]
    InvalidUrl(String),
    /// The key prefix is empty: the store's keys would mix with everything else in the
    /// database.
    #[error("the Redis key prefix is empty")]
    EmptyPrefix,
    /// The store was made outside a Tokio runtime, which its subscription needs.
    #[error("a RedisTaskStore must be made inside a Tokio runtime")]
    NoRuntime,
}

/// Settings of a [`RedisTaskStore`], from [`RedisTaskStore::builder`].
#[derive(Clone)]
pub struct RedisTaskStoreBuilder {
    url: String,
    prefix: String,
    limits: TaskLimits,
    lease: Duration,
    timeout: Duration,
}

impl RedisTaskStoreBuilder {
    pub(super) fn new(url: String) -> Self {
        Self {
            url,
            prefix: REDIS_TASKS_PREFIX.to_owned(),
            limits: TaskLimits::default(),
            lease: REDIS_TASKS_LEASE,
            timeout: REDIS_TASKS_TIMEOUT,
        }
    }

    /// The prefix of every key and channel of the store ([`REDIS_TASKS_PREFIX`] by default).
    /// Instances of one application share it; give another application on the same Redis
    /// database its own, or its tasks count against the same [`TaskLimits`].
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How many tasks the store holds ([`TaskLimits::default`] by default), across the
    /// fleet: every instance should be given the same.
    pub fn limits(mut self, limits: TaskLimits) -> Self {
        self.limits = limits;
        self
    }

    /// How long a runner holds its tasks without renewing ([`REDIS_TASKS_LEASE`] by default;
    /// at least 100 ms). The longer, the longer the tasks of an instance that died stay
    /// `working` before a sweep fails them; the shorter, the more often runners renew.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(MIN_LEASE);
        self
    }

    /// How long one operation may take, connecting included ([`REDIS_TASKS_TIMEOUT`] by
    /// default): past it, the operation fails with
    /// [`TaskStoreError::Unavailable`](crate::tasks::TaskStoreError::Unavailable).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The store. Returns at once: it connects when first used. Fails if the URL is not a
    /// Redis URL, the prefix is empty, or it is called outside a Tokio runtime.
    pub fn build(self) -> Result<RedisTaskStore, RedisTaskStoreError> {
        if self.prefix.is_empty() {
            return Err(RedisTaskStoreError::EmptyPrefix);
        }
        let client = redis::Client::open(self.url.as_str())
            .map_err(|e| RedisTaskStoreError::InvalidUrl(e.to_string()))?;
        let runtime =
            tokio::runtime::Handle::try_current().map_err(|_| RedisTaskStoreError::NoRuntime)?;
        let runner = runner_id();
        let health = Arc::new(Health::new(self.prefix.clone()));
        let watchers = Watchers::new();
        let wakes = runtime.spawn(wakes::listen(wakes::Subscription {
            client: client.clone(),
            channel: format!("{}wake:{runner}", self.prefix),
            timeout: self.timeout,
            watchers: watchers.clone(),
            health: health.clone(),
        }));
        Ok(RedisTaskStore {
            inner: Arc::new(Inner {
                commands: Commands::new(client, self.timeout, health),
                prefix: self.prefix,
                runner,
                limits: self.limits,
                lease: self.lease,
                watchers,
                wakes: wakes.abort_handle(),
            }),
        })
    }
}

impl fmt::Debug for RedisTaskStoreBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Not the URL: it may hold a password.
        f.debug_struct("RedisTaskStoreBuilder")
            .field("prefix", &self.prefix)
            .field("limits", &self.limits)
            .field("lease", &self.lease)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// A name for this store handle that no other has: 128 random bits.
fn runner_id() -> String {
    let mut bytes = [0u8; 16];
    crate::state::fill_random(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_urls_and_prefixes_are_refused_and_a_store_needs_a_runtime() {
        assert!(matches!(
            RedisTaskStore::new("redis://127.0.0.1:1"),
            Err(RedisTaskStoreError::NoRuntime)
        ));
        let runtime = tokio::runtime::Builder::new_current_thread().build();
        let Ok(runtime) = runtime else {
            panic!("a runtime")
        };
        let _in_runtime = runtime.enter();
        assert!(matches!(
            RedisTaskStore::new("http://example.com"),
            Err(RedisTaskStoreError::InvalidUrl(_))
        ));
        assert!(matches!(
            RedisTaskStore::builder("redis://127.0.0.1:1")
                .prefix("")
                .build(),
            Err(RedisTaskStoreError::EmptyPrefix)
        ));
        let (a, b) = (
            RedisTaskStore::new("redis://127.0.0.1:1"),
            RedisTaskStore::new("redis://127.0.0.1:1"),
        );
        let (Ok(a), Ok(b)) = (a, b) else {
            panic!("two stores")
        };
        assert_ne!(a.runner_id(), b.runner_id());
        assert_eq!(a.runner_id().len(), 32);
        assert_eq!(a.clone().runner_id(), a.runner_id());
    }
}
