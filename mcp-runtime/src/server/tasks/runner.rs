//! A task's function run to its end: each round's questions become the task's
//! `input_required` status, the answers that `tasks/update` brings (through any instance) the
//! next round's `inputResponses`, and the last round's answer its result.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::boxed::BoxFuture;
use crate::protocol::{
    CallToolParams, CallToolResult, InputRequests, InputResponses, McpError, Outcome,
};
use crate::push::Change;
use crate::server::{Context, ToolRun};
use crate::tasks::{TaskState, TaskStoreError, TaskWatch};

use super::{TaskRuntime, wire};

/// A call's future, as a tool's function returns it.
type Call = BoxFuture<Result<Outcome<CallToolResult>, McpError>>;

/// How long a round that asked nothing waits before the next (a round that only carries
/// state, as a client would back off).
const STATE_ONLY_ROUND: Duration = Duration::from_millis(50);

/// Where the function starts.
pub(super) enum FirstRound {
    /// Called with the `tools/call`'s params.
    Call(CallToolParams),
    /// Already called and past its questions (`ask_before_task`): its body waits at the gate;
    /// the params are those of its last round.
    Body(Call, CallToolParams),
}

/// Why a runner stops before its function ends.
enum Stop {
    /// `tasks/cancel`: the task ends `cancelled`.
    Cancelled,
    /// The store no longer holds the task for this runner (a sweeper failed it, it expired,
    /// or the lease was lost): another instance or nobody speaks for it; nothing is written.
    Lost,
}

/// How the task ends.
enum End {
    State(TaskState, Option<String>),
    Lost,
}

impl From<Stop> for End {
    fn from(stop: Stop) -> Self {
        match stop {
            Stop::Cancelled => End::State(TaskState::Cancelled, None),
            Stop::Lost => End::Lost,
        }
    }
}

/// Aborts the function's own tokio task when the runner goes, so that a runner dropped with
/// its runtime leaves nothing running.
struct Function(JoinHandle<Result<Outcome<CallToolResult>, McpError>>);

impl Drop for Function {
    fn drop(&mut self) {
        self.0.abort();
    }
}

pub(super) struct Runner {
    runtime: Arc<TaskRuntime>,
    task_id: String,
    ctx: Context,
    run: ToolRun,
    /// Fired to stop the function: by the upkeep (lease lost) or here (cancel); its context
    /// sees it.
    stop: CancellationToken,
    watch: TaskWatch,
    /// When questions left unanswered end the task: its ttl after it was made (the spec's
    /// ttl counts from creation), so a client that never answers holds nothing for ever.
    answer_by: Instant,
}

impl Runner {
    pub(super) fn new(
        runtime: Arc<TaskRuntime>,
        task_id: String,
        ctx: Context,
        run: ToolRun,
        stop: CancellationToken,
        ttl: Duration,
    ) -> Self {
        // Made before anything is looked at, so that no answer or cancel is missed.
        let watch = runtime.store().watch(&task_id);
        Self {
            runtime,
            task_id,
            ctx,
            run,
            stop,
            watch,
            answer_by: Instant::now() + ttl,
        }
    }

    pub(super) async fn run(self, first: FirstRound) {
        let end = self.drive(first).await;
        if let End::State(state, message) = end {
            let status = state.status();
            if let Err(error) = self
                .runtime
                .store()
                .advance(&self.task_id, state, message)
                .await
            {
                match error {
                    TaskStoreError::Finished(_) | TaskStoreError::NotFound => {}
                    error => {
                        tracing::error!(task = %self.task_id, %status, %error, "could not record how a task ended");
                    }
                }
            } else {
                self.status_changed();
            }
        }
        self.runtime.running().remove(&self.task_id);
        // However it ended (answered, cancelled while it waited for answers, out of time), the
        // context the function ran with says so: what the function left watching it (a proxy's
        // hold on a remote task) lets go.
        self.stop.cancel();
    }

    /// Tells the listens granted the task, on every instance, that it has a new status.
    fn status_changed(&self) {
        self.ctx.server().notify(Change::TaskStatus {
            task_id: self.task_id.clone(),
        });
    }

    async fn drive(&self, first: FirstRound) -> End {
        // No first look at the inbox: the watch exists before the call is answered with the
        // task's id (`TaskRuntime::spawn` makes it), so nothing can be sent to the task before
        // it; a look here would be one more store round trip per task for nothing.
        let (mut call, mut params) = match first {
            FirstRound::Call(params) => (self.run.invoke(self.ctx.clone(), params.clone()), params),
            FirstRound::Body(call, params) => (call, params),
        };
        loop {
            let outcome = match self.finish_round(call).await {
                Ok(outcome) => outcome,
                Err(end) => return end,
            };
            let ask = match outcome {
                Ok(Outcome::Complete(result)) => return self.completed(result),
                Ok(Outcome::InputRequired(ask)) => ask,
                Err(error) => {
                    let message = Some(error.message.to_string());
                    return End::State(TaskState::Failed(error), message);
                }
            };
            let answers = match ask.input_requests {
                Some(questions) if !questions.is_empty() => match self.ask(questions).await {
                    Ok(answers) => Some(answers),
                    Err(end) => return end,
                },
                _ => {
                    tokio::time::sleep(STATE_ONLY_ROUND).await;
                    None
                }
            };
            params.input_responses = answers;
            params.request_state = ask.request_state;
            call = self.run.invoke(self.ctx.clone(), params.clone());
        }
    }

