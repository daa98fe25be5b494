//! The bus of a fleet: Redis pub/sub (feature `redis`).

mod link;
mod tasks;
mod wire;

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::AbortHandle;

use super::{Change, LOCAL_BUS_CAPACITY, NotificationBus};
use link::Link;
use tasks::Shared;

/// How many changes may wait to be PUBLISHed, for instance while Redis is away. When the queue
/// is full, a newly published change still reaches this instance's subscribers, but not the
/// other instances: the change being published is the one dropped, and the log says so.
pub const REDIS_QUEUE_CAPACITY: usize = 1024;

/// How long the bus's subscription may stay silent before it PINGs Redis, by default: see
/// [`RedisBus::keepalive`].
pub const REDIS_KEEPALIVE: Duration = Duration::from_secs(15);

/// Why a [`RedisBus`] could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RedisBusError {
    /// The URL is not a Redis URL (`redis://[user:password@]host[:port][/db]`).
    #[error("not a Redis URL: {0}")]
    InvalidUrl(String),
    /// The channel name is empty.
    #[error("the Redis channel name is empty")]
    EmptyChannel,
    /// The bus was made outside a Tokio runtime, which its tasks need.
    #[error("a RedisBus must be made inside a Tokio runtime")]
    NoRuntime,
}

/// A [`NotificationBus`] shared by every instance of an application through Redis pub/sub
/// (feature `redis`): a change published through any instance reaches the subscribers of all
/// of them, once each.
///
/// Making the bus does not wait for Redis: it connects in the background, and a server
/// built on it starts and serves while Redis is down. Then, and whenever Redis goes away
/// later:
/// - this instance's subscribers still hear this instance's changes, at once;
/// - changes are queued for Redis (at most [`REDIS_QUEUE_CAPACITY`]) and PUBLISHed when it is
///   back; instances whose own subscription is back by then hear them late, the others never;
/// - the bus reconnects with exponential back-off (100 ms doubling to 5 s, jittered), and logs
///   the outage once at WARN when it starts and once at INFO when it ends.
///
/// Each change is one PUBLISH of its JSON (`{"kind":"resource_updated","uri":"…",
/// "origin":"…"}`) on the bus's channel. `origin` names the publishing bus, whose subscribers
/// were handed the change when it was published and so skip its echo; a change published
/// without one (`redis-cli PUBLISH <channel> '{"kind":"tools_list_changed"}'`) reaches every
/// instance. A message that is not a change is logged at WARN and skipped.
///
/// Pub/sub delivers to whoever is subscribed at that moment, nothing more: a change published
/// while an instance is cut off from Redis never reaches that instance. So when its
/// subscription is back after being lost, the bus reports a loss
/// ([`NotificationBus::losses`]) and the server ends the listeners connected to this
/// instance: their clients re-read what they care about and listen again. A subscription
/// cut off without a word (a network partition, a Redis frozen in place) is found out by a
/// PING after [`REDIS_KEEPALIVE`] of silence ([`RedisBus::keepalive`]).
///
/// ```no_run
/// use mcp::push::RedisBus;
///
/// # #[mcp::tool]
/// # async fn ping() -> &'static str { "pong" }
/// #[tokio::main]
/// async fn main() -> Result<(), Box<dyn std::error::Error>> {
///     // Every instance of "board" on channel `board:changes`.
///     let bus = RedisBus::new("redis://127.0.0.1:6379", "board:changes")?;
///     mcp::McpServer::new("board")
///         .tools(mcp::tools![ping])
///         .notification_bus(bus)
///         .serve_http("127.0.0.1:8000")
///         .await?;
///     Ok(())
/// }
/// ```
#[derive(Clone)]
pub struct RedisBus {
    inner: Arc<Inner>,
}

struct Inner {
    local: broadcast::Sender<Change>,
    outbox: mpsc::Sender<String>,
    shared: Arc<Shared>,
    tasks: [AbortHandle; 2],
}

