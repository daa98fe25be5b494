//! Tasks through mounts. A mounted server's task ids read `{prefix}:{id}` in its parent
//! ([`Prefix::task_id`]) wherever they travel: in the `CreateTaskResult` of the call that made
//! the task, in `tasks/get`'s answer, in the status changes on the bus, in the listens. So
//! `tasks/get`, `tasks/update` and `tasks/cancel` reach the server that made the task, with the
//! id its own store knows, and a listen on the parent reads the task there. The parent's own
//! tasks keep their ids.
//!
//! An id that names no mounted server serving tasks is the parent's to answer: its own store's
//! "not found", or, on a parent without tasks of its own, the very same error. A mounted
//! server's bare id (without its prefix) is such an id: a task is only ever reached under the
//! name its caller was given.

use std::sync::Arc;

use serde_json::value::RawValue;

use crate::protocol::{
    DetailedTask, Generation, McpError, TASKS_EXTENSION, TaskIdParams, decode_params, methods,
};
use crate::server::{Context, Server, TaskReader};

use super::Mount;

/// The methods that name a task by `params.taskId`: routed by the id's owner, and the only
/// extension methods two mounted servers (or a server and its mounts) may both serve.
pub(crate) const TASK_METHODS: &[&str] = &[
    methods::TASKS_GET,
    methods::TASKS_UPDATE,
    methods::TASKS_CANCEL,
];

impl Server {
    /// Whether it or a server mounted in it, at any depth, serves tasks.
    pub(super) fn serves_tasks(&self) -> bool {
        self.inner.extensions.has(TASKS_EXTENSION)
            || self.mounts().iter().any(|m| m.server.serves_tasks())
    }

    /// The mount serving tasks whose prefix `task_id` carries, with the id it knows.
    pub(super) fn task_owner<'a>(&self, task_id: &'a str) -> Option<(&Mount, &'a str)> {
        self.mounts().iter().find_map(|m| {
            let inner = m.prefix.strip_task_id(task_id)?;
            m.server.serves_tasks().then_some((m, inner))
        })
    }

    /// The refusal of a task method that no handler of this server and no mount will take:
    /// on a server without tasks of its own but with mounts that have some, an id none of
    /// them made. Refused as the tasks extension refuses it (the version, the declaration,
    /// the params, then "not found"). `None` for every other request.
    pub(in crate::server) fn unowned_task(
        &self,
        method: &str,
        params: Option<&RawValue>,
        ctx: &Context,
    ) -> Option<McpError> {
        if !TASK_METHODS.contains(&method)
            || self.inner.extensions.method(method).is_some()
            || !self.serves_tasks()
        {
            return None;
        }
        if ctx.generation() != Generation::V2026_07_28 {
            return Some(McpError::method_not_found(method));
        }
        if ctx.declared_extension(TASKS_EXTENSION).is_none() {
            return Some(crate::server::extension::undeclared(
                method,
                TASKS_EXTENSION,
            ));
        }
        Some(match decode_params::<TaskIdParams>(params) {
            Err(error) => error,
            Ok(_) => crate::server::tasks::not_found(),
        })
    }

    /// How a listen on this server reads the tasks it asks for: its own by their ids, its
    /// mounts' by the ids it shows them under, each in the server that made it.
    pub(in crate::server) fn task_reader(&self) -> Option<TaskReader> {
        let own = self.inner.extensions.task_reader().cloned();
        if !self.mounts().iter().any(|m| m.server.serves_tasks()) {
            return own;
        }
        let server = self.clone();
        Some(Arc::new(move |ctx: Context, task_id: String| {
            let (server, own) = (server.clone(), own.clone());
            Box::pin(async move { server.read_task(own.as_ref(), ctx, task_id).await })
        }))
    }

    async fn read_task(
        &self,
        own: Option<&TaskReader>,
        ctx: Context,
        task_id: String,
    ) -> Result<Option<DetailedTask>, McpError> {
        let Some((mount, inner)) = self.task_owner(&task_id) else {
            return match own {
                Some(read) => read(ctx, task_id).await,
                None => Ok(None),
            };
        };
        let Some(read) = mount.server.task_reader() else {
            return Ok(None);
        };
        // Read as the mounted server's own request would be: its upkeep, if this starts it,
        // announces on its bus, which names its tasks as the parent does.
        let task = read(ctx.on_server(&mount.server), inner.to_owned()).await?;
        Ok(task.map(|mut task| {
            task.task.task_id = task_id;
            task
        }))
    }
}
