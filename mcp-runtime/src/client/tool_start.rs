//! What a `tools/call` may be answered with by a server of the tasks extension: the tool's
//! result, or a task that runs on and is followed by polling. [`Client::start_tool`] hands over
//! either; [`Client::call_tool`] follows a task to its result.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::protocol::{
    CallToolResult, Outcome, ProgressToken, TASK_RESULT_TYPE, TASKS_EXTENSION, Task,
};

use super::rounds::Resume;
use super::{Client, ClientError};

/// How a tool call began: with the tool's result, or with a task that runs on the server
/// (a `CreateTaskResult`, `resultType: "task"`), whose id the application keeps to follow it
/// with [`wait_task`](Client::wait_task), [`get_task`](Client::get_task),
/// [`update_task`](Client::update_task) and [`cancel_task`](Client::cancel_task), from this
/// client or any other.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolStart {
    /// The tool's result: the server ran the call while the client waited.
    Complete(CallToolResult),
    /// The server runs the call as a task; this is its first state.
    Task(Task),
}

/// One `tools/call` round's answer: a result, a request for input, or a task.
pub(crate) struct ToolRound(pub Outcome<ToolStart>);

impl<'de> Deserialize<'de> for ToolRound {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        #[cfg(feature = "otel")]
        super::traced::saw_tool_result(&value);
        if value.get("resultType").and_then(Value::as_str) == Some(TASK_RESULT_TYPE) {
            let task = serde_json::from_value(value).map_err(D::Error::custom)?;
            return Ok(Self(Outcome::Complete(ToolStart::Task(task))));
        }
        let round = serde_json::from_value(value).map_err(D::Error::custom)?;
        Ok(Self(match round {
            Outcome::Complete(result) => Outcome::Complete(ToolStart::Complete(result)),
            Outcome::InputRequired(ask) => Outcome::InputRequired(ask),
        }))
    }
}

impl Client {
    /// Calls a tool as [`call_tool`](Self::call_tool) does, answering the server's questions
    /// round after round, and stops where the server says how it answers: with the tool's
    /// result, or with a task. An application that keeps the task's id (the tasks extension
    /// asks clients to, so that a task outlives a crash or a restart) follows it from there
    /// with [`wait_task`](Self::wait_task) or the single steps, from this client or another.
    ///
    /// A server answers with a task only to a client that declares the tasks extension (see
    /// [`ClientBuilder::accept_tasks`](super::ClientBuilder::accept_tasks)), and only when it
    /// chooses to.
    ///
    /// ```no_run
    /// use mcp::client::{Client, ToolStart};
    /// use mcp::protocol::Implementation;
    /// use mcp::transport::http_client;
    ///
    /// # async fn save(_task_id: &str) {}
    /// # #[tokio::main] async fn main() -> Result<(), mcp::Error> {
    /// let client = Client::builder(Implementation::new("c", "1"))
    ///     .connect(http_client::connect("http://127.0.0.1:8000/mcp")?);
    /// let args = serde_json::json!({"table": "orders"});
    /// let result = match client.start_tool("export", Some(args)).await? {
    ///     ToolStart::Complete(result) => result,
    ///     ToolStart::Task(task) => {
    ///         save(&task.task_id).await; // so that another process can resume it
    ///         client.wait_task(&task.task_id).await?
    ///     }
    /// };
    /// println!("{:?}", result.content);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn start_tool(
        &self,
        name: &str,
        arguments: Option<Value>,
    ) -> Result<ToolStart, ClientError> {
        self.drive(Resume::default(), |responses, state| {
            self.call_tool_round(name, arguments.clone(), responses, state, None)
        })
        .await
    }

    /// A tool call to its result, within the call timeout: its rounds from `resume`, then the
    /// task the server may have made of it, followed to its end.
    pub(super) async fn call_tool_to_end(
        &self,
        name: &str,
        arguments: Option<Value>,
        resume: Resume,
        progress: Option<&ProgressToken>,
    ) -> Result<CallToolResult, ClientError> {
        let call = self.bounded(async {
            let start = self
                .rounds(resume, |responses, state| {
                    self.call_tool_round(name, arguments.clone(), responses, state, progress)
                })
                .await?;
            match start {
                ToolStart::Complete(result) => Ok(result),
                ToolStart::Task(task) if self.takes_tasks() => {
                    self.follow_task(&task.task_id, Some(&task)).await
                }
                // The server broke the extension's rule; the task is handed over rather than
                // followed, in case the application wants it anyway.
                ToolStart::Task(task) => Err(ClientError::UnexpectedTask(Box::new(task))),
            }
        });
        #[cfg(feature = "otel")]
        let call = super::traced::whole_call(crate::protocol::methods::TOOLS_CALL, name, call);
        call.await
    }

    /// Whether requests declare the tasks extension: a 2026-07-28 client that did not switch
    /// it off (or declared it by hand).
    pub(super) fn takes_tasks(&self) -> bool {
        !self.in_session()
            && self
                .inner
                .capabilities
                .extensions
                .as_ref()
                .is_some_and(|declared| declared.contains_key(TASKS_EXTENSION))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::TaskStatus;

    fn round(value: Value) -> Result<Outcome<ToolStart>, serde_json::Error> {
        serde_json::from_value::<ToolRound>(value).map(|r| r.0)
    }

    #[test]
    fn a_round_is_a_result_a_question_or_a_task() {
        let done = round(json!({"resultType": "complete", "content": []}));
        assert!(matches!(
            done,
            Ok(Outcome::Complete(ToolStart::Complete(_)))
        ));
        let asked = round(json!({"resultType": "input_required", "requestState": "s"}));
        assert!(matches!(asked, Ok(Outcome::InputRequired(_))));
        let task = round(json!({
            "resultType": "task", "taskId": "t-1", "status": "working",
            "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z",
            "ttlMs": null, "pollIntervalMs": 200,
        }));
        match task {
            Ok(Outcome::Complete(ToolStart::Task(task))) => {
                assert_eq!(task.task_id, "t-1");
                assert_eq!(task.status, TaskStatus::Working);
                assert_eq!((task.ttl_ms, task.poll_interval_ms), (None, Some(200)));
            }
            other => panic!("not a task: {other:?}"),
        }
    }

    #[test]
    fn a_task_without_its_members_or_an_unknown_result_type_does_not_decode() {
        assert!(round(json!({"resultType": "task", "taskId": "t-1"})).is_err());
        assert!(round(json!({"resultType": "job", "content": []})).is_err());
    }
}
