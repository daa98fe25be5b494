//! What one listen heard and its reader has not taken yet, then how the listen ended.
//!
//! A change says "read this again", so one heard twice before it was taken is kept once: a
//! flood of `tools/list_changed` holds one entry, and only changes of more distinct things than
//! [`LISTEN_BUFFER`] can fill it. Full, the listen ends as lost instead of growing or making the
//! connection's reader wait.

use std::collections::{HashSet, VecDeque};
use std::sync::Mutex;
use std::task::{Context, Poll, Waker};

use crate::push::Change;

use super::connection::lock;
use super::listen::ListenLost;

/// How many different changes may wait for a [`Listen`](super::Listen)'s reader before the
/// listen ends as [`ListenLost::FellBehind`]. More than the resources one listen of this
/// crate's servers may watch, plus the three lists, so an honest server of ours never fills it.
pub const LISTEN_BUFFER: usize = 1024;

/// How a listen ended.
#[derive(Debug)]
pub(super) enum End {
    /// The server ended it on purpose (its final result, or on stdio its
    /// `notifications/cancelled`).
    Closed,
    /// It broke, or fell behind.
    Lost(ListenLost),
}

#[derive(Default)]
pub(super) struct Backlog(Mutex<Queue>);

#[derive(Default)]
struct Queue {
    pending: VecDeque<Change>,
    /// What `pending` holds, so a change heard again is found at once.
    queued: HashSet<Change>,
    end: Option<End>,
    /// The reader was given the end.
    told: bool,
    waker: Option<Waker>,
}

impl Backlog {
    /// Queues `change` unless it already waits or the listen ended. `false` when the backlog
    /// was full: the listen has ended as lost.
    pub fn push(&self, change: Change) -> bool {
        let mut queue = lock(&self.0);
        if queue.end.is_some() || queue.queued.contains(&change) {
            return true;
        }
        let fits = queue.pending.len() < LISTEN_BUFFER;
        if fits {
            queue.queued.insert(change.clone());
            queue.pending.push_back(change);
        } else {
            queue.end = Some(End::Lost(ListenLost::FellBehind));
        }
        let waker = queue.waker.take();
        drop(queue);
        if let Some(waker) = waker {
            waker.wake();
        }
        fits
    }

    /// Ends the listen, unless it already ended; whether this call ended it. What waits is
    /// still read first.
    pub fn end(&self, end: End) -> bool {
        let mut queue = lock(&self.0);
        if queue.end.is_some() {
            return false;
        }
        queue.end = Some(end);
        let waker = queue.waker.take();
        drop(queue);
        if let Some(waker) = waker {
            waker.wake();
        }
        true
    }

    /// Whether the listen ended.
    pub fn ended(&self) -> bool {
        lock(&self.0).end.is_some()
    }

    /// The next change; once none waits, the end: `None` after a close, one
    /// `Some(Err(..))` and then `None` after a loss.
    pub fn poll_next(&self, cx: &mut Context<'_>) -> Poll<Option<Result<Change, ListenLost>>> {
        let mut queue = lock(&self.0);
        if let Some(change) = queue.pending.pop_front() {
            queue.queued.remove(&change);
            return Poll::Ready(Some(Ok(change)));
        }
        let told = queue.told;
        match &queue.end {
            None => {
                queue.waker = Some(cx.waker().clone());
                Poll::Pending
            }
            Some(End::Lost(lost)) if !told => {
                let lost = lost.clone();
                queue.told = true;
                Poll::Ready(Some(Err(lost)))
            }
            Some(_) => Poll::Ready(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::future::poll_fn;

    use super::*;

    fn updated(uri: &str) -> Change {
        Change::ResourceUpdated { uri: uri.into() }
    }

    async fn next(backlog: &Backlog) -> Option<Result<Change, ListenLost>> {
        poll_fn(|cx| backlog.poll_next(cx)).await
    }

    #[tokio::test]
    async fn a_change_heard_again_before_it_was_taken_waits_once_in_its_first_place() {
        let backlog = Backlog::default();
        for change in [
            Change::ToolsListChanged,
            updated("a://1"),
            Change::ToolsListChanged,
            updated("a://1"),
            updated("a://2"),
        ] {
            assert!(backlog.push(change));
        }
        assert_eq!(next(&backlog).await, Some(Ok(Change::ToolsListChanged)));
        // Taken, it counts again.
        assert!(backlog.push(Change::ToolsListChanged));
        assert_eq!(next(&backlog).await, Some(Ok(updated("a://1"))));
        assert_eq!(next(&backlog).await, Some(Ok(updated("a://2"))));
        assert_eq!(next(&backlog).await, Some(Ok(Change::ToolsListChanged)));
        assert!(backlog.end(End::Closed));
        assert_eq!(next(&backlog).await, None);
    }

    #[tokio::test]
    async fn a_full_backlog_ends_the_listen_as_lost_after_what_waits() {
        let backlog = Backlog::default();
        for n in 0..LISTEN_BUFFER {
            assert!(backlog.push(updated(&format!("a://{n}"))));
        }
        assert!(!backlog.push(updated("a://one-more")));
        assert!(backlog.ended());
        assert!(!backlog.end(End::Closed), "the first end stands");
        for n in 0..LISTEN_BUFFER {
            assert_eq!(next(&backlog).await, Some(Ok(updated(&format!("a://{n}")))));
        }
        assert_eq!(next(&backlog).await, Some(Err(ListenLost::FellBehind)));
        assert_eq!(next(&backlog).await, None);
    }
}
