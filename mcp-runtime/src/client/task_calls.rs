//! The tasks extension's methods, for an application that keeps a task's id and follows it
//! itself: look at a task (`tasks/get`), answer what it asks (`tasks/update`), cancel it
//! (`tasks/cancel`), or wait for its result from nothing but its id.
//!
//! They belong to 2026-07-28 and carry the tasks extension's declaration, as every request
//! does unless [`accept_tasks(false)`](super::ClientBuilder::accept_tasks) turned it off (a
//! server then refuses them with `-32021`).

use serde_json::Value;

use crate::protocol::{
    CallToolResult, DetailedTask, InputResponses, TaskIdParams, UpdateTaskParams, methods,
};

use super::{Client, ClientError};

impl Client {
    /// `tasks/get`: where task `task_id` is, with what its status carries (the requests it
    /// waits on, its result, its error). An unknown or expired task is the server's `-32602`.
    ///
    /// ```no_run
    /// use mcp::client::Client;
    /// use mcp::protocol::{Implementation, TaskStatus};
    /// use mcp::transport::http_client;
    ///
    /// # #[tokio::main] async fn main() -> Result<(), mcp::Error> {
    /// let client = Client::builder(Implementation::new("c", "1"))
    ///     .connect(http_client::connect("http://127.0.0.1:8000/mcp")?);
    /// let task = client.get_task("786512e2-9e0d-44bd-8f29-789f320fe840").await?;
    /// if task.task.status == TaskStatus::InputRequired {
    ///     for (key, request) in task.input_requests.iter().flatten() {
    ///         println!("{key}: the server asks {}", request.method());
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn get_task(&self, task_id: &str) -> Result<DetailedTask, ClientError> {
        let params = TaskIdParams {
            task_id: task_id.to_owned(),
        };
        self.request(methods::TASKS_GET, serde_json::to_value(params)?)
            .await
    }

    /// `tasks/update`: answers some of the requests task `task_id` shows, by key (a server
    /// ignores keys it is not waiting on). The server takes the answers in before its status
    /// shows them: a [`get_task`](Self::get_task) right after may still show the requests.
    /// [`Client::answer`] answers a set of requests with the registered handlers.
    ///
    /// ```no_run
    /// use mcp::client::Client;
    /// use mcp::protocol::{ElicitResult, Implementation, InputResponses};
    /// use mcp::transport::http_client;
    ///
    /// # #[tokio::main] async fn main() -> Result<(), mcp::Error> {
    /// let client = Client::builder(Implementation::new("c", "1"))
    ///     .connect(http_client::connect("http://127.0.0.1:8000/mcp")?);
    /// let name = serde_json::json!({"name": "Luca"});
    /// let mut answers = InputResponses::new();
    /// answers.insert("name", ElicitResult::accept(name.as_object().cloned().unwrap_or_default()));
    /// client.update_task("786512e2-9e0d-44bd-8f29-789f320fe840", answers).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn update_task(
        &self,
        task_id: &str,
        input_responses: InputResponses,
    ) -> Result<(), ClientError> {
        let params = UpdateTaskParams {
            task_id: task_id.to_owned(),
            input_responses,
        };
        let _ack: Value = self
            .request(methods::TASKS_UPDATE, serde_json::to_value(params)?)
            .await?;
        Ok(())
    }

    /// `tasks/cancel`: asks the server to stop task `task_id`. The server acknowledges at once
    /// and stops when it can, if it does: the task may still end another way. There is no need
    /// to poll it afterwards.
    ///
    /// ```no_run
    /// use mcp::client::Client;
    /// use mcp::protocol::Implementation;
    /// use mcp::transport::http_client;
    ///
    /// # #[tokio::main] async fn main() -> Result<(), mcp::Error> {
    /// let client = Client::builder(Implementation::new("c", "1"))
    ///     .connect(http_client::connect("http://127.0.0.1:8000/mcp")?);
    /// client.cancel_task("786512e2-9e0d-44bd-8f29-789f320fe840").await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), ClientError> {
        let params = TaskIdParams {
            task_id: task_id.to_owned(),
        };
        let _ack: Value = self
            .request(methods::TASKS_CANCEL, serde_json::to_value(params)?)
            .await?;
        Ok(())
    }

    /// Waits for the result of task `task_id`, as [`call_tool`](Self::call_tool) does for a
    /// task it started: polls `tasks/get` at the task's `pollIntervalMs` (see
    /// [`DEFAULT_POLL_INTERVAL`](super::DEFAULT_POLL_INTERVAL) for the pace), answers
    /// each input request with the registered handlers once and sends the answers with
    /// `tasks/update`, and ends with the tool's result. From nothing but the id, so a process
    /// started after the one that called the tool takes the task over; it answers what the
    /// task shows from then on (a request the first process answered but the task still
    /// shows is answered again, and the server ignores it).
    ///
    /// A failed task's JSON-RPC error is [`ClientError::Rpc`], as the call's own error would
    /// have been; a cancelled task is [`ClientError::TaskCancelled`]; a task still running at
    /// `createdAt + ttlMs` (by this machine's clock) is [`ClientError::TaskExpired`]. The
    /// [`call_timeout`](super::ClientBuilder::call_timeout) bounds the wait. Dropping the
    /// future stops the polling and leaves the task running on the server.
    ///
    /// ```no_run
    /// use mcp::client::{Client, ClientError};
    /// use mcp::protocol::{ElicitResult, Implementation};
    /// use mcp::transport::http_client;
    ///
    /// # fn saved_task_id() -> String { String::new() }
    /// # #[tokio::main] async fn main() -> Result<(), mcp::Error> {
    /// // A new process, resuming the task an earlier one started and saved.
    /// let client = Client::builder(Implementation::new("c", "1"))
    ///     .on_elicit(|_question| async { Ok(ElicitResult::decline()) })
    ///     .connect(http_client::connect("http://127.0.0.1:8000/mcp")?);
    /// match client.wait_task(&saved_task_id()).await {
    ///     Ok(result) => println!("{:?}", result.content),
    ///     Err(ClientError::TaskCancelled { .. }) => println!("somebody cancelled it"),
    ///     Err(other) => return Err(other.into()),
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn wait_task(&self, task_id: &str) -> Result<CallToolResult, ClientError> {
        self.bounded(self.follow_task(task_id, None)).await
    }
}
