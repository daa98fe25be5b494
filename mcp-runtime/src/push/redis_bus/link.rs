//! The state of the bus's two connections to Redis, and the log of its outages: one WARN when
//! an outage starts, one INFO when it ends, whatever happens in between.

use std::fmt::Display;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// One of the bus's connections.
#[derive(Debug, Clone, Copy)]
pub(super) enum Side {
    /// PUBLISHes this instance's changes.
    Publisher,
    /// SUBSCRIBEs to the channel for every instance's changes.
    Subscriber,
}

#[derive(Debug, Default)]
struct State {
    publisher: bool,
    subscriber: bool,
    /// When the outage under way began, if one is.
    down_since: Option<Instant>,
    /// Both sides have been up at least once.
    ever_up: bool,
}

#[derive(Debug)]
pub(super) struct Link {
    channel: String,
    state: Mutex<State>,
    /// Changes not sent to Redis because the queue was full, since the last report.
    dropped: AtomicU64,
}

impl Link {
    pub fn new(channel: String) -> Self {
        Self {
            channel,
            state: Mutex::default(),
            dropped: AtomicU64::new(0),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // The state is two flags and a time: a panic elsewhere cannot leave it half-written.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn is_up(&self) -> bool {
        let state = self.state();
        state.publisher && state.subscriber
    }

    pub fn up(&self, side: Side) {
        let mut state = self.state();
        match side {
            Side::Publisher => state.publisher = true,
            Side::Subscriber => state.subscriber = true,
        }
        if !(state.publisher && state.subscriber) {
            return;
        }
        if let Some(since) = state.down_since.take() {
            tracing::info!(
                channel = %self.channel,
                after = ?since.elapsed(),
                "Redis bus reconnected: changes reach the other instances again"
            );
        } else if !state.ever_up {
            tracing::debug!(channel = %self.channel, "Redis bus connected");
        }
        state.ever_up = true;
    }

    pub fn down(&self, side: Side, error: &dyn Display) {
        let mut state = self.state();
        match side {
            Side::Publisher => state.publisher = false,
            Side::Subscriber => state.subscriber = false,
        }
        if state.down_since.is_some() {
            tracing::debug!(channel = %self.channel, ?side, %error, "Redis still unreachable");
            return;
        }
        state.down_since = Some(Instant::now());
        tracing::warn!(
            channel = %self.channel,
            ?side,
            %error,
            "Redis bus lost Redis: changes reach this instance's listeners only until it is back \
             (reconnecting with back-off)"
        );
    }

    /// A change was not queued for Redis: the queue was full.
    pub fn dropped(&self) {
        if self.dropped.fetch_add(1, Ordering::Relaxed) == 0 {
            tracing::warn!(
                channel = %self.channel,
                capacity = super::REDIS_QUEUE_CAPACITY,
                "the queue to Redis is full: new changes reach this instance's listeners only, \
                 not the other instances, until it drains"
            );
        }
    }

    /// A change went out: if some were dropped before it, says how many.
    pub fn sent(&self) {
        if self.dropped.load(Ordering::Relaxed) == 0 {
            return;
        }
        let dropped = self.dropped.swap(0, Ordering::Relaxed);
        tracing::info!(
            channel = %self.channel,
            dropped,
            "the queue to Redis drains again; the dropped changes never reached the other instances"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn up_only_when_both_sides_are() {
        let link = Link::new("c".into());
        assert!(!link.is_up());
        link.up(Side::Publisher);
        assert!(!link.is_up());
        link.up(Side::Subscriber);
        assert!(link.is_up());
        link.down(Side::Subscriber, &"gone");
        assert!(!link.is_up());
        link.down(Side::Publisher, &"gone");
        link.up(Side::Subscriber);
        assert!(!link.is_up());
        link.up(Side::Publisher);
        assert!(link.is_up());
    }
}
