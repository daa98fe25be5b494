//! `tasks/get`, `tasks/update` and `tasks/cancel`: served from the store, for the caller's own
//! tasks only, on any instance that shares the store.

use std::sync::Arc;

use crate::protocol::{
    DetailedTask, JsonObject, McpError, TASK_RESULT_TYPE, TASKS_EXTENSION, TaskIdParams,
    UpdateTaskParams, methods,
};
use crate::push::Change;
use crate::server::{Context, Extension};

use super::{TaskRuntime, store_error, wire};

impl TaskRuntime {
    /// The tasks extension as the server registers it: its three methods, and `resultType:
    /// "task"` on `tools/call`.
    pub(crate) fn extension(self: &Arc<Self>) -> Extension {
        let get = self.clone();
        let update = self.clone();
        let cancel = self.clone();
        Extension::new(TASKS_EXTENSION)
            .result_type(TASK_RESULT_TYPE, [methods::TOOLS_CALL])
            .task_reader(self.reader())
            .method(methods::TASKS_GET, move |ctx: Context, p: TaskIdParams| {
                let runtime = get.clone();
                async move { runtime.get(&ctx, &p.task_id).await }
            })
            .method(
                methods::TASKS_UPDATE,
                move |ctx: Context, p: UpdateTaskParams| {
                    let runtime = update.clone();
                    async move { runtime.update(&ctx, p).await }
                },
            )
            .method(
                methods::TASKS_CANCEL,
                move |ctx: Context, p: TaskIdParams| {
                    let runtime = cancel.clone();
                    async move { runtime.cancel(&ctx, &p.task_id).await }
                },
            )
            // Over HTTP, `Mcp-Name` carries the task id, so a balancer can route by it.
            .routing_param(methods::TASKS_GET, "taskId")
            .routing_param(methods::TASKS_UPDATE, "taskId")
            .routing_param(methods::TASKS_CANCEL, "taskId")
    }

    async fn get(self: &Arc<Self>, ctx: &Context, task_id: &str) -> Result<DetailedTask, McpError> {
        self.keep_up(ctx);
        let owner = owner(ctx);
        match self.store().get(task_id, &owner).await {
            Ok(Some(record)) => Ok(wire::detailed(record)),
            Ok(None) => Err(store_error(crate::tasks::TaskStoreError::NotFound)),
            Err(error) => Err(store_error(error)),
        }
    }

    /// Answers under keys the task is not waiting on are dropped, as the spec has it: the
    /// acknowledgement says only that the task exists.
    async fn update(
        self: &Arc<Self>,
        ctx: &Context,
        params: UpdateTaskParams,
    ) -> Result<JsonObject, McpError> {
        self.keep_up(ctx);
        let owner = owner(ctx);
        let outcome = self
            .store()
            .update(&params.task_id, &owner, params.input_responses)
            .await
            .map_err(store_error)?;
        if !outcome.refused.is_empty() {
            tracing::debug!(task = %params.task_id, refused = ?outcome.refused, "ignored answers");
        }
        if !outcome.accepted.is_empty() {
            // Working again once every question is answered; listens that see no new status
            // send nothing.
            ctx.server().notify(Change::TaskStatus {
                task_id: params.task_id,
            });
        }
        Ok(JsonObject::new())
    }

    /// A finished task stays as it is, and the acknowledgement is the same.
    async fn cancel(
        self: &Arc<Self>,
        ctx: &Context,
        task_id: &str,
    ) -> Result<JsonObject, McpError> {
        self.keep_up(ctx);
        let owner = owner(ctx);
        self.store()
            .cancel(task_id, &owner)
            .await
            .map_err(store_error)?;
        Ok(JsonObject::new())
    }
}

/// Whose tasks a request may see: the verified caller, as request states are bound to it; an
/// unauthenticated caller's tasks are shared by every unauthenticated caller, each reached
/// only through its unguessable id.
pub(super) fn owner(ctx: &Context) -> String {
    crate::state::default_principal(ctx.identity()).unwrap_or_default()
}