    /// Runs one round of the function, on a tokio task of its own (a panic there fails the
    /// task instead of the runner), until it returns or the task is stopped.
    async fn finish_round(
        &self,
        call: Call,
    ) -> Result<Result<Outcome<CallToolResult>, McpError>, End> {
        let mut function = Function(tokio::spawn(call));
        tokio::select! {
            joined = &mut function.0 => match joined {
                Ok(outcome) => Ok(outcome),
                Err(error) if error.is_panic() => {
                    tracing::error!(task = %self.task_id, "a task's function panicked");
                    let error = McpError::internal("The tool failed");
                    Err(End::State(TaskState::Failed(error), Some("The tool failed".into())))
                }
                Err(_) => Err(End::Lost),
            },
            stop = self.stopped() => {
                // Its context sees the cancellation, then its future is dropped.
                self.stop.cancel();
                drop(function);
                Err(stop.into())
            }
        }
    }

    fn completed(&self, result: CallToolResult) -> End {
        match wire::members(&self.run.finish_result(result)) {
            Ok(members) => End::State(TaskState::Completed(members), None),
            Err(error) => {
                tracing::error!(task = %self.task_id, %error, "a tool result does not serialize");
                let error = McpError::internal("Internal error");
                End::State(TaskState::Failed(error), None)
            }
        }
    }

    /// Puts the round's questions in the task's status and waits until every one is
    /// answered (the client may answer them over several `tasks/update`s).
    async fn ask(&self, questions: InputRequests) -> Result<InputResponses, End> {
        let keys: Vec<String> = questions.keys().cloned().collect();
        let state = TaskState::InputRequired(questions);
        match self
            .runtime
            .store()
            .advance(&self.task_id, state, None)
            .await
        {
            Ok(_) => self.status_changed(),
            Err(TaskStoreError::Finished(_) | TaskStoreError::NotFound) => return Err(End::Lost),
            Err(TaskStoreError::KeyReused(key)) => {
                tracing::error!(task = %self.task_id, %key, "a task asked again under a key it used before");
                let error = McpError::internal(format!(
                    "The tool asked again under the input key {key:?}, which a task uses once"
                ));
                return Err(End::State(TaskState::Failed(error), None));
            }
            Err(error) => {
                tracing::error!(task = %self.task_id, %error, "could not record a task's questions");
                let error = McpError::internal("The task store is unavailable");
                return Err(End::State(TaskState::Failed(error), None));
            }
        }
        let mut answers = InputResponses::new();
        while !keys.iter().all(|key| answers.0.contains_key(key)) {
            tokio::select! {
                () = self.stop.cancelled() => return Err(End::Lost),
                () = self.watch.changed() => {}
                () = tokio::time::sleep_until(self.answer_by) => {
                    tracing::info!(task = %self.task_id, "a task's questions went unanswered for its ttl");
                    let message = "The task's questions went unanswered for its ttl";
                    let error = McpError::internal(message);
                    return Err(End::State(TaskState::Failed(error), Some(message.into())));
                }
            }
            let responses = self.look().await.map_err(End::from)?;
            answers.0.extend(responses.0);
        }
        Ok(answers)
    }

    /// Resolves when the task must stop while its function runs.
    async fn stopped(&self) -> Stop {
        loop {
            tokio::select! {
                () = self.stop.cancelled() => return Stop::Lost,
                () = self.watch.changed() => {}
            }
            // Nothing is outstanding while the function runs: answers can only be refused.
            if let Err(stop) = self.look().await {
                return stop;
            }
        }
    }

    /// Takes what reached the task: its answers, or the reason to stop.
    async fn look(&self) -> Result<InputResponses, Stop> {
        match self.runtime.store().take_inbox(&self.task_id).await {
            Ok(inbox) if inbox.cancel_requested => Err(Stop::Cancelled),
            Ok(inbox) => Ok(inbox.responses),
            Err(TaskStoreError::Finished(_) | TaskStoreError::NotFound) => Err(Stop::Lost),
            Err(error) => {
                // The next wake looks again (a store that reconnects wakes every watch).
                tracing::warn!(task = %self.task_id, %error, "could not read a task's inbox");
                Ok(InputResponses::new())
            }
        }
    }
}
