//! The task store of a fleet: Redis (feature `redis`).

mod builder;
mod connection;
mod health;
mod reply;
mod scripts;
mod wakes;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use redis::ScriptInvocation;
use tokio::task::AbortHandle;

use super::id::{is_task_id, new_task_id};
use super::limits::millis;
use super::{
    Inbox, StoreFuture, TaskLimits, TaskRecord, TaskState, TaskStore, TaskStoreError, TaskWatch,
    UpdateOutcome, Watchers, request_json, result_json,
};
use crate::protocol::{InputResponses, McpError};
use connection::Commands;
use reply::Reply;

pub use builder::{
    REDIS_TASKS_LEASE, REDIS_TASKS_PREFIX, REDIS_TASKS_TIMEOUT, RedisTaskStoreBuilder,
    RedisTaskStoreError,
};

/// How many expired leases one sweep script looks at; a sweep runs it until fewer are due.
const SWEEP_BATCH: usize = 100;
/// The most batches one sweep runs, so that a sweep ends even while leases keep expiring.
const SWEEP_BATCHES: usize = 100;

/// A [`TaskStore`] shared by every instance of an application through Redis (feature
/// `redis`): any instance reads, answers and cancels a task running on any other, an answer
/// or a cancel received by one instance wakes the function where it runs, and when an
/// instance dies, the others fail its unfinished tasks once its lease runs out.
///
/// Every operation is one Lua script, so each is atomic whatever other instances do: a
/// terminal status stays terminal, and of two instances taking an answer to the same key at
/// the same moment, exactly one gets it. Timestamps and lease deadlines come from Redis's
/// clock (`TIME`), so instances with skewed clocks agree. Made without waiting for Redis, the
/// store connects when first used; while Redis is away every operation fails within the
/// [timeout](RedisTaskStoreBuilder::timeout) with [`TaskStoreError::Unavailable`], attempts
/// to reconnect back off (100 ms doubling to 5 s, jittered), and the outage is logged once
/// at WARN when it starts and once at INFO when it ends.
///
/// # In Redis
///
/// Under the [prefix](RedisTaskStoreBuilder::prefix) (`mcp:tasks:` by default), for each
/// task:
/// - `task:<id>`, a hash: `owner`, `status`, `created` and `updated` (Unix ms), `ttl` and
///   `poll` (ms), `message`, `result` or `error` (JSON), `cancel` (`1` once requested), and
///   `runner`, the store handle running it;
/// - `task:<id>:questions`, a hash of the outstanding input requests (key → JSON);
/// - `task:<id>:keys`, a hash of every input request key the task used (key → SHA-1 of its
///   request, or `answered`): a key names one request, and is answered once, over the
///   task's life;
/// - `task:<id>:inbox`, a hash of the answers not yet taken by the runner (key → JSON).
///
/// A finished task's keys expire its ttl after it finished. An unfinished task's keys
/// expire its ttl after its lease would run out, so that if every instance is gone for good
/// the task still leaves nothing behind. Beside them:
/// - `leases`, a sorted set: each unfinished task by the moment its lease runs out; a sweep
///   takes those past due;
/// - `live` and `owner:<SHA-1 of the owner>`, sorted sets: each task by the moment its keys
///   expire, counted against [`TaskLimits`];
/// - the channel `wake:<runner>`: the id of a task of that runner that got answers or a
///   cancel request. A wake-up lost while the runner's subscription was down is made up for
///   by waking every watch once it is back.
///
/// The scripts name keys they build themselves, so the store needs a single Redis (or a
/// primary with replicas, or Sentinel), not Redis Cluster. A task is in Redis when
/// [`create`](TaskStore::create) returns; whether it survives a crash of Redis is up to
/// Redis's persistence (`appendonly yes`).
///
/// ```no_run
/// use std::time::Duration;
/// use mcp::tasks::{RedisTaskStore, TaskStore};
///
/// #[tokio::main]
/// async fn main() -> Result<(), Box<dyn std::error::Error>> {
///     let store = RedisTaskStore::builder("redis://127.0.0.1:6379")
///         .prefix("board:tasks:")
///         .lease(Duration::from_secs(20))
///         .build()?;
///     let task = store.create("alice", Duration::from_secs(300), None).await?;
///     println!("task {} is {}", task.task_id, task.status());
///     Ok(())
/// }
/// ```
#[derive(Clone)]
pub struct RedisTaskStore {
    inner: Arc<Inner>,
}

struct Inner {
    commands: Commands,
    prefix: String,
    runner: String,
    limits: TaskLimits,
    lease: Duration,
    watchers: Arc<Watchers>,
    /// The subscription's task: it would wait on Redis forever.
    wakes: AbortHandle,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.wakes.abort();
    }
}

