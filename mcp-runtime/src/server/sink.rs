//! Where a request's notifications go, and the channel an HTTP request makes only when its
//! handler first says something before its result.

#[cfg(feature = "http")]
use std::sync::Arc;

use tokio::sync::mpsc;

#[cfg(feature = "http")]
pub(crate) use lazy::FirstNotification;
#[cfg(feature = "http")]
use lazy::LazyChannel;

/// Where a request's notifications go: its own response stream (stdio: the shared output;
/// HTTP: that request's SSE stream).
#[derive(Debug, Clone)]
pub struct NotificationSink(Route);

#[derive(Debug, Clone)]
enum Route {
    /// A channel the transport reads.
    Channel(mpsc::Sender<String>),
    /// A channel made by the first notification: most HTTP requests send none, and a channel
    /// is two allocations, one of them cache-aligned.
    #[cfg(feature = "http")]
    Lazy(Arc<LazyChannel>),
    /// Nowhere: nobody would read them.
    Discard,
}

impl NotificationSink {
    /// A sink that writes lines into `tx`.
    pub fn new(tx: mpsc::Sender<String>) -> Self {
        Self(Route::Channel(tx))
    }

    /// A sink that drops every line (nobody reads them).
    pub(crate) fn discard() -> Self {
        Self(Route::Discard)
    }

    /// A sink whose channel (of `capacity` lines) is made when the first line is sent, and
    /// the handle that waits for it.
    #[cfg(feature = "http")]
    pub(crate) fn lazy(capacity: usize) -> (Self, FirstNotification) {
        let channel = Arc::new(LazyChannel::new(capacity));
        (
            Self(Route::Lazy(channel.clone())),
            FirstNotification(channel),
        )
    }

    pub(super) async fn send(&self, line: String) {
        let tx = match &self.0 {
            Route::Channel(tx) => tx,
            #[cfg(feature = "http")]
            Route::Lazy(channel) => channel.sender(),
            Route::Discard => {
                tracing::debug!(message = %line, "dropped a notification: nobody reads this request's");
                return;
            }
        };
        // The peer hung up: the request is being torn down anyway.
        let _ = tx.send(line).await;
    }
}

#[cfg(feature = "http")]
mod lazy {
    use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

    use tokio::sync::{Notify, mpsc};

    #[derive(Debug)]
    pub(crate) struct LazyChannel {
        capacity: usize,
        sender: OnceLock<mpsc::Sender<String>>,
        /// Taken by the transport once the channel is made.
        receiver: Mutex<Option<mpsc::Receiver<String>>>,
        made: Notify,
    }

    impl LazyChannel {
        pub(super) fn new(capacity: usize) -> Self {
            Self {
                capacity,
                sender: OnceLock::new(),
                receiver: Mutex::new(None),
                made: Notify::new(),
            }
        }

        pub(super) fn sender(&self) -> &mpsc::Sender<String> {
            self.sender.get_or_init(|| {
                let (tx, rx) = mpsc::channel(self.capacity);
                *lock(&self.receiver) = Some(rx);
                // Kept as a permit when the transport is not waiting yet.
                self.made.notify_one();
                tx
            })
        }
    }

    /// The reading end of a lazy [`NotificationSink`](super::NotificationSink): the channel,
    /// once a first line is sent.
    #[derive(Debug)]
    pub(crate) struct FirstNotification(pub(super) Arc<LazyChannel>);

    impl FirstNotification {
        /// The channel, if a line has been sent (or is being sent) into it.
        pub fn try_take(&self) -> Option<mpsc::Receiver<String>> {
            lock(&self.0.receiver).take()
        }

        /// Waits until the channel is made, and takes it.
        pub async fn made(&self) -> mpsc::Receiver<String> {
            loop {
                if let Some(rx) = self.try_take() {
                    return rx;
                }
                // A `notify_one` between the check and here left a permit: this returns at
                // once.
                self.0.made.notified().await;
            }
        }
    }

    /// The slot holds no code that can panic mid-change, so a poisoned lock is as good as any.
    fn lock<T>(slot: &Mutex<T>) -> MutexGuard<'_, T> {
        slot.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_lazy_sink_makes_no_channel_until_a_line_is_sent() {
        let (sink, first) = NotificationSink::lazy(4);
        assert!(first.try_take().is_none());
        let waiting = tokio::time::timeout(Duration::from_millis(20), first.made()).await;
        assert!(waiting.is_err(), "no line, no channel");
        sink.send("one".into()).await;
        sink.send("two".into()).await;
        let mut rx = first.made().await;
        assert_eq!(rx.recv().await.as_deref(), Some("one"));
        assert_eq!(rx.recv().await.as_deref(), Some("two"));
        assert!(first.try_take().is_none(), "the channel is taken once");
    }

    #[tokio::test]
    async fn a_reader_waiting_before_the_first_line_wakes_when_it_is_sent() {
        let (sink, first) = NotificationSink::lazy(4);
        let reader = tokio::spawn(async move { first.made().await.recv().await });
        tokio::task::yield_now().await;
        let sender = sink.clone();
        tokio::spawn(async move { sender.send("from elsewhere".into()).await });
        let line = tokio::time::timeout(Duration::from_secs(5), reader)
            .await
            .expect("woken")
            .expect("joined");
        assert_eq!(line.as_deref(), Some("from elsewhere"));
    }

    #[tokio::test]
    async fn the_channel_closes_when_the_last_sink_is_dropped() {
        let (sink, first) = NotificationSink::lazy(4);
        sink.send("last".into()).await;
        let mut rx = first.made().await;
        drop(first);
        drop(sink);
        assert_eq!(rx.recv().await.as_deref(), Some("last"));
        assert_eq!(rx.recv().await, None);
    }
}
