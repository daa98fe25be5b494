//! Task status notifications on a 2026-07-28 listen (the tasks extension): which of the task
//! ids a listen asks for it is granted, and the `notifications/tasks` it is sent, each with
//! the task whole as its caller's `tasks/get` would show it at that moment.
//!
//! This layer has no task store: the tasks runtime, above it, registers a [`TaskReader`] with
//! its [`Extension`](super::Extension), and a server without one grants no task ids. Only the
//! task's id travels on the bus ([`Change::TaskStatus`](crate::push::Change::TaskStatus)), so
//! each listen reads the task as its own caller: a task is never shown to another owner, and a
//! large result is not copied to every instance.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::{Value, json};

use crate::boxed::BoxFuture;
use crate::protocol::{
    DetailedTask, McpError, RequestId, TASKS_EXTENSION, keys, notification_methods,
};

use super::context::Context;

/// How many task ids one `subscriptions/listen` may ask for. Each is one read of the task
/// store when the listen opens, and one more at each of its changes; a client that watches
/// more opens several listens (at most [`MAX_LISTENS`](super::MAX_LISTENS) per connection).
pub const MAX_LISTENED_TASKS: usize = 100;

/// Reads the task `task_id` as the caller of the context's request may see it: `None` when
/// that caller has no such task (none at all, or another owner's).
pub(crate) type TaskReader =
    Arc<dyn Fn(Context, String) -> BoxFuture<Result<Option<DetailedTask>, McpError>> + Send + Sync>;

/// The task ids a listen asks for, checked before it opens: none on a server without tasks;
/// each once, in the order asked.
pub(super) fn asked(
    reader: Option<&TaskReader>,
    ctx: &Context,
    asked: Option<Vec<String>>,
) -> Result<Vec<String>, McpError> {
    let asked = asked.unwrap_or_default();
    if reader.is_none() || asked.is_empty() {
        return Ok(Vec::new());
    }
    // Declared, not negotiated with this server: the tasks may be a mounted server's.
    if ctx.declared_extension(TASKS_EXTENSION).is_none() {
        return Err(McpError::missing_extension(
            "Task status notifications need the tasks extension, which the listen did not declare",
            TASKS_EXTENSION,
        ));
    }
    if asked.len() > MAX_LISTENED_TASKS {
        return Err(McpError::invalid_params(format!(
            "A listen may name at most {MAX_LISTENED_TASKS} tasks"
        )));
    }
    let mut seen = HashSet::new();
    Ok(asked
        .into_iter()
        .filter(|id| seen.insert(id.clone()))
        .collect())
}

/// The tasks one listen was granted, and the state of each it was last sent.
pub(super) struct ListenedTasks {
    reader: Option<TaskReader>,
    ctx: Context,
    /// The granted ids, in the order asked.
    granted: Vec<String>,
    /// `lastUpdatedAt` of the last notification sent, by task: every status change moves it
    /// forward, so a read that finds it unmoved has nothing new to tell.
    sent: HashMap<String, String>,
}

impl ListenedTasks {
    /// Reads each of `asked` as the listen's caller; those found are granted. Their tasks as
    /// read come back too: the listen sends each right after its acknowledgement, so that a
    /// client learns of a change made before it listened (say, a task that finished while
    /// the client was opening the listen).
    pub async fn grant(
        reader: Option<TaskReader>,
        ctx: Context,
        asked: Vec<String>,
    ) -> Result<(Self, Vec<DetailedTask>), McpError> {
        let mut tasks = Self {
            reader,
            ctx,
            granted: Vec::new(),
            sent: HashMap::new(),
        };
        let mut current = Vec::new();
        for task_id in asked {
            if let Some(task) = tasks.read(&task_id).await? {
                tasks.granted.push(task_id);
                current.push(task);
            }
        }
        Ok((tasks, current))
    }

    /// The ids granted, for the acknowledgement (`None` when there are none).
    pub fn granted(&self) -> Option<Vec<String>> {
        (!self.granted.is_empty()).then(|| self.granted.clone())
    }

    /// The notification a change of task `task_id` makes on this listen: none for a task it
    /// was not granted, one the store no longer holds, or a state it was already sent.
    pub async fn changed(&mut self, task_id: &str, subscription: &RequestId) -> Option<String> {
        if !self.granted.iter().any(|granted| granted == task_id) {
            return None;
        }
        match self.read(task_id).await {
            Ok(Some(task)) => self.line(task, subscription),
            Ok(None) => None,
            // The client may poll `tasks/get`; the next change reads again.
            Err(error) => {
                tracing::warn!(task = %task_id, %error, "could not read a task for its listeners");
                None
            }
        }
    }

    /// `notifications/tasks` with `task`, unless it is the state last sent.
    pub fn line(&mut self, task: DetailedTask, subscription: &RequestId) -> Option<String> {
        let (task_id, updated) = (&task.task.task_id, &task.task.last_updated_at);
        if self.sent.get(task_id) == Some(updated) {
            return None;
        }
        self.sent.insert(task_id.clone(), updated.clone());
        task_line(task, subscription)
    }

    async fn read(&self, task_id: &str) -> Result<Option<DetailedTask>, McpError> {
        match &self.reader {
            Some(reader) => reader(self.ctx.clone(), task_id.to_owned()).await,
            None => Ok(None),
        }
    }
}

fn task_line(task: DetailedTask, subscription: &RequestId) -> Option<String> {
    let Ok(Value::Object(mut params)) = serde_json::to_value(task) else {
        // Unreachable with the `DetailedTask` of today: it is an object of JSON.
        tracing::error!("a task does not serialize to an object; not sent to its listeners");
        return None;
    };
    params.insert(
        "_meta".to_owned(),
        json!({keys::SUBSCRIPTION_ID: subscription}),
    );
    let line = json!({"jsonrpc": "2.0", "method": notification_methods::TASKS, "params": params});
    Some(line.to_string())
}
