//! The task store of one process: a map behind a lock, finished tasks forgotten lazily when
//! their ttl is up.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::future::ready;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::Map;

use super::id::{is_task_id, new_task_id};
use super::limits::millis;
use super::{
    Inbox, Refusal, StoreFuture, TaskLimits, TaskRecord, TaskState, TaskStore, TaskStoreError,
    TaskWatch, Timestamp, UpdateOutcome, Watchers, request_json, result_json, result_of_json,
};
use crate::protocol::InputResponses;

/// The in-process [`TaskStore`]: tasks live as long as the process, and only its instance
/// answers for them. The default.
///
/// Every operation takes one short lock and never waits on anything else. A finished task is
/// forgotten its ttl after it finished, at the first operation after that; the
/// [`TaskLimits`] bound how many tasks are held meanwhile. There is no lease: a task's runner
/// is in this process, which the task does not outlive.
///
/// Clones share the tasks.
///
/// ```
/// use std::time::Duration;
/// use mcp::tasks::{MemoryTaskStore, TaskStatus, TaskStore};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mcp::tasks::TaskStoreError> {
/// let store = MemoryTaskStore::new();
/// let task = store.create("alice", Duration::from_secs(60), Some(Duration::from_secs(1))).await?;
/// assert_eq!(task.status(), TaskStatus::Working);
/// assert_eq!(store.get(&task.task_id, "alice").await?, Some(task));
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct MemoryTaskStore {
    shared: Arc<Shared>,
}

struct Shared {
    tasks: Mutex<Tasks>,
    watchers: Arc<Watchers>,
    limits: TaskLimits,
}

#[derive(Default)]
struct Tasks {
    by_id: HashMap<String, Entry>,
    per_owner: HashMap<String, usize>,
    /// Finished tasks by the moment they expire (Unix milliseconds).
    expiries: BTreeSet<(u64, String)>,
}

struct Entry {
    /// The task. Once it is completed, its state holds an empty map and its result is
    /// [`result`](Self::result).
    record: TaskRecord,
    /// A completed task's result as JSON text, kept for the task's ttl: as a `Value` tree the
    /// smallest tool result takes about 1.5 KB (a `BTreeMap` node per object), as text a few
    /// dozen bytes. It is read back when the task is.
    result: Option<Box<str>>,
    /// Every input request key the task used, and what became of it.
    keys: HashMap<String, Key>,
    /// Answers not yet taken by the runner.
    inbox: InputResponses,
}

enum Key {
    /// Asked, not answered: the request, as JSON.
    Asked(String),
    Answered,
}

impl MemoryTaskStore {
    /// A store with the default [`TaskLimits`].
    pub fn new() -> Self {
        Self::with_limits(TaskLimits::default())
    }

    /// A store bounded by `limits`.
    pub fn with_limits(limits: TaskLimits) -> Self {
        Self {
            shared: Arc::new(Shared {
                tasks: Mutex::default(),
                watchers: Watchers::new(),
                limits,
            }),
        }
    }

    /// The tasks held now, after forgetting the expired ones.
    pub fn len(&self) -> usize {
        self.tasks().by_id.len()
    }

