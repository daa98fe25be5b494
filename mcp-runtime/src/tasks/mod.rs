//! Task stores for the tasks extension (`io.modelcontextprotocol/tasks`): where a task that
//! outlives its `tools/call` keeps its status, its questions and answers, its result, so that
//! `tasks/get`, `tasks/update` and `tasks/cancel` find it.
//!
//! - [`TaskStore`]: what the tasks runtime needs of a store, on both sides: the client's
//!   (create, read, answer, cancel) and the runner's (advance the status, take the answers,
//!   wait for them, keep its lease).
//! - [`MemoryTaskStore`]: one process, the default.
//! - `RedisTaskStore` (feature `redis`): a fleet; any instance answers for a task running on
//!   any other, an answer or a cancel received anywhere wakes the runner where it runs, and a
//!   runner that dies has its tasks failed by the others.
//!
//! A task's life through a store:
//!
//! ```
//! use std::time::Duration;
//! use mcp::protocol::{ElicitParams, InputRequest, InputRequests, InputResponses};
//! use mcp::tasks::{MemoryTaskStore, TaskState, TaskStatus, TaskStore};
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), mcp::tasks::TaskStoreError> {
//! let store = MemoryTaskStore::new();
//! // tools/call: the task exists before the call is answered with its id.
//! let task = store.create("alice", Duration::from_secs(60), None).await?;
//! let id = task.task_id.as_str();
//!
//! // The runner watches its task, then asks a question.
//! let watch = store.watch(id);
//! let schema = json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}});
//! let question = InputRequest::Elicit(ElicitParams::form("Archive?", schema));
//! let asked = InputRequests::from([("confirm".to_owned(), question)]);
//! store.advance(id, TaskState::InputRequired(asked), None).await?;
//!
//! // tasks/update, on this instance or any other, wakes the runner.
//! let mut answers = InputResponses::new();
//! answers.insert("confirm", json!({"action": "accept", "content": {"confirm": true}}));
//! let outcome = store.update(id, "alice", answers).await?;
//! assert_eq!(outcome.accepted, ["confirm"]);
//! watch.changed().await;
//! let inbox = store.take_inbox(id).await?;
//! assert!(inbox.responses.get("confirm").is_some());
//!
//! // The function returns: the result is kept for the task's ttl.
//! let result = json!({"content": [{"type": "text", "text": "Archived 3 posts."}]});
//! let result = result.as_object().cloned().unwrap_or_default();
//! let done = store.advance(id, TaskState::Completed(result), None).await?;
//! assert_eq!(done.status(), TaskStatus::Completed);
//! // tasks/get by anyone else finds nothing.
//! assert!(store.get(id, "mallory").await?.is_none());
//! # Ok(())
//! # }
//! ```

mod config;
mod error;
mod id;
pub(crate) mod limits;
mod memory;
mod record;
#[cfg(feature = "redis")]
mod redis_store;
mod timestamp;
mod watch;

pub use crate::protocol::TaskStatus;
pub use config::{DEFAULT_POLL_INTERVAL, DEFAULT_TASK_TTL, Tasks};
pub use error::TaskStoreError;
pub use id::TASK_ID_LEN;
pub use limits::{DEFAULT_MAX_TTL, DEFAULT_PER_OWNER, DEFAULT_TOTAL, TaskLimits};
pub use memory::MemoryTaskStore;
pub use record::{Inbox, Refusal, TaskRecord, TaskState, UpdateOutcome};
#[cfg(feature = "redis")]
pub use redis_store::{
    REDIS_TASKS_LEASE, REDIS_TASKS_PREFIX, REDIS_TASKS_TIMEOUT, RedisTaskStore,
    RedisTaskStoreBuilder, RedisTaskStoreError,
};
pub use timestamp::Timestamp;
pub use watch::{TaskWatch, Watchers};

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::protocol::{InputRequest, InputResponses};

/// What every [`TaskStore`] operation returns: a boxed future, so stores can be shared as
/// `Arc<dyn TaskStore>`.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, TaskStoreError>> + Send + 'a>>;

/// Where tasks live: what the tasks runtime needs of a store.
///
/// **Client side**, from any instance: [`create`](Self::create) (before `tools/call` is
/// answered), [`get`](Self::get) (`tasks/get`), [`update`](Self::update) (`tasks/update`),
/// [`cancel`](Self::cancel) (`tasks/cancel`). Each takes the caller's principal, and a task
/// of another owner is not found.
///
/// **Runner side**, on the instance that runs the task's function:
/// [`advance`](Self::advance) to the next status, [`watch`](Self::watch) and
/// [`take_inbox`](Self::take_inbox) to wait for answers and cancel requests, and, for a store
/// with a [`lease`](Self::lease), [`renew`](Self::renew) it while the function runs; every
/// instance [`sweep`](Self::sweep)s now and then to fail the tasks of runners that stopped.
///
/// The rules every store keeps, and the conformance tests check:
/// - ids are unguessable ([`TASK_ID_LEN`] characters of base64url, 192 random bits);
/// - `completed`, `failed` and `cancelled` are final: a transition out of them is refused,
///   and every transition moves `lastUpdatedAt` forward;
/// - each input request key is used for one request, and answered once, over the task's life,
///   even when two instances take answers to the same key at the same moment;
/// - a finished task is kept for its ttl, then forgotten; a running one is kept;
/// - [`TaskLimits`] bound how many tasks it holds.
pub trait TaskStore: Send + Sync + 'static {
    /// Makes a task for `owner`, `working`, kept `ttl` (at most the store's
    /// [`max_ttl`](TaskLimits::max_ttl)) after it finishes. When this returns, every
    /// instance's [`get`](Self::get) finds it. The task's runner is this store handle: with a
    /// [`lease`](Self::lease), it holds the lease from now.
    fn create<'a>(
        &'a self,
        owner: &'a str,
        ttl: Duration,
        poll_interval: Option<Duration>,
    ) -> StoreFuture<'a, TaskRecord>;

    /// The task `task_id` of `owner`: `None` if there is none, or if it is another owner's.
    fn get<'a>(&'a self, task_id: &'a str, owner: &'a str) -> StoreFuture<'a, Option<TaskRecord>>;

    /// Hands `responses` to the runner of task `task_id` of `owner` and wakes it, wherever it
    /// runs. Only answers to outstanding input requests are taken, each key once over the
    /// task's life; the others are refused one by one ([`UpdateOutcome::refused`]). When no
    /// request is left outstanding the task is `working` again.
    /// [`TaskStoreError::NotFound`] if there is no such task of this owner.
    fn update<'a>(
        &'a self,
        task_id: &'a str,
        owner: &'a str,
        responses: InputResponses,
    ) -> StoreFuture<'a, UpdateOutcome>;

    /// Records that `owner` asked to cancel task `task_id` and wakes its runner, which ends
    /// it; returns the task as it is now. A finished task stays as it is.
    /// [`TaskStoreError::NotFound`] if there is no such task of this owner.
    fn cancel<'a>(&'a self, task_id: &'a str, owner: &'a str) -> StoreFuture<'a, TaskRecord>;

    /// The runner moves task `task_id` to `state`, saying `status_message` about it (`None`
    /// clears the previous one), and gets the task back.
    ///
    /// Refused when the task is finished ([`TaskStoreError::Finished`]), when an
    /// `input_required` state asks nothing ([`TaskStoreError::NoInputRequests`]) or reuses a
    /// key for another request or an answered one ([`TaskStoreError::KeyReused`]). Asking
    /// again, unchanged, a request that is still unanswered is fine. A new state replaces
    /// the outstanding requests: those not asked again are no longer answerable.
    fn advance<'a>(
        &'a self,
        task_id: &'a str,
        state: TaskState,
        status_message: Option<String>,
    ) -> StoreFuture<'a, TaskRecord>;

    /// The runner takes the answers that arrived for task `task_id` since it last took them,
    /// and learns whether a cancel was requested. [`TaskStoreError::Finished`] if the task
    /// ended meanwhile (a sweeper failed it: its runner should stop).
    fn take_inbox<'a>(&'a self, task_id: &'a str) -> StoreFuture<'a, Inbox>;

    /// A watch on task `task_id`, woken when answers or a cancel request for it arrive
    /// through any instance. Make it before [`take_inbox`](Self::take_inbox) (see
    /// [`TaskWatch`]).
    fn watch(&self, task_id: &str) -> TaskWatch;

    /// How long a runner holds its tasks without renewing: `None` for a store whose tasks
    /// cannot outlive their runner (one process), so there is nothing to renew or sweep. A
    /// runtime renews about three times per lease.
    fn lease(&self) -> Option<Duration>;

    /// The runner renews its lease on `task_ids`, the tasks it still runs. Returns those it
    /// no longer holds (finished, failed by a sweeper, expired, unknown): their functions
    /// should stop.
    fn renew<'a>(&'a self, task_ids: &'a [String]) -> StoreFuture<'a, Vec<String>>;

    /// Fails every unfinished task whose runner's lease ran out (its runner stopped) with a
    /// -32603 error saying so, and returns their ids. Any instance may sweep, at any time;
    /// a store without a [`lease`](Self::lease) only drops its expired records.
    fn sweep(&self) -> StoreFuture<'_, Vec<String>>;
}

/// A completed task's result as a store keeps it: its JSON text.
pub(crate) fn result_json(result: &Map<String, Value>) -> Result<String, TaskStoreError> {
    serde_json::to_string(result).map_err(|e| TaskStoreError::Corrupt(format!("result: {e}")))
}

/// A completed task's result, read back from what [`result_json`] wrote.
pub(crate) fn result_of_json(text: &str) -> Result<Map<String, Value>, TaskStoreError> {
    serde_json::from_str(text).map_err(|e| TaskStoreError::Corrupt(format!("result: {e}")))
}

/// `request` as stored, and as compared when its key is asked again.
pub(crate) fn request_json(key: &str, request: &InputRequest) -> Result<String, TaskStoreError> {
    serde_json::to_string(request)
        .map_err(|e| TaskStoreError::Corrupt(format!("input request {key:?}: {e}")))
}
