//! Following a task to its end: `tasks/get` at the pace the task asks for, each input request
//! answered once over the task's life by the handlers that answer a round's, the answers sent
//! with `tasks/update`, and the end turned into what `tools/call` itself would have answered.
//!
//! Everything runs in the caller's future: dropping it stops the polling, and nothing is left
//! behind to ask the server again.

use std::collections::HashSet;

use serde::de::Error as _;
use serde_json::Value;

use crate::protocol::{
    CallToolResult, DetailedTask, InputRequest, InputRequests, McpError, Task, TaskStatus,
};

use super::answers::answer_all;
use super::task_pace::TaskWatch;
use super::{Client, ClientError};

impl Client {
    /// Polls task `task_id` until it ends, answering what it asks on the way. `seed` is the
    /// task as `tools/call` made it, when the call was made here.
    pub(super) async fn follow_task(
        &self,
        task_id: &str,
        seed: Option<&Task>,
    ) -> Result<CallToolResult, ClientError> {
        // A server shows a request until it has taken in the answer, and a key names one
        // request for the task's whole life: a key answered once is never answered again.
        let mut answered = HashSet::new();
        // Each `tasks/update` is a round, bounded as a call's rounds are: a server that asks
        // something new on every poll would otherwise call the handlers for ever.
        let mut rounds = 0;
        let mut watch = TaskWatch::start(seed).await;
        loop {
            let seen = self.get_task(task_id).await?;
            let task = &seen.task;
            let mut changed = watch.observe(task);
            tracing::debug!(task_id, status = %task.status, "polled a task");
            match task.status {
                TaskStatus::Completed => return completed(seen),
                TaskStatus::Failed => return Err(failed(seen)),
                TaskStatus::Cancelled => {
                    return Err(ClientError::TaskCancelled {
                        task_id: task_id.to_owned(),
                        message: seen.task.status_message,
                    });
                }
                TaskStatus::InputRequired => {
                    let requests = seen.input_requests.as_ref();
                    changed |= self
                        .answer_new(task_id, requests, &mut answered, &mut rounds)
                        .await?;
                }
                TaskStatus::Working => {}
            }
            if watch.expired() {
                return Err(ClientError::TaskExpired {
                    task_id: task_id.to_owned(),
                    ttl_ms: task.ttl_ms.unwrap_or_default(),
                });
            }
            watch.wait(task, changed).await;
        }
    }

    /// Answers the requests of `requests` not answered before, all at once as a round's, and
    /// sends the answers with `tasks/update`; whether there was anything to send. More rounds
    /// than [`ClientBuilder::max_rounds`](super::ClientBuilder::max_rounds) is
    /// [`ClientError::TooManyRounds`].
    async fn answer_new(
        &self,
        task_id: &str,
        requests: Option<&InputRequests>,
        answered: &mut HashSet<String>,
        rounds: &mut u32,
    ) -> Result<bool, ClientError> {
        let new: Vec<(&str, &InputRequest)> = requests
            .into_iter()
            .flatten()
            .filter(|(key, _)| !answered.contains(key.as_str()))
            .map(|(key, request)| (key.as_str(), request))
            .collect();
        if new.is_empty() {
            return Ok(false);
        }
        let max = self.inner.max_rounds;
        *rounds += 1;
        if *rounds > max {
            return Err(ClientError::TooManyRounds { max });
        }
        let responses = answer_all(&self.inner.callbacks, new.iter().copied()).await?;
        self.update_task(task_id, responses).await?;
        answered.extend(new.into_iter().map(|(key, _)| key.to_owned()));
        Ok(true)
    }
}

/// A completed task's result, as `tools/call` would have answered it.
fn completed(seen: DetailedTask) -> Result<CallToolResult, ClientError> {
    let result = seen.result.ok_or_else(|| {
        serde_json::Error::custom(format!(
            "task {} completed without its result",
            seen.task.task_id
        ))
    })?;
    Ok(serde_json::from_value(Value::Object(result))?)
}

/// A failed task's JSON-RPC error, as `tools/call` would have answered it.
fn failed(seen: DetailedTask) -> ClientError {
    let error = seen.error.unwrap_or_else(|| {
        let why = seen.task.status_message;
        McpError::internal(why.unwrap_or_else(|| "The task failed without an error".to_owned()))
    });
    ClientError::Rpc(error)
}
