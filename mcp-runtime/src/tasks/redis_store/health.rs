//! Whether the store reaches Redis, and the log of its outages: one WARN when an outage
//! starts, one INFO when it ends, whatever happens in between.

use std::fmt::Display;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// One of the store's two ways to Redis.
#[derive(Debug, Clone, Copy)]
pub(super) enum Side {
    /// The connection the operations run their scripts on.
    Commands,
    /// The subscription that hears the wake-ups for this store's runner.
    Wakes,
}

#[derive(Debug)]
pub(super) struct Health {
    prefix: String,
    commands_down: AtomicBool,
    wakes_down: AtomicBool,
    /// When the outage under way began, if one is.
    down_since: Mutex<Option<Instant>>,
}

impl Health {
    pub fn new(prefix: String) -> Self {
        Self {
            prefix,
            commands_down: AtomicBool::new(false),
            wakes_down: AtomicBool::new(false),
            down_since: Mutex::new(None),
        }
    }

    fn flag(&self, side: Side) -> &AtomicBool {
        match side {
            Side::Commands => &self.commands_down,
            Side::Wakes => &self.wakes_down,
        }
    }

    fn down_since(&self) -> std::sync::MutexGuard<'_, Option<Instant>> {
        // An instant or none: a panic elsewhere cannot leave it half-written.
        self.down_since.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether neither side is known to be down.
    pub fn is_up(&self) -> bool {
        !self.commands_down.load(Ordering::Relaxed) && !self.wakes_down.load(Ordering::Relaxed)
    }

    /// `side` reached Redis. Cheap when nothing changes: every operation reports it.
    pub fn up(&self, side: Side) {
        let flag = self.flag(side);
        // Only the first success after a failure writes anything.
        if !flag.load(Ordering::Relaxed) || !flag.swap(false, Ordering::Relaxed) || !self.is_up() {
            return;
        }
        if let Some(since) = self.down_since().take() {
            tracing::info!(
                prefix = %self.prefix,
                after = ?since.elapsed(),
                "Redis task store reconnected: tasks are reachable again"
            );
        }
    }

    /// `side` could not reach Redis.
    pub fn down(&self, side: Side, error: &dyn Display) {
        self.flag(side).store(true, Ordering::Relaxed);
        let mut down_since = self.down_since();
        if down_since.is_some() {
            tracing::debug!(prefix = %self.prefix, ?side, %error, "Redis still unreachable");
            return;
        }
        *down_since = Some(Instant::now());
        tracing::warn!(
            prefix = %self.prefix,
            ?side,
            %error,
            "Redis task store lost Redis: task operations fail until it is back \
             (reconnecting with back-off)"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn up_once_both_sides_are_back() {
        let health = Health::new("p:".into());
        assert!(health.is_up());
        health.down(Side::Commands, &"refused");
        health.down(Side::Wakes, &"refused");
        assert!(!health.is_up());
        health.up(Side::Commands);
        assert!(!health.is_up());
        assert!(health.down_since().is_some(), "the outage goes on");
        health.up(Side::Wakes);
        assert!(health.is_up());
        assert!(health.down_since().is_none());
    }
}
