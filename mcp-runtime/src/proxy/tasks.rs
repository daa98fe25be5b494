//! Tasks passed through: a remote that answers a call with a task makes the proxy answer its
//! caller with a task of its own store, whose function follows the remote's task to its end.
//!
//! The proxy's tools run as tasks that ask before the task is made (`ask_before_task`): the
//! call goes to the remote first, with our caller's declaration of the tasks extension, and
//! only a remote task makes one here (a result or a round of questions is the call's own
//! answer). From there the proxy's task runtime does for our caller what it does for any
//! tool's task (its id, bound to the caller; `tasks/get`, `tasks/update`, `tasks/cancel`;
//! status notifications; its ttl), while the function polls the remote's task through our
//! `Client`. The remote's questions become the proxy task's `input_required` status, under
//! their keys; the answers the runtime gathers go to the remote with `tasks/update`. A task
//! ended here (cancelled, out of time) cancels the remote's.
//!
//! The remote's task id never reaches our caller: the remote sees only the proxy, so its ids
//! are bound to nobody, and a caller could reach another's task with one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::client::{Client, TaskWatch};
use crate::protocol::{
    CallToolResult, DetailedTask, InputRequiredResult, InputResponses, McpError, Outcome,
    TASKS_EXTENSION, Task, TaskIdParams, TaskStatus, UpdateTaskParams, keys, methods,
};
use crate::server::Context;

use super::{Remote, passed_through};

/// What a `requestState` the proxy's tool answers with starts with: the remote's own state
/// (handed to our caller, sealed), or where the proxy is in following a remote task (handed
/// only to the task runtime, which never lets it out of the process).
const REMOTE: char = 'r';
const FOLLOWING: char = 'f';

/// A `tools/call`'s `requestState`, as the proxy's tool reads it.
pub(super) enum ToolState {
    /// The remote's, for the next round of the call.
    Remote(String),
    /// Inside the proxy's task: the remote task followed.
    Following(Following),
}

/// A remote task being followed: its id, and the keys of the questions already put to our
/// caller (a remote shows a question until it has taken in the answer; the proxy's task asks
/// each key once).
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Following {
    task: String,
    asked: Vec<String>,
}

/// Opens the `requestState` of a call of the proxy's tool. Only the proxy made it (our caller's
/// comes sealed, the task runtime's never left the process), so another shape is a fault.
pub(super) fn open(state: Option<String>) -> Result<Option<ToolState>, McpError> {
    let Some(state) = state else {
        return Ok(None);
    };
    let malformed = || McpError::internal("The proxy's request state is malformed");
    if let Some(remote) = state.strip_prefix(REMOTE) {
        return Ok(Some(ToolState::Remote(remote.to_owned())));
    }
    let following = state.strip_prefix(FOLLOWING).ok_or_else(malformed)?;
    let following = serde_json::from_str(following).map_err(|_| malformed())?;
    Ok(Some(ToolState::Following(following)))
}

/// The remote's `requestState` as our caller gets it.
pub(super) fn remote_state(state: String) -> String {
    format!("{REMOTE}{state}")
}

/// The remote tasks the proxy follows, each with what tells its hold that the proxy saw it
/// end (and need not cancel it).
#[derive(Default)]
pub(super) struct Holds(Mutex<HashMap<String, CancellationToken>>);

impl Holds {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The remote task ended: its hold lets go without cancelling it.
    fn release(&self, task_id: &str) {
        if let Some(ended) = self.lock().remove(task_id) {
            ended.cancel();
        }
    }
}

/// The remote answered a call of `ctx`'s with `task`: the proxy's own task stands for it from
/// here (the runtime makes it and answers our caller), and this function, run in it, follows
/// the remote's to its end.
pub(super) async fn started(
    ctx: &Context,
    remote: &Arc<Remote>,
    task: Task,
) -> Result<Outcome<CallToolResult>, McpError> {
    if ctx.client_extension(TASKS_EXTENSION).is_none() {
        // Asked without the extension, the remote broke its rule; nobody would follow this.
        tracing::warn!(task = %task.task_id, "the proxied server answered with a task nobody asked for");
        let client = remote.client.clone();
        let meta = callers_capabilities(ctx)?;
        tokio::spawn(async move { cancel(&client, &task.task_id, meta).await });
        return Err(McpError::internal(
            "The proxied server answered with a task the caller cannot take",
        ));
    }
    ctx.enter_task_body().await;
    hold(ctx, remote, &task.task_id)?;
    let following = Following {
        task: task.task_id.clone(),
        asked: Vec::new(),
    };
    follow(ctx, remote, following, Some(&task)).await
}

/// The proxy's task, back with our caller's answers to the remote task's questions: they go
/// to the remote, and the following goes on.
pub(super) async fn resumed(
    ctx: &Context,
    remote: &Arc<Remote>,
    following: Following,
    answers: Option<InputResponses>,
) -> Result<Outcome<CallToolResult>, McpError> {
    if let Some(answers) = answers.filter(|a| !a.is_empty()) {
        let params = UpdateTaskParams {
            task_id: following.task.clone(),
            input_responses: answers,
        };
        let _ack: Value = remote
            .client
            .request(methods::TASKS_UPDATE, with_meta(&params, ctx)?)
            .await
            .map_err(passed_through)?;
    }
    follow(ctx, remote, following, None).await
}