impl RedisTaskStore {
    /// A store on `url` with the default settings. Returns at once, as
    /// [`RedisTaskStoreBuilder::build`] does.
    ///
    /// ```no_run
    /// # #[tokio::main]
    /// # async fn main() -> Result<(), mcp::tasks::RedisTaskStoreError> {
    /// let store = mcp::tasks::RedisTaskStore::new("redis://:secret@redis.internal:6379/2")?;
    /// assert_eq!(store.prefix(), "mcp:tasks:");
    /// # Ok(())
    /// # }
    /// ```
    pub fn new(url: &str) -> Result<Self, RedisTaskStoreError> {
        Self::builder(url).build()
    }

    /// The settings of a store on `url`, to change before [`build`](RedisTaskStoreBuilder::build).
    pub fn builder(url: impl Into<String>) -> RedisTaskStoreBuilder {
        RedisTaskStoreBuilder::new(url.into())
    }

    /// The prefix of the store's keys and channels.
    pub fn prefix(&self) -> &str {
        &self.inner.prefix
    }

    /// The runner this store handle is: the tasks it creates are leased to it, and renewed
    /// through it. Clones share it; each store built is another runner.
    pub fn runner_id(&self) -> &str {
        &self.inner.runner
    }

    async fn run(&self, script: &ScriptInvocation<'_>) -> Result<Reply, TaskStoreError> {
        Reply::new(self.inner.commands.run(script).await?)
    }

    async fn create_task(
        &self,
        owner: &str,
        ttl: Duration,
        poll_interval: Option<Duration>,
    ) -> Result<TaskRecord, TaskStoreError> {
        let inner = &self.inner;
        let id = new_task_id();
        let poll = poll_interval.map(|p| millis(p).to_string());
        let mut script = scripts::CREATE.prepare_invoke();
        script
            .arg(&inner.prefix)
            .arg(&id)
            .arg(owner)
            .arg(millis(inner.limits.ttl(ttl)))
            .arg(poll.unwrap_or_default())
            .arg(&inner.runner)
            .arg(millis(inner.lease))
            .arg(inner.limits.per_owner)
            .arg(inner.limits.total);
        let reply = self.run(&script).await?;
        match reply.tag.as_str() {
            "owner_limit" => Err(TaskStoreError::OwnerLimit {
                limit: inner.limits.per_owner,
            }),
            "full" => Err(TaskStoreError::StoreFull {
                limit: inner.limits.total,
            }),
            _ => reply.record(&id),
        }
    }

    async fn get_task(&self, id: &str, owner: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        if !is_task_id(id) {
            return Ok(None);
        }
        let mut script = scripts::READ.prepare_invoke();
        script.arg(&self.inner.prefix).arg(id).arg(owner);
        match self.run(&script).await?.record(id) {
            Err(TaskStoreError::NotFound) => Ok(None),
            found => found.map(Some),
        }
    }

    async fn update_task(
        &self,
        id: &str,
        owner: &str,
        responses: InputResponses,
    ) -> Result<UpdateOutcome, TaskStoreError> {
        if !is_task_id(id) {
            return Err(TaskStoreError::NotFound);
        }
        let mut script = scripts::UPDATE.prepare_invoke();
        script.arg(&self.inner.prefix).arg(id).arg(owner);
        let mut keys = Vec::with_capacity(responses.0.len());
        for (key, answer) in &responses.0 {
            script.arg(key).arg(answer.to_string());
            keys.push(key.clone());
        }
        self.run(&script).await?.outcome(keys)
    }

    async fn cancel_task(&self, id: &str, owner: &str) -> Result<TaskRecord, TaskStoreError> {
        if !is_task_id(id) {
            return Err(TaskStoreError::NotFound);
        }
        let mut script = scripts::CANCEL.prepare_invoke();
        script.arg(&self.inner.prefix).arg(id).arg(owner);
        self.run(&script).await?.record(id)
    }

    async fn advance_task(
        &self,
        id: &str,
        state: TaskState,
        status_message: Option<String>,
    ) -> Result<TaskRecord, TaskStoreError> {
        if !is_task_id(id) {
            return Err(TaskStoreError::NotFound);
        }
        let unserializable = |e: serde_json::Error| TaskStoreError::Corrupt(e.to_string());
        let payload = match &state {
            TaskState::Completed(result) => result_json(result)?,
            TaskState::Failed(error) => serde_json::to_string(error).map_err(unserializable)?,
            _ => String::new(),
        };
        let mut script = scripts::ADVANCE.prepare_invoke();
        script
            .arg(&self.inner.prefix)
            .arg(id)
            .arg(state.status().as_str())
            .arg(payload)
            .arg(if status_message.is_some() { "1" } else { "0" })
            .arg(status_message.unwrap_or_default());
        if let TaskState::InputRequired(requests) = &state {
            if requests.is_empty() {
                return Err(TaskStoreError::NoInputRequests);
            }
            for (key, request) in requests {
                script.arg(key).arg(request_json(key, request)?);
            }
        }
        self.run(&script).await?.record(id)
    }

