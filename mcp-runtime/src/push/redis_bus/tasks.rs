//! The two tasks of a bus: one PUBLISHes what this instance queues, one SUBSCRIBEs and hands
//! what every instance published to this instance's subscribers. Each keeps its own
//! connection and reconnects on its own, with back-off.

use std::future::poll_fn;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_core::Stream;
use redis::aio::{MultiplexedConnection, PubSub, PubSubStream};
use redis::{AsyncConnectionConfig, Client, Msg, RedisError};
use tokio::sync::{broadcast, mpsc, watch};

use super::link::{Link, Side};
use super::wire;
use crate::backoff::Backoff;
use crate::push::Change;

/// How long one attempt to reach Redis may take: an address that drops packets would
/// otherwise hold an attempt for the system's TCP timeout, minutes.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long one PUBLISH may take before the connection counts as lost.
const PUBLISH_TIMEOUT: Duration = Duration::from_secs(3);
/// How long Redis may take to answer the subscription's PING before it counts as lost.
const PING_TIMEOUT: Duration = Duration::from_secs(3);

/// Everything both tasks need.
pub(super) struct Shared {
    pub client: Client,
    pub channel: String,
    pub origin: String,
    pub link: Arc<Link>,
    /// How often the subscription, silent otherwise, PINGs Redis (milliseconds).
    pub keepalive_ms: AtomicU64,
    /// Counts the subscriptions made again after one was lost: changes published in between
    /// never reached this instance.
    pub losses: watch::Sender<u64>,
}

impl Shared {
    fn keepalive(&self) -> Duration {
        Duration::from_millis(self.keepalive_ms.load(Ordering::Relaxed))
    }
}

async fn publisher_connection(client: &Client) -> Result<MultiplexedConnection, RedisError> {
    let config = AsyncConnectionConfig::new()
        .set_connection_timeout(Some(CONNECT_TIMEOUT))
        .set_response_timeout(Some(PUBLISH_TIMEOUT));
    client
        .get_multiplexed_async_connection_with_config(&config)
        .await
}

/// Sends what `outbox` holds, in order, until every handle on the bus is gone.
pub(super) async fn publish(shared: Arc<Shared>, mut outbox: mpsc::Receiver<String>) {
    let mut backoff = Backoff::default();
    // A change whose PUBLISH failed for want of a connection: sent first on the next one.
    let mut pending: Option<String> = None;
    // The connection being made is for a change whose PUBLISH just failed: if that fails again,
    // Redis is away (and one that accepts connections only to drop them is not retried in a
    // tight loop).
    let mut retrying = false;
    loop {
        let mut connection = match publisher_connection(&shared.client).await {
            Ok(connection) => {
                shared.link.up(Side::Publisher);
                if !retrying {
                    backoff.reset();
                }
                connection
            }
            Err(e) => {
                if outbox.is_closed() {
                    // Every handle on the bus is gone and Redis is away: nothing more to do.
                    return;
                }
                shared.link.down(Side::Publisher, &e);
                tokio::time::sleep(backoff.next()).await;
                continue;
            }
        };
        loop {
            let payload = match pending.take() {
                Some(payload) => payload,
                None => match outbox.recv().await {
                    Some(payload) => payload,
                    None => return,
                },
            };
            let sent = redis::cmd("PUBLISH")
                .arg(&shared.channel)
                .arg(&payload)
                .query_async::<i64>(&mut connection)
                .await;
            match sent {
                Ok(_) => {
                    retrying = false;
                    backoff.reset();
                    shared.link.sent();
                }
                Err(e) if lost_connection(&e) => {
                    pending = Some(payload);
                    if retrying {
                        shared.link.down(Side::Publisher, &e);
                        tokio::time::sleep(backoff.next()).await;
                    } else {
                        // A connection can die unnoticed while nothing is published: try a
                        // new one at once, and call it an outage only if that fails too.
                        tracing::debug!(channel = %shared.channel, error = %e, "PUBLISH failed");
                        retrying = true;
                    }
                    break;
                }
                Err(e) => {
                    // Redis refused this command (an ACL, say): retrying would fail the same way.
                    retrying = false;
                    tracing::warn!(
                        channel = %shared.channel,
                        error = %e,
                        "Redis refused to PUBLISH a change: the other instances miss it"
                    );
                }
            }
        }
    }
}

async fn next_message(messages: &mut PubSubStream) -> Option<Msg> {
    poll_fn(|cx| Pin::new(&mut *messages).poll_next(cx)).await
}

fn lost_connection(e: &RedisError) -> bool {
    e.is_io_error() || e.is_timeout() || e.is_connection_dropped() || e.is_connection_refusal()
}

async fn subscription(shared: &Shared) -> Result<PubSub, RedisError> {
    let attempt = async {
        let mut pubsub = shared.client.get_async_pubsub().await?;
        pubsub.subscribe(&shared.channel).await?;
        Ok(pubsub)
    };
    match tokio::time::timeout(CONNECT_TIMEOUT, attempt).await {
        Ok(result) => result,
        Err(_) => Err(RedisError::from(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "no subscription within the connect timeout",
        ))),
    }
}

/// Hands every change published on the channel by another instance to `local`, until every
/// handle on the bus is gone (the task is aborted then).
///
/// A subscription hears nothing while nobody publishes, so a connection cut off without a
/// word (a partition, a Redis frozen in place) would go unnoticed: it PINGs Redis whenever it
/// has been quiet for the keep-alive interval, and an unanswered PING counts as a lost
/// connection. Each subscription made after one was lost is reported in `losses`.
pub(super) async fn subscribe(shared: Arc<Shared>, local: broadcast::Sender<Change>) {
    let mut backoff = Backoff::default();
    let mut subscribed_before = false;
    loop {
        let pubsub = match subscription(&shared).await {
            Ok(pubsub) => pubsub,
            Err(e) => {
                shared.link.down(Side::Subscriber, &e);
                tokio::time::sleep(backoff.next()).await;
                continue;
            }
        };
        if subscribed_before {
            shared.losses.send_modify(|losses| *losses += 1);
        }
        subscribed_before = true;
        shared.link.up(Side::Subscriber);
        backoff.reset();
        let (mut sink, mut messages) = pubsub.split();
        let ended = loop {
            let quiet = tokio::time::sleep(shared.keepalive());
            let message = tokio::select! {
                message = next_message(&mut messages) => message,
                () = quiet => {
                    match tokio::time::timeout(PING_TIMEOUT, sink.ping::<redis::Value>()).await {
                        Ok(Ok(_)) => continue,
                        Ok(Err(e)) => break e.to_string(),
                        Err(_) => break format!("no answer to PING within {PING_TIMEOUT:?}"),
                    }
                }
            };
            let Some(message) = message else {
                break "the subscription's connection closed".to_owned();
            };
            let payload = message.get_payload_bytes();
            match wire::decode(payload) {
                // This instance's own change: its subscribers had it when it was published.
                Ok(incoming) if incoming.origin.as_deref() == Some(shared.origin.as_str()) => {}
                Ok(incoming) => {
                    // No subscriber is not an error: nobody is listening yet.
                    let _ = local.send(incoming.change);
                }
                Err(e) => tracing::warn!(
                    channel = %shared.channel,
                    error = %e,
                    bytes = payload.len(),
                    "skipped a message on the Redis channel that is not a change"
                ),
            }
        };
        shared.link.down(Side::Subscriber, &ended);
        tokio::time::sleep(backoff.next()).await;
    }
}
