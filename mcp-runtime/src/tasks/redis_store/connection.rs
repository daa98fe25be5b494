//! The connection the store's operations run their scripts on: one multiplexed connection
//! shared by every operation, made when first needed and again after it is lost, never more
//! often than the back-off allows, and never waited on longer than the store's timeout.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, Client, RedisError, ScriptInvocation, Value};
use tokio::time::Instant;

use super::health::{Health, Side};
use crate::backoff::Backoff;
use crate::tasks::TaskStoreError;

pub(super) struct Commands {
    client: Client,
    timeout: Duration,
    health: Arc<Health>,
    /// The connection in use, numbered so that an operation that lost it does not throw
    /// away the one made since.
    current: Mutex<Option<(u64, MultiplexedConnection)>>,
    /// Taken to make a connection: one attempt at a time.
    connecting: tokio::sync::Mutex<Attempts>,
}

#[derive(Default)]
struct Attempts {
    made: u64,
    backoff: Backoff,
    /// No attempt before this, after a failed one.
    not_before: Option<Instant>,
}

impl Commands {
    pub fn new(client: Client, timeout: Duration, health: Arc<Health>) -> Self {
        Self {
            client,
            timeout,
            health,
            current: Mutex::new(None),
            connecting: tokio::sync::Mutex::default(),
        }
    }

    fn current(&self) -> MutexGuard<'_, Option<(u64, MultiplexedConnection)>> {
        // One assignment at a time: a panic cannot leave it half-written.
        self.current.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `script` and returns its reply, within the timeout.
    pub async fn run(&self, script: &ScriptInvocation<'_>) -> Result<Value, TaskStoreError> {
        let deadline = Instant::now() + self.timeout;
        let (number, mut connection) =
            match tokio::time::timeout_at(deadline, self.connection()).await {
                Ok(made) => made?,
                Err(_) => {
                    return Err(unavailable(format!(
                        "no connection within {:?}",
                        self.timeout
                    )));
                }
            };
        let reply =
            tokio::time::timeout_at(deadline, script.invoke_async::<Value>(&mut connection));
        match reply.await {
            Ok(Ok(value)) => {
                self.health.up(Side::Commands);
                Ok(value)
            }
            Ok(Err(e)) if lost_connection(&e) => Err(self.lost(number, e.to_string())),
            Ok(Err(e)) => Err(TaskStoreError::Backend(Box::new(e))),
            Err(_) => Err(self.lost(
                number,
                format!("no answer from Redis within {:?}", self.timeout),
            )),
        }
    }

    /// The connection `number` failed: the next operation makes a new one.
    fn lost(&self, number: u64, error: String) -> TaskStoreError {
        let mut current = self.current();
        if current.as_ref().is_some_and(|(n, _)| *n == number) {
            *current = None;
        }
        drop(current);
        self.health.down(Side::Commands, &error);
        unavailable(error)
    }

    async fn connection(&self) -> Result<(u64, MultiplexedConnection), TaskStoreError> {
        if let Some(current) = self.current().clone() {
            return Ok(current);
        }
        let mut attempts = self.connecting.lock().await;
        // Made while this operation waited for its turn.
        if let Some(current) = self.current().clone() {
            return Ok(current);
        }
        if let Some(not_before) = attempts.not_before
            && Instant::now() < not_before
        {
            return Err(unavailable(format!(
                "Redis was unreachable; the next attempt is in {:?}",
                not_before - Instant::now()
            )));
        }
        // Set before the attempt: one cut short by the operation's timeout counts too.
        attempts.not_before = Some(Instant::now() + attempts.backoff.next());
        // Each operation's deadline bounds its connecting and its round trips together (a
        // script not loaded yet takes three); the connection's own defaults (1 s to connect,
        // 500 ms an answer) would cut short an operation given a longer timeout.
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(None)
            .set_response_timeout(None);
        match self
            .client
            .get_multiplexed_async_connection_with_config(&config)
            .await
        {
            Ok(connection) => {
                attempts.made += 1;
                attempts.backoff.reset();
                attempts.not_before = None;
                let current = (attempts.made, connection);
                *self.current() = Some(current.clone());
                Ok(current)
            }
            Err(e) => {
                self.health.down(Side::Commands, &e);
                Err(TaskStoreError::Unavailable(Box::new(e)))
            }
        }
    }
}

fn unavailable(reason: String) -> TaskStoreError {
    TaskStoreError::Unavailable(reason.into())
}

pub(super) fn lost_connection(e: &RedisError) -> bool {
    e.is_io_error() || e.is_timeout() || e.is_connection_dropped() || e.is_connection_refusal()
}