impl Drop for Inner {
    fn drop(&mut self) {
        // The publisher ends by itself once the queue is drained and closed; the subscriber
        // would wait on Redis forever.
        self.tasks[1].abort();
    }
}

impl RedisBus {
    /// A bus on `url` with the channel of this program: `mcp:push:` and the file name of the
    /// program (`argv[0]`, without directory or extension), e.g. `mcp:push:board`. Instances
    /// of one program share it; another program on the same Redis does not hear them.
    /// Pub/sub channels span every database of a Redis server, so a database number in the
    /// URL does not keep two applications apart: give one of them a channel with
    /// [`RedisBus::new`].
    ///
    /// Returns at once; the bus connects in the background. Fails if `url` is not a Redis URL
    /// or if called outside a Tokio runtime.
    ///
    /// ```no_run
    /// # #[tokio::main]
    /// # async fn main() -> Result<(), mcp::push::RedisBusError> {
    /// let bus = mcp::push::RedisBus::connect("redis://127.0.0.1:6379")?;
    /// assert!(bus.channel().starts_with("mcp:push:"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn connect(url: &str) -> Result<Self, RedisBusError> {
        Self::new(url, default_channel())
    }

    /// A bus on `url` with its own `channel`: the instances of one application share it.
    /// Returns at once, as [`RedisBus::connect`] does.
    ///
    /// ```no_run
    /// # #[tokio::main]
    /// # async fn main() -> Result<(), mcp::push::RedisBusError> {
    /// let bus = mcp::push::RedisBus::new("redis://:secret@redis.internal:6379", "board:changes")?;
    /// # let _ = bus;
    /// # Ok(())
    /// # }
    /// ```
    pub fn new(url: &str, channel: impl Into<String>) -> Result<Self, RedisBusError> {
        let channel = channel.into();
        if channel.is_empty() {
            return Err(RedisBusError::EmptyChannel);
        }
        let client =
            redis::Client::open(url).map_err(|e| RedisBusError::InvalidUrl(e.to_string()))?;
        let runtime =
            tokio::runtime::Handle::try_current().map_err(|_| RedisBusError::NoRuntime)?;
        let shared = Arc::new(Shared {
            client,
            link: Arc::new(Link::new(channel.clone())),
            channel,
            origin: origin(),
            keepalive_ms: AtomicU64::new(millis(REDIS_KEEPALIVE)),
            losses: watch::channel(0).0,
        });
        let local = broadcast::channel(LOCAL_BUS_CAPACITY).0;
        let (outbox, queued) = mpsc::channel(REDIS_QUEUE_CAPACITY);
        let publisher = runtime.spawn(tasks::publish(shared.clone(), queued));
        let subscriber = runtime.spawn(tasks::subscribe(shared.clone(), local.clone()));
        Ok(Self {
            inner: Arc::new(Inner {
                local,
                outbox,
                shared,
                tasks: [publisher.abort_handle(), subscriber.abort_handle()],
            }),
        })
    }

    /// How long the subscription may stay silent before the bus PINGs Redis to learn whether
    /// the connection still stands ([`REDIS_KEEPALIVE`] by default; at least 10 ms). While it
    /// is silent for lack of changes, a connection cut off without a word is found out within
    /// this interval plus 3 s for the answer; shorter finds it sooner, at one PING per
    /// interval.
    ///
    /// ```no_run
    /// # #[tokio::main]
    /// # async fn main() -> Result<(), mcp::push::RedisBusError> {
    /// use std::time::Duration;
    ///
    /// let bus = mcp::push::RedisBus::connect("redis://127.0.0.1:6379")?
    ///     .keepalive(Duration::from_secs(5));
    /// # let _ = bus;
    /// # Ok(())
    /// # }
    /// ```
    pub fn keepalive(self, interval: Duration) -> Self {
        let interval = millis(interval).max(10);
        self.inner
            .shared
            .keepalive_ms
            .store(interval, Ordering::Relaxed);
        self
    }

    /// The Redis channel the bus publishes and subscribes on.
    pub fn channel(&self) -> &str {
        &self.inner.shared.channel
    }

    /// Whether the bus is connected to Redis for both publishing and subscribing right now.
    /// A connection that died while nothing was published is found out at the next PUBLISH,
    /// so this is a report, not a promise.
    pub fn is_connected(&self) -> bool {
        self.inner.shared.link.is_up()
    }
}

