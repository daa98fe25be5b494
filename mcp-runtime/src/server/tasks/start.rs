//! A `tools/call` made into a task: the task is in the store before the call is answered with
//! it, and its function runs on.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::protocol::{
    CallToolParams, CallToolResult, ExtensionResult, McpError, TASK_RESULT_TYPE,
};
use crate::server::{BodyGateKeeper, Context, ExtendedOutcome, ToolRun};
use crate::tasks::TaskRecord;

use super::runner::{FirstRound, Runner};
use super::{TaskRuntime, methods, store_error, wire};

impl TaskRuntime {
    /// Answers a call of `run`'s tool, by a client that declared the tasks extension, with a
    /// task. A tool that asks before its task (`ask_before_task`) first runs its rounds on
    /// the call itself: the task is made once every Resolve parameter is known, and the body
    /// runs in it.
    pub(crate) async fn start(
        self: &Arc<Self>,
        ctx: Context,
        params: CallToolParams,
        run: ToolRun,
    ) -> Result<ExtendedOutcome<CallToolResult>, McpError> {
        self.keep_up(&ctx);
        let owner = methods::owner(&ctx);
        let stop = CancellationToken::new();
        if !run.ask_before_task {
            let (task_ctx, _) = ctx.for_task(stop.clone(), false);
            let record = self.create(&owner).await?;
            let answer = created(&record);
            self.spawn(record, task_ctx, run, stop, FirstRound::Call(params));
            return answer;
        }
        let (task_ctx, keeper) = ctx.for_task(stop.clone(), true);
        let Some(BodyGateKeeper { mut reached, go }) = keeper else {
            return Err(McpError::internal("Internal error"));
        };
        let mut call = run.invoke(task_ctx.clone(), params.clone());
        tokio::select! {
            // A round that asks, or a failure: the call's own answer.
            outcome = &mut call => return Ok(run.finish(outcome?).into()),
            body = &mut reached => {
                if body.is_err() {
                    // The wrapper never reached the gate and dropped it: it has finished.
                    return Ok(run.finish(call.await?).into());
                }
            }
        }
        let record = self.create(&owner).await?;
        let answer = created(&record);
        // The body goes on once its runner polls it; it runs in the task from here.
        let _ = go.send(());
        self.spawn(record, task_ctx, run, stop, FirstRound::Body(call, params));
        answer
    }

    async fn create(&self, owner: &str) -> Result<TaskRecord, McpError> {
        let tasks = &self.tasks;
        self.store()
            .create(owner, tasks.task_ttl(), Some(tasks.task_poll_interval()))
            .await
            .map_err(store_error)
    }

    fn spawn(
        self: &Arc<Self>,
        record: TaskRecord,
        ctx: Context,
        run: ToolRun,
        stop: CancellationToken,
        first: FirstRound,
    ) {
        self.running().insert(record.task_id.clone(), stop.clone());
        let ttl = record.ttl;
        let runner = Runner::new(self.clone(), record.task_id, ctx, run, stop, ttl);
        tokio::spawn(runner.run(first));
    }
}

/// The call's answer: the task, as it was made.
fn created(record: &TaskRecord) -> Result<ExtendedOutcome<CallToolResult>, McpError> {
    let members = wire::members(&wire::task(record)).map_err(|e| {
        tracing::error!(error = %e, "a task does not serialize");
        McpError::internal("Internal error")
    })?;
    Ok(ExtendedOutcome::Extension(ExtensionResult::new(
        TASK_RESULT_TYPE,
        members,
    )))
}
