//! The subscription that wakes this store's runners: every instance that answers or cancels
//! one of this runner's tasks PUBLISHes the task id on the runner's channel.
//!
//! Pub/sub delivers to whoever is subscribed at that moment, nothing more: a wake-up sent
//! while the subscription is down is lost. So every time the subscription is made, every
//! watch of this store is woken, and each runner looks at its task again; what it missed is
//! in Redis. A subscription cut off without a word (a partition, a Redis frozen in place) is
//! found out by a PING after [`KEEPALIVE`] of silence.

use std::future::poll_fn;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures_core::Stream;
use redis::aio::{PubSub, PubSubStream};
use redis::{Client, Msg, RedisError};

use super::health::{Health, Side};
use crate::backoff::Backoff;
use crate::tasks::Watchers;

/// How long the subscription may stay silent before it PINGs Redis.
const KEEPALIVE: Duration = Duration::from_secs(10);

/// What the subscription needs.
pub(super) struct Subscription {
    pub client: Client,
    pub channel: String,
    pub timeout: Duration,
    pub watchers: Arc<Watchers>,
    pub health: Arc<Health>,
}

async fn subscribe(subscription: &Subscription) -> Result<PubSub, RedisError> {
    let attempt = async {
        let mut pubsub = subscription.client.get_async_pubsub().await?;
        pubsub.subscribe(&subscription.channel).await?;
        Ok(pubsub)
    };
    match tokio::time::timeout(subscription.timeout, attempt).await {
        Ok(result) => result,
        Err(_) => Err(RedisError::from(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "no subscription within the timeout",
        ))),
    }
}

async fn next_message(messages: &mut PubSubStream) -> Option<Msg> {
    poll_fn(|cx| Pin::new(&mut *messages).poll_next(cx)).await
}

/// Wakes the watches of every task id published on the channel, until the store is dropped
/// (the task is aborted then).
pub(super) async fn listen(subscription: Subscription) {
    let mut backoff = Backoff::default();
    loop {
        let pubsub = match subscribe(&subscription).await {
            Ok(pubsub) => pubsub,
            Err(e) => {
                subscription.health.down(Side::Wakes, &e);
                tokio::time::sleep(backoff.next()).await;
                continue;
            }
        };
        subscription.health.up(Side::Wakes);
        backoff.reset();
        // Whatever was published while nobody listened, the runners find in Redis.
        subscription.watchers.wake_all();
        let (mut sink, mut messages) = pubsub.split();
        let ended = loop {
            let quiet = tokio::time::sleep(KEEPALIVE);
            let message = tokio::select! {
                message = next_message(&mut messages) => message,
                () = quiet => {
                    let ping = sink.ping::<redis::Value>();
                    match tokio::time::timeout(subscription.timeout, ping).await {
                        Ok(Ok(_)) => continue,
                        Ok(Err(e)) => break e.to_string(),
                        Err(_) => break format!("no answer to PING within {:?}", subscription.timeout),
                    }
                }
            };
            let Some(message) = message else {
                break "the subscription's connection closed".to_owned();
            };
            match std::str::from_utf8(message.get_payload_bytes()) {
                Ok(task_id) => subscription.watchers.wake(task_id),
                Err(_) => tracing::warn!(
                    channel = %subscription.channel,
                    "skipped a wake-up that is not a task id"
                ),
            }
        };
        subscription.health.down(Side::Wakes, &ended);
        tokio::time::sleep(backoff.next()).await;
    }
}