    /// Whether no task is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The tasks, with those whose ttl is up forgotten.
    fn tasks(&self) -> MutexGuard<'_, Tasks> {
        // Each operation checks before it changes anything: a panic cannot leave a task
        // half-changed.
        let mut tasks = self.shared.tasks.lock().unwrap_or_else(|e| e.into_inner());
        tasks.forget_expired(Timestamp::now().unix_millis());
        tasks
    }

    fn create_now(
        &self,
        owner: &str,
        ttl: Duration,
        poll_interval: Option<Duration>,
    ) -> Result<TaskRecord, TaskStoreError> {
        let limits = &self.shared.limits;
        let mut tasks = self.tasks();
        // The empty owner is everyone unauthenticated: only the total bounds it.
        if !owner.is_empty() && tasks.per_owner.get(owner).copied().unwrap_or(0) >= limits.per_owner
        {
            return Err(TaskStoreError::OwnerLimit {
                limit: limits.per_owner,
            });
        }
        if tasks.by_id.len() >= limits.total {
            return Err(TaskStoreError::StoreFull {
                limit: limits.total,
            });
        }
        let now = Timestamp::now();
        let record = TaskRecord {
            task_id: new_task_id(),
            owner: owner.to_owned(),
            state: TaskState::Working,
            status_message: None,
            created_at: now,
            last_updated_at: now,
            ttl: limits.ttl(ttl),
            poll_interval: poll_interval.map(|p| Duration::from_millis(millis(p))),
            cancel_requested: false,
        };
        *tasks.per_owner.entry(owner.to_owned()).or_default() += 1;
        tasks.by_id.insert(
            record.task_id.clone(),
            Entry {
                record: record.clone(),
                result: None,
                keys: HashMap::new(),
                inbox: InputResponses::new(),
            },
        );
        Ok(record)
    }

    fn get_now(&self, id: &str, owner: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        if !is_task_id(id) {
            return Ok(None);
        }
        let tasks = self.tasks();
        tasks.owned(id, owner).map(Entry::read).transpose()
    }

    fn update_now(
        &self,
        id: &str,
        owner: &str,
        responses: InputResponses,
    ) -> Result<UpdateOutcome, TaskStoreError> {
        let mut tasks = self.tasks();
        let entry = tasks.owned_mut(id, owner).ok_or(TaskStoreError::NotFound)?;
        let mut outcome = UpdateOutcome::default();
        for (key, answer) in responses.0 {
            let outstanding = match &mut entry.record.state {
                TaskState::InputRequired(requests) => requests.remove(&key).is_some(),
                _ => false,
            };
            if outstanding {
                entry.keys.insert(key.clone(), Key::Answered);
                entry.inbox.0.insert(key.clone(), answer);
                outcome.accepted.push(key);
            } else if matches!(entry.keys.get(&key), Some(Key::Answered)) {
                outcome.refused.push((key, Refusal::AlreadyAnswered));
            } else {
                outcome.refused.push((key, Refusal::NotOutstanding));
            }
        }
        if outcome.accepted.is_empty() {
            return Ok(outcome);
        }
        if matches!(&entry.record.state, TaskState::InputRequired(left) if left.is_empty()) {
            entry.record.state = TaskState::Working;
            entry.record.last_updated_at = next_update(entry.record.last_updated_at);
        }
        drop(tasks);
        self.shared.watchers.wake(id);
        Ok(outcome)
    }

    fn cancel_now(&self, id: &str, owner: &str) -> Result<TaskRecord, TaskStoreError> {
        let mut tasks = self.tasks();
        let entry = tasks.owned_mut(id, owner).ok_or(TaskStoreError::NotFound)?;
        if entry.record.status().is_terminal() {
            return entry.read();
        }
        entry.record.cancel_requested = true;
        let record = entry.record.clone();
        drop(tasks);
        self.shared.watchers.wake(id);
        Ok(record)
    }

    fn advance_now(
        &self,
        id: &str,
        state: TaskState,
        status_message: Option<String>,
    ) -> Result<TaskRecord, TaskStoreError> {
        let mut tasks = self.tasks();
        let entry = tasks.by_id.get_mut(id).ok_or(TaskStoreError::NotFound)?;
        let current = entry.record.status();
        if current.is_terminal() {
            return Err(TaskStoreError::Finished(current));
        }
        if let TaskState::InputRequired(requests) = &state {
            if requests.is_empty() {
                return Err(TaskStoreError::NoInputRequests);
            }
            let mut asked = Vec::with_capacity(requests.len());
            for (key, request) in requests {
                let json = request_json(key, request)?;
                match entry.keys.get(key) {
                    Some(Key::Answered) => return Err(TaskStoreError::KeyReused(key.clone())),
                    Some(Key::Asked(before)) if *before != json => {
                        return Err(TaskStoreError::KeyReused(key.clone()));
                    }
                    _ => asked.push((key.clone(), json)),
                }
            }
            for (key, json) in asked {
                entry.keys.insert(key, Key::Asked(json));
            }
        }
        let finished = state.status().is_terminal();
        let result = match &state {
            TaskState::Completed(members) => Some(result_json(members)?.into_boxed_str()),
            _ => None,
        };
        entry.record.status_message = status_message;
        entry.record.last_updated_at = next_update(entry.record.last_updated_at);
        let record = match result {
            // Kept as text (see `Entry::result`); the record answered carries it as given.
            Some(text) => {
                entry.result = Some(text);
                entry.record.state = TaskState::Completed(Map::new());
                TaskRecord {
                    state,
                    ..entry.record.clone()
                }
            }
            None => {
                entry.record.state = state;
                entry.record.clone()
            }
        };
        if finished {
            entry.keys = HashMap::new();
            entry.inbox = InputResponses::new();
            // From the clock, not from lastUpdatedAt, which may run a little ahead of it.
            let expires = Timestamp::now()
                .unix_millis()
                .saturating_add(millis(record.ttl));
            tasks.expiries.insert((expires, id.to_owned()));
        }
        Ok(record)
    }

    fn take_inbox_now(&self, id: &str) -> Result<Inbox, TaskStoreError> {
        let mut tasks = self.tasks();
        let entry = tasks.by_id.get_mut(id).ok_or(TaskStoreError::NotFound)?;
        let status = entry.record.status();
        if status.is_terminal() {
            return Err(TaskStoreError::Finished(status));
        }
        Ok(Inbox {
            responses: std::mem::take(&mut entry.inbox),
            cancel_requested: entry.record.cancel_requested,
        })
    }

    fn not_held(&self, ids: &[String]) -> Vec<String> {
        let tasks = self.tasks();
        ids.iter()
            .filter(|id| {
                tasks
                    .by_id
                    .get(id.as_str())
                    .is_none_or(|entry| entry.record.status().is_terminal())
            })
            .cloned()
            .collect()
    }
}