    async fn take_task_inbox(&self, id: &str) -> Result<Inbox, TaskStoreError> {
        if !is_task_id(id) {
            return Err(TaskStoreError::NotFound);
        }
        let mut script = scripts::INBOX.prepare_invoke();
        script.arg(&self.inner.prefix).arg(id);
        self.run(&script).await?.inbox()
    }

    async fn renew_tasks(&self, ids: &[String]) -> Result<Vec<String>, TaskStoreError> {
        let (ours, strangers): (Vec<&String>, Vec<&String>) =
            ids.iter().partition(|id| is_task_id(id));
        let mut lost: Vec<String> = strangers.into_iter().cloned().collect();
        if ours.is_empty() {
            return Ok(lost);
        }
        let inner = &self.inner;
        let mut script = scripts::RENEW.prepare_invoke();
        script
            .arg(&inner.prefix)
            .arg(&inner.runner)
            .arg(millis(inner.lease));
        for id in ours {
            script.arg(id);
        }
        lost.extend(self.run(&script).await?.lost()?);
        Ok(lost)
    }

    async fn sweep_tasks(&self) -> Result<Vec<String>, TaskStoreError> {
        let error = serde_json::to_string(&runner_gone())
            .map_err(|e| TaskStoreError::Corrupt(e.to_string()))?;
        let mut failed = Vec::new();
        for _ in 0..SWEEP_BATCHES {
            let mut script = scripts::SWEEP.prepare_invoke();
            script
                .arg(&self.inner.prefix)
                .arg(&error)
                .arg(RUNNER_GONE_MESSAGE)
                .arg(SWEEP_BATCH);
            let (looked, batch) = self.run(&script).await?.swept()?;
            failed.extend(batch);
            if looked < SWEEP_BATCH {
                break;
            }
        }
        Ok(failed)
    }
}

/// The error of a task whose runner stopped renewing its lease.
fn runner_gone() -> McpError {
    McpError::internal("The task's runner stopped before the task finished")
}

/// The status message of a task failed by a sweep.
const RUNNER_GONE_MESSAGE: &str = "runner gone: its lease ran out";

impl fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.inner.prefix)
            .field("runner", &self.inner.runner)
            .field("lease", &self.inner.lease)
            .field("limits", &self.inner.limits)
            .finish_non_exhaustive()
    }
}

impl TaskStore for RedisTaskStore {
    fn create<'a>(
        &'a self,
        owner: &'a str,
        ttl: Duration,
        poll_interval: Option<Duration>,
    ) -> StoreFuture<'a, TaskRecord> {
        Box::pin(self.create_task(owner, ttl, poll_interval))
    }

    fn get<'a>(&'a self, task_id: &'a str, owner: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(self.get_task(task_id, owner))
    }

    fn update<'a>(
        &'a self,
        task_id: &'a str,
        owner: &'a str,
        responses: InputResponses,
    ) -> StoreFuture<'a, UpdateOutcome> {
        Box::pin(self.update_task(task_id, owner, responses))
    }

    fn cancel<'a>(&'a self, task_id: &'a str, owner: &'a str) -> StoreFuture<'a, TaskRecord> {
        Box::pin(self.cancel_task(task_id, owner))
    }

    fn advance<'a>(
        &'a self,
        task_id: &'a str,
        state: TaskState,
        status_message: Option<String>,
    ) -> StoreFuture<'a, TaskRecord> {
        Box::pin(self.advance_task(task_id, state, status_message))
    }

    fn take_inbox<'a>(&'a self, task_id: &'a str) -> StoreFuture<'a, Inbox> {
        Box::pin(self.take_task_inbox(task_id))
    }

    fn watch(&self, task_id: &str) -> TaskWatch {
        self.inner.watchers.watch(task_id)
    }

    fn lease(&self) -> Option<Duration> {
        Some(self.inner.lease)
    }

    fn renew<'a>(&'a self, task_ids: &'a [String]) -> StoreFuture<'a, Vec<String>> {
        Box::pin(self.renew_tasks(task_ids))
    }

    fn sweep(&self) -> StoreFuture<'_, Vec<String>> {
        Box::pin(self.sweep_tasks())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn without_redis_operations_fail_as_unavailable_and_ids_no_store_made_are_not_found() {
        // Port 1 on loopback: nothing listens there.
        let Ok(store) = RedisTaskStore::builder("redis://127.0.0.1:1")
            .timeout(Duration::from_millis(500))
            .build()
        else {
            panic!("a store")
        };
        assert!(matches!(
            store.create("a", Duration::from_secs(1), None).await,
            Err(TaskStoreError::Unavailable(_))
        ));
        // These never reach Redis.
        assert!(matches!(store.get("../etc", "a").await, Ok(None)));
        assert!(matches!(
            store.cancel("x", "a").await,
            Err(TaskStoreError::NotFound)
        ));
        assert_eq!(
            store.renew(&["x".to_owned()]).await.ok(),
            Some(vec!["x".to_owned()])
        );
    }
}