impl NotificationBus for RedisBus {
    fn publish(&self, change: Change) {
        match wire::encode(&change, &self.inner.shared.origin) {
            Ok(payload) => match self.inner.outbox.try_send(payload) {
                Ok(()) => {}
                Err(TrySendError::Full(_)) => self.inner.shared.link.dropped(),
                // Only when the runtime that ran the publisher has shut down.
                Err(TrySendError::Closed(_)) => {}
            },
            // Unreachable with the `Change` of today: its JSON cannot fail.
            Err(e) => tracing::error!(error = %e, "a change has no JSON; not sent to Redis"),
        }
        // No subscriber is not an error: nobody is listening yet.
        let _ = self.inner.local.send(change);
    }

    fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.inner.local.subscribe()
    }

    fn losses(&self) -> Option<watch::Receiver<u64>> {
        Some(self.inner.shared.losses.subscribe())
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

impl fmt::Debug for RedisBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisBus")
            .field("channel", &self.channel())
            .field("connected", &self.is_connected())
            .finish_non_exhaustive()
    }
}

fn default_channel() -> String {
    let program = std::env::args_os()
        .next()
        .and_then(|argv0| {
            std::path::Path::new(&argv0)
                .file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
        })
        .filter(|stem| !stem.is_empty());
    format!("mcp:push:{}", program.as_deref().unwrap_or("default"))
}

/// A name for this bus that no other bus on the channel has: 64 random bits.
fn origin() -> String {
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        // Without the system's randomness, the address of this allocation and the time are
        // still unlikely to be another instance's.
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or_default()
            ^ (std::process::id() as u64) << 32;
        bytes = seed.to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_channel_is_the_programs() {
        let channel = default_channel();
        assert!(channel.starts_with("mcp:push:"), "{channel}");
        assert!(!channel.contains('/'), "{channel}");
    }

    #[test]
    fn origins_differ() {
        assert_eq!(origin().len(), 16);
        assert_ne!(origin(), origin());
    }

    #[test]
    fn bad_urls_and_channels_are_refused() {
        let runtime = tokio::runtime::Builder::new_current_thread().build();
        let Ok(runtime) = runtime else {
            panic!("a runtime");
        };
        let _in_runtime = runtime.enter();
        assert!(matches!(
            RedisBus::new("http://example.com", "c"),
            Err(RedisBusError::InvalidUrl(_))
        ));
        assert!(matches!(
            RedisBus::new("redis://127.0.0.1:1", ""),
            Err(RedisBusError::EmptyChannel)
        ));
    }

    #[test]
    fn outside_a_runtime_there_is_no_bus() {
        assert!(matches!(
            RedisBus::new("redis://127.0.0.1:1", "c"),
            Err(RedisBusError::NoRuntime)
        ));
    }

    #[tokio::test]
    async fn without_redis_a_change_still_reaches_this_instances_subscribers() {
        // Port 1 on loopback: nothing listens there, so Redis is away from the start.
        let bus = RedisBus::new("redis://127.0.0.1:1", "c").map_err(|e| e.to_string());
        let bus = match bus {
            Ok(bus) => bus,
            Err(e) => panic!("{e}"),
        };
        let mut rx = bus.subscribe();
        bus.publish(Change::ToolsListChanged);
        assert_eq!(rx.recv().await.ok(), Some(Change::ToolsListChanged));
        assert!(!bus.is_connected());
    }
}