impl Entry {
    /// The task as the store's callers see it, its result read back from its text.
    fn read(&self) -> Result<TaskRecord, TaskStoreError> {
        let mut record = self.record.clone();
        if let Some(text) = &self.result {
            record.state = TaskState::Completed(result_of_json(text)?);
        }
        Ok(record)
    }
}

impl Tasks {
    fn forget_expired(&mut self, now: u64) {
        while let Some(first) = self.expiries.first() {
            if first.0 > now {
                break;
            }
            let Some((_, id)) = self.expiries.pop_first() else {
                break;
            };
            let Some(entry) = self.by_id.remove(&id) else {
                continue;
            };
            let owner = entry.record.owner;
            if let Some(count) = self.per_owner.get_mut(&owner) {
                *count -= 1;
                if *count == 0 {
                    self.per_owner.remove(&owner);
                }
            }
        }
    }

    fn owned(&self, id: &str, owner: &str) -> Option<&Entry> {
        self.by_id
            .get(id)
            .filter(|entry| entry.record.owner == owner)
    }

    fn owned_mut(&mut self, id: &str, owner: &str) -> Option<&mut Entry> {
        self.by_id
            .get_mut(id)
            .filter(|entry| entry.record.owner == owner)
    }
}

/// When a change made now, to a task last changed at `last`, says it happened: now, but
/// always after `last`, so that every change moves `lastUpdatedAt` forward even within one
/// millisecond or when the clock steps back.
fn next_update(last: Timestamp) -> Timestamp {
    Timestamp::now().max(Timestamp::from_unix_millis(last.unix_millis() + 1))
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for MemoryTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryTaskStore")
            .field("tasks", &self.len())
            .field("limits", &self.shared.limits)
            .finish()
    }
}

