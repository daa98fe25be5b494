//! What the server's listens read of a task: the task as its owner's `tasks/get` shows it,
//! sent whole in `notifications/tasks`.

use std::sync::Arc;

use crate::server::{Context, TaskReader};

use super::{TaskRuntime, methods, store_error, wire};

impl TaskRuntime {
    /// Reads a task for a listen: `None` when the listen's caller has no such task.
    pub(super) fn reader(self: &Arc<Self>) -> TaskReader {
        let runtime = self.clone();
        Arc::new(move |ctx: Context, task_id: String| {
            let runtime = runtime.clone();
            Box::pin(async move {
                runtime.keep_up(&ctx);
                let owner = methods::owner(&ctx);
                match runtime.store().get(&task_id, &owner).await {
                    Ok(record) => Ok(record.map(wire::detailed)),
                    Err(error) => Err(store_error(error)),
                }
            })
        })
    }
}
