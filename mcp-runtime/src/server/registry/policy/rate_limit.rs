//! Calls per caller: a generic cell rate algorithm (one instant per caller: when its budget is
//! next whole), with a bounded table of callers.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, RandomState};
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use crate::identity::Identity;

/// How many callers one tool's limiter remembers. Beyond that the caller closest to a full
/// budget is forgotten first, so callers rotating identities cost memory no larger than this.
const MAX_CALLERS: usize = 10_000;

/// How often one caller may call a tool: `calls` per `per`, all at once or spread out, the
/// budget refilling evenly over `per`.
///
/// One caller is one authenticated principal (the token's issuer, subject and client); every
/// caller without a verified identity shares one budget, so opening new connections or
/// sessions buys no extra calls.
///
/// ```
/// use std::time::Duration;
/// use mcp::server::RateLimit;
///
/// assert_eq!(RateLimit::per_minute(10), RateLimit::new(10, Duration::from_secs(60)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    calls: u32,
    per: Duration,
}

impl RateLimit {
    /// `calls` per `per`; at least one call, and a period of at least a millisecond.
    pub fn new(calls: u32, per: Duration) -> Self {
        Self {
            calls: calls.max(1),
            per: per.max(Duration::from_millis(1)),
        }
    }

    /// `calls` per second.
    pub fn per_second(calls: u32) -> Self {
        Self::new(calls, Duration::from_secs(1))
    }

    /// `calls` per minute.
    pub fn per_minute(calls: u32) -> Self {
        Self::new(calls, Duration::from_secs(60))
    }

    /// `calls` per hour.
    pub fn per_hour(calls: u32) -> Self {
        Self::new(calls, Duration::from_secs(3600))
    }
}

/// One tool's budgets, per caller.
#[derive(Debug)]
pub(crate) struct RateLimiter {
    /// Time one call uses of the budget.
    interval: Duration,
    /// How far ahead of now a caller may have used its budget: the whole period but one call.
    tolerance: Duration,
    keys: RandomState,
    /// Per caller (a keyed hash of its principal): when its budget is whole again.
    whole_at: Mutex<HashMap<u64, Instant>>,
}

impl RateLimiter {
    pub fn new(limit: RateLimit) -> Self {
        let interval = limit.per / limit.calls;
        Self {
            interval,
            tolerance: limit.per.saturating_sub(interval),
            keys: RandomState::new(),
            whole_at: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one call from `caller`'s budget; `Some(wait)` when it has none left, with how
    /// long until it has one.
    pub fn refuse(&self, caller: Option<&Identity>) -> Option<Duration> {
        let key = self.key(caller);
        let now = Instant::now();
        let mut table = self
            .whole_at
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let whole_at = table.get(&key).copied().unwrap_or(now).max(now);
        let used = whole_at - now;
        if used > self.tolerance {
            return Some(used - self.tolerance);
        }
        if table.len() >= MAX_CALLERS && !table.contains_key(&key) {
            make_room(&mut table, now);
        }
        table.insert(key, whole_at + self.interval);
        None
    }

    fn key(&self, caller: Option<&Identity>) -> u64 {
        let principal = caller.map(|c| (&c.issuer, &c.subject, &c.client_id));
        let mut hasher = self.keys.build_hasher();
        principal.hash(&mut hasher);
        std::hash::Hasher::finish(&hasher)
    }
}

/// Forgets every caller whose budget is whole (as good as never seen); if none is, the one
/// closest to it.
fn make_room(table: &mut HashMap<u64, Instant>, now: Instant) {
    table.retain(|_, whole_at| *whole_at > now);
    if table.len() < MAX_CALLERS {
        return;
    }
    if let Some(soonest) = table.iter().min_by_key(|(_, at)| **at).map(|(k, _)| *k) {
        table.remove(&soonest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject(name: &str) -> Identity {
        Identity {
            subject: Some(name.to_owned()),
            ..Identity::default()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_caller_gets_its_budget_at_once_then_as_it_refills() {
        let limiter = RateLimiter::new(RateLimit::per_minute(3));
        let alice = subject("alice");
        for _ in 0..3 {
            assert_eq!(limiter.refuse(Some(&alice)), None);
        }
        assert_eq!(limiter.refuse(Some(&alice)), Some(Duration::from_secs(20)));
        // Another caller, and every anonymous caller together, have budgets of their own.
        assert_eq!(limiter.refuse(Some(&subject("bob"))), None);
        assert_eq!(limiter.refuse(None), None);
        tokio::time::advance(Duration::from_secs(20)).await;
        assert_eq!(limiter.refuse(Some(&alice)), None);
        assert!(limiter.refuse(Some(&alice)).is_some());
    }

    #[tokio::test(start_paused = true)]
    async fn rotating_identities_cannot_grow_the_table() {
        let limiter = RateLimiter::new(RateLimit::per_hour(1));
        for n in 0..MAX_CALLERS + 50 {
            assert_eq!(limiter.refuse(Some(&subject(&n.to_string()))), None);
        }
        let table = limiter.whole_at.lock().expect("unpoisoned");
        assert_eq!(table.len(), MAX_CALLERS);
    }
}