impl TaskStore for MemoryTaskStore {
    fn create<'a>(
        &'a self,
        owner: &'a str,
        ttl: Duration,
        poll_interval: Option<Duration>,
    ) -> StoreFuture<'a, TaskRecord> {
        Box::pin(ready(self.create_now(owner, ttl, poll_interval)))
    }

    fn get<'a>(&'a self, task_id: &'a str, owner: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(ready(self.get_now(task_id, owner)))
    }

    fn update<'a>(
        &'a self,
        task_id: &'a str,
        owner: &'a str,
        responses: InputResponses,
    ) -> StoreFuture<'a, UpdateOutcome> {
        Box::pin(ready(self.update_now(task_id, owner, responses)))
    }

    fn cancel<'a>(&'a self, task_id: &'a str, owner: &'a str) -> StoreFuture<'a, TaskRecord> {
        Box::pin(ready(self.cancel_now(task_id, owner)))
    }

    fn advance<'a>(
        &'a self,
        task_id: &'a str,
        state: TaskState,
        status_message: Option<String>,
    ) -> StoreFuture<'a, TaskRecord> {
        Box::pin(ready(self.advance_now(task_id, state, status_message)))
    }

    fn take_inbox<'a>(&'a self, task_id: &'a str) -> StoreFuture<'a, Inbox> {
        Box::pin(ready(self.take_inbox_now(task_id)))
    }

    fn watch(&self, task_id: &str) -> TaskWatch {
        self.shared.watchers.watch(task_id)
    }

    fn lease(&self) -> Option<Duration> {
        None
    }

    fn renew<'a>(&'a self, task_ids: &'a [String]) -> StoreFuture<'a, Vec<String>> {
        Box::pin(ready(Ok(self.not_held(task_ids))))
    }

    fn sweep(&self) -> StoreFuture<'_, Vec<String>> {
        // Looking at the tasks forgets the expired ones; nothing else can be stale here.
        drop(self.tasks());
        Box::pin(ready(Ok(Vec::new())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(per_owner: usize, total: usize) -> TaskLimits {
        TaskLimits {
            per_owner,
            total,
            ..TaskLimits::default()
        }
    }

    async fn task(store: &MemoryTaskStore, owner: &str, ttl: Duration) -> String {
        match store.create(owner, ttl, None).await {
            Ok(task) => task.task_id,
            Err(e) => panic!("{e}"),
        }
    }

    async fn finish(store: &MemoryTaskStore, id: &str) {
        let done = store.advance(id, TaskState::Cancelled, None).await;
        assert!(done.is_ok(), "{done:?}");
    }

    #[tokio::test]
    async fn an_expired_task_gives_its_owner_room_again_and_is_forgotten_entirely() {
        let store = MemoryTaskStore::with_limits(limits(2, 10));
        let ttl = Duration::from_millis(30);
        let a = task(&store, "alice", ttl).await;
        task(&store, "alice", ttl).await;
        assert!(matches!(
            store.create("alice", ttl, None).await,
            Err(TaskStoreError::OwnerLimit { limit: 2 })
        ));
        finish(&store, &a).await;
        assert_eq!(store.len(), 2, "kept for its ttl");
        tokio::time::sleep(Duration::from_millis(60)).await;
        task(&store, "alice", ttl).await;
        assert_eq!(store.len(), 2);
        let tasks = store.tasks();
        assert_eq!(tasks.per_owner.get("alice"), Some(&2));
        assert!(tasks.expiries.is_empty());
        assert!(!tasks.by_id.contains_key(&a));
    }

    #[tokio::test]
    async fn the_last_task_of_an_owner_leaves_no_count_behind() {
        let store = MemoryTaskStore::new();
        let id = task(&store, "bob", Duration::ZERO).await;
        finish(&store, &id).await;
        assert!(store.is_empty());
        assert!(store.tasks().per_owner.is_empty());
    }

    #[tokio::test]
    async fn without_a_lease_renewing_reports_only_what_ended() {
        let store = MemoryTaskStore::new();
        assert_eq!(store.lease(), None);
        let ttl = Duration::from_secs(60);
        let running = task(&store, "a", ttl).await;
        let ended = task(&store, "a", ttl).await;
        finish(&store, &ended).await;
        let ids = [running, ended.clone(), "unknown".to_owned()];
        assert_eq!(
            store.renew(&ids).await.ok(),
            Some(vec![ended, "unknown".to_owned()])
        );
        assert_eq!(store.sweep().await.ok(), Some(Vec::new()));
    }

    #[test]
    fn updates_move_forward_within_one_millisecond_and_when_the_clock_steps_back() {
        let now = Timestamp::now();
        assert!(next_update(now) > now);
        let ahead = Timestamp::from_unix_millis(now.unix_millis() + 60_000);
        assert_eq!(
            next_update(ahead),
            Timestamp::from_unix_millis(ahead.unix_millis() + 1)
        );
    }
}