/// Polls the remote task at the pace it asks for until it ends, or until it asks something
/// not yet put to our caller: those questions are the round's answer (the task runtime puts
/// them in the proxy task's status and calls back with the answers).
async fn follow(
    ctx: &Context,
    remote: &Arc<Remote>,
    mut following: Following,
    seed: Option<&Task>,
) -> Result<Outcome<CallToolResult>, McpError> {
    let mut watch = TaskWatch::start(seed).await;
    let id = following.task.clone();
    loop {
        let params = TaskIdParams {
            task_id: id.clone(),
        };
        let seen: DetailedTask = remote
            .client
            .request(methods::TASKS_GET, with_meta(&params, ctx)?)
            .await
            .map_err(passed_through)?;
        let changed = watch.observe(&seen.task);
        match seen.task.status {
            TaskStatus::Completed => {
                remote.holds.release(&id);
                let result = seen.result.unwrap_or_default();
                return serde_json::from_value(Value::Object(result))
                    .map(Outcome::Complete)
                    .map_err(|e| {
                        tracing::warn!(task = %id, error = %e, "the proxied server's task result is not a tool result");
                        McpError::internal("The proxied server's task ended with an unreadable result")
                    });
            }
            TaskStatus::Failed => {
                remote.holds.release(&id);
                return Err(seen.error.unwrap_or_else(|| {
                    McpError::internal("The proxied server's task failed without an error")
                }));
            }
            TaskStatus::Cancelled => {
                remote.holds.release(&id);
                return Err(McpError::internal("The proxied server cancelled the task"));
            }
            TaskStatus::InputRequired => {
                let new: Vec<_> = seen
                    .input_requests
                    .into_iter()
                    .flatten()
                    .filter(|(key, _)| !following.asked.contains(key))
                    .collect();
                if !new.is_empty() {
                    following
                        .asked
                        .extend(new.iter().map(|(key, _)| key.clone()));
                    let state = serde_json::to_string(&following)
                        .map_err(|e| McpError::internal(format!("Unserializable: {e}")))?;
                    let mut ask =
                        InputRequiredResult::new().with_state(format!("{FOLLOWING}{state}"));
                    ask.input_requests = Some(new.into_iter().collect());
                    return Ok(Outcome::InputRequired(ask));
                }
            }
            TaskStatus::Working => {}
        }
        if watch.expired() {
            remote.holds.release(&id);
            cancel(&remote.client, &id, callers_capabilities(ctx)?).await;
            return Err(McpError::internal(
                "The proxied server's task outlived its ttl",
            ));
        }
        watch.wait(&seen.task, changed).await;
    }
}

/// Holds remote task `task_id` for as long as the proxy's task runs: when that ends before
/// the remote's did (our caller cancelled it, its questions went unanswered for its ttl), the
/// remote's is cancelled.
fn hold(ctx: &Context, remote: &Arc<Remote>, task_id: &str) -> Result<(), McpError> {
    let ended = CancellationToken::new();
    remote
        .holds
        .lock()
        .insert(task_id.to_owned(), ended.clone());
    let meta = callers_capabilities(ctx)?;
    let (ctx, remote, task_id) = (ctx.clone(), Arc::downgrade(remote), task_id.to_owned());
    tokio::spawn(async move {
        tokio::select! {
            () = ended.cancelled() => {}
            // The runtime cancels the task's context however the task ends.
            () = ctx.cancelled() => {
                let Some(remote) = remote.upgrade() else { return };
                if remote.holds.lock().remove(&task_id).is_some() {
                    cancel(&remote.client, &task_id, meta).await;
                }
            }
        }
    });
    Ok(())
}

/// `tasks/cancel` to the remote, for a task nobody here follows any more; a failure is only
/// logged (the remote's ttl ends the task anyway).
async fn cancel(client: &Client, task_id: &str, meta: Value) {
    let mut params = Map::new();
    params.insert("taskId".into(), Value::String(task_id.to_owned()));
    params.insert("_meta".into(), meta);
    let ack: Result<Value, _> = client
        .request(methods::TASKS_CANCEL, Value::Object(params))
        .await;
    if let Err(error) = ack {
        tracing::warn!(task = %task_id, %error, "could not cancel the proxied server's task");
    }
}

/// `params` with our caller's capabilities in `_meta`: the remote's tasks methods ask for the
/// extension our caller declared (the proxy's own client may not declare it).
fn with_meta<P: Serialize>(params: &P, ctx: &Context) -> Result<Value, McpError> {
    let mut value = serde_json::to_value(params)
        .map_err(|e| McpError::internal(format!("Unserializable: {e}")))?;
    if let Value::Object(members) = &mut value {
        members.insert("_meta".into(), callers_capabilities(ctx)?);
    }
    Ok(value)
}

fn callers_capabilities(ctx: &Context) -> Result<Value, McpError> {
    let capabilities = serde_json::to_value(ctx.client_capabilities())
        .map_err(|e| McpError::internal(format!("Unserializable: {e}")))?;
    Ok(Value::Object(Map::from_iter([(
        keys::CLIENT_CAPABILITIES.to_owned(),
        capabilities,
    )])))
}
