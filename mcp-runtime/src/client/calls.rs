//! The typed calls: discovery and `initialize`, listing, and the three multi-round methods,
//! each both as a whole call (rounds answered by the registered handlers) and as one round.

use serde_json::{Value, json};

use crate::protocol::{
    CallToolResult, CompleteParams, CompleteResult, DiscoverResult, GetPromptResult,
    InitializeParams, InitializeResult, InputResponses, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, Outcome, ProgressToken,
    ReadResourceResult, Tool, V2025_11_25, V2026_07_28, methods,
};

use super::connection::lock;
use super::rounds::Resume;
use super::tool_start::{ToolRound, ToolStart};
use super::{Client, ClientError, Session};

/// How many pages [`Client::list_all_tools`] follows before it gives up on a listing that
/// does not end.
pub const MAX_LIST_PAGES: usize = 100;

impl Client {
    /// Calls a tool and answers every question the server asks with the registered handlers,
    /// round after round, until the result. Each retry repeats the name and arguments with the
    /// answers and the server's `requestState` byte for byte, under a new JSON-RPC id.
    ///
    /// A server of the tasks extension may answer with a task instead (after rounds of
    /// questions, or at once): the call then follows the task to its end as
    /// [`wait_task`](Self::wait_task) does, polling `tasks/get` and answering what the task
    /// asks with the same handlers, and returns the tool's result all the same. A failed
    /// task's error is [`ClientError::Rpc`], as the call's own would have been. An application
    /// that wants the task's id, to keep it, uses [`start_tool`](Self::start_tool);
    /// [`ClientBuilder::accept_tasks`](super::ClientBuilder::accept_tasks) turns tasks off.
    ///
    /// Dropping the future cancels the call: the server is sent `notifications/cancelled` for
    /// the round in flight (on the 2026-07-28 HTTP wire, that round's response stream closes).
    /// While it follows a task, dropping it stops the polling and leaves the task to its ttl.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Option<Value>,
    ) -> Result<CallToolResult, ClientError> {
        self.resume_tool(name, arguments, Resume::default()).await
    }

    /// [`call_tool`](Self::call_tool) from a persisted round.
    pub async fn resume_tool(
        &self,
        name: &str,
        arguments: Option<Value>,
        resume: Resume,
    ) -> Result<CallToolResult, ClientError> {
        self.call_tool_to_end(name, arguments, resume, None).await
    }

    /// Gets a prompt, answering the server's questions on the way.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Option<Value>,
    ) -> Result<GetPromptResult, ClientError> {
        self.resume_prompt(name, arguments, Resume::default()).await
    }

    /// [`get_prompt`](Self::get_prompt) from a persisted round.
    pub async fn resume_prompt(
        &self,
        name: &str,
        arguments: Option<Value>,
        resume: Resume,
    ) -> Result<GetPromptResult, ClientError> {
        let call = self.drive(resume, |responses, state| {
            self.get_prompt_once(name, arguments.clone(), responses, state)
        });
        #[cfg(feature = "otel")]
        let call = super::traced::whole_call(methods::PROMPTS_GET, name, call);
        call.await
    }

    /// Reads a resource, answering the server's questions on the way.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        self.resume_resource(uri, Resume::default()).await
    }

    /// [`read_resource`](Self::read_resource) from a persisted round.
    pub async fn resume_resource(
        &self,
        uri: &str,
        resume: Resume,
    ) -> Result<ReadResourceResult, ClientError> {
        let call = self.drive(resume, |responses, state| {
            self.read_resource_once(uri, responses, state)
        });
        #[cfg(feature = "otel")]
        let call = super::traced::whole_call(methods::RESOURCES_READ, uri, call);
        call.await
    }

    /// Opens a 2025-11-25 session (`initialize`, then `notifications/initialized`).
    pub async fn initialize(&self) -> Result<InitializeResult, ClientError> {
        let params = InitializeParams {
            protocol_version: V2025_11_25.to_owned(),
            capabilities: self.inner.session_capabilities.clone(),
            client_info: self.inner.info.clone(),
        };
        let result: InitializeResult = self.request_raw(methods::INITIALIZE, &params).await?;
        *lock(&self.inner.session) = Some(Session {
            version: result.protocol_version.clone(),
            capabilities: result.capabilities.clone(),
            #[cfg(feature = "otel")]
            _clock: crate::telemetry::SessionClock::start(
                result.protocol_version.clone(),
                self.inner.server.as_ref(),
            ),
        });
        (self.inner.connection.in_session).store(true, std::sync::atomic::Ordering::SeqCst);
        self.notify("notifications/initialized", &json!({})).await?;
        Ok(result)
    }

    /// Finds the revision to speak: `server/discover` first (2026-07-28), and `initialize`
    /// (2025-11-25) for a server that does not positively answer it. Returns the revision.
    ///
    /// Call it once after [`connect`](super::ClientBuilder::connect) when the server's age is unknown; the
    /// in-memory and macro-built servers of this crate answer both.
    pub async fn negotiate(&self) -> Result<String, ClientError> {
        match self.discover().await {
            Ok(found) if found.supported_versions.iter().any(|v| v == V2026_07_28) => {
                Ok(V2026_07_28.to_owned())
            }
            // A closed connection is not an old server.
            Err(ClientError::Closed) => Err(ClientError::Closed),
            _ => Ok(self.initialize().await?.protocol_version),
        }
    }

    /// `server/discover`.
    pub async fn discover(&self) -> Result<DiscoverResult, ClientError> {
        self.request(methods::DISCOVER, json!({})).await
    }

    /// `tools/list` (one page). With [`on_tools_changed`](super::ClientBuilder::on_tools_changed)
    /// set, the first listing starts watching the tools for changes.
    pub async fn list_tools(&self, cursor: Option<&str>) -> Result<ListToolsResult, ClientError> {
        self.watch_tools().await;
        self.tools_page(cursor).await
    }

    /// Every page of `tools/list`, up to [`MAX_LIST_PAGES`]: the list
    /// [`on_tools_changed`](super::ClientBuilder::on_tools_changed) hands over, for the
    /// application's first look (which starts the watching, as
    /// [`list_tools`](Self::list_tools) does).
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>, ClientError> {
        self.watch_tools().await;
        self.every_tools_page().await
    }

    pub(super) async fn every_tools_page(&self) -> Result<Vec<Tool>, ClientError> {
        let mut tools = Vec::new();
        let mut cursor = None;
        for _ in 0..MAX_LIST_PAGES {
            let page = self.tools_page(cursor.as_deref()).await?;
            tools.extend(page.tools);
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => return Ok(tools),
            }
        }
        Err(ClientError::TooManyPages {
            max: MAX_LIST_PAGES,
        })
    }

    async fn tools_page(&self, cursor: Option<&str>) -> Result<ListToolsResult, ClientError> {
        self.request(methods::TOOLS_LIST, page(cursor)).await
    }

    /// `prompts/list` (one page).
    pub async fn list_prompts(
        &self,
        cursor: Option<&str>,
    ) -> Result<ListPromptsResult, ClientError> {
        self.request(methods::PROMPTS_LIST, page(cursor)).await
    }

    /// `resources/list` (one page).
    pub async fn list_resources(
        &self,
        cursor: Option<&str>,
    ) -> Result<ListResourcesResult, ClientError> {
        self.request(methods::RESOURCES_LIST, page(cursor)).await
    }

    /// `resources/templates/list` (one page).
    pub async fn list_resource_templates(
        &self,
        cursor: Option<&str>,
    ) -> Result<ListResourceTemplatesResult, ClientError> {
        self.request(methods::RESOURCE_TEMPLATES_LIST, page(cursor))
            .await
    }

    /// `completion/complete`: suggestions for an argument of a prompt or resource template.
    pub async fn complete(&self, params: &CompleteParams) -> Result<CompleteResult, ClientError> {
        let params = serde_json::to_value(params)?;
        self.request(methods::COMPLETE, params).await
    }

    /// `ping`, in a 2025-11-25 session (2026-07-28 has no `ping`: a server answers -32601).
    pub async fn ping(&self) -> Result<(), ClientError> {
        let _: Value = self.request(methods::PING, json!({})).await?;
        Ok(())
    }

    /// One `tools/call` round: the final result or the server's request for input. A task
    /// in their place is [`ClientError::UnexpectedTask`], which carries it: a client that may
    /// be answered with tasks makes its rounds with [`start_tool`](Self::start_tool).
    pub async fn call_tool_once(
        &self,
        name: &str,
        arguments: Option<Value>,
        input_responses: Option<InputResponses>,
        request_state: Option<String>,
    ) -> Result<Outcome<CallToolResult>, ClientError> {
        let round = self
            .call_tool_round(name, arguments, input_responses, request_state, None)
            .await?;
        match round {
            Outcome::Complete(ToolStart::Complete(result)) => Ok(Outcome::Complete(result)),
            Outcome::Complete(ToolStart::Task(task)) => {
                Err(ClientError::UnexpectedTask(Box::new(task)))
            }
            Outcome::InputRequired(ask) => Ok(Outcome::InputRequired(ask)),
        }
    }

    /// One `tools/call` round, asking for progress under `progress` when given.
    pub(super) async fn call_tool_round(
        &self,
        name: &str,
        arguments: Option<Value>,
        input_responses: Option<InputResponses>,
        request_state: Option<String>,
        progress: Option<&ProgressToken>,
    ) -> Result<Outcome<ToolStart>, ClientError> {
        let mut params = json!({ "name": name });
        round_params(&mut params, arguments, input_responses, request_state);
        if let Some(token) = progress {
            params["_meta"] = json!({ "progressToken": token });
        }
        let round: ToolRound = self.request(methods::TOOLS_CALL, params).await?;
        Ok(round.0)
    }

    /// One `prompts/get` round.
    pub async fn get_prompt_once(
        &self,
        name: &str,
        arguments: Option<Value>,
        input_responses: Option<InputResponses>,
        request_state: Option<String>,
    ) -> Result<Outcome<GetPromptResult>, ClientError> {
        let mut params = json!({ "name": name });
        round_params(&mut params, arguments, input_responses, request_state);
        self.request(methods::PROMPTS_GET, params).await
    }

    /// One `resources/read` round.
    pub async fn read_resource_once(
        &self,
        uri: &str,
        input_responses: Option<InputResponses>,
        request_state: Option<String>,
    ) -> Result<Outcome<ReadResourceResult>, ClientError> {
        let mut params = json!({ "uri": uri });
        round_params(&mut params, None, input_responses, request_state);
        self.request(methods::RESOURCES_READ, params).await
    }
}

fn round_params(
    params: &mut Value,
    arguments: Option<Value>,
    input_responses: Option<InputResponses>,
    request_state: Option<String>,
) {
    if let Value::Object(map) = params {
        if let Some(a) = arguments {
            map.insert("arguments".into(), a);
        }
        if let Some(r) = input_responses {
            map.insert(
                "inputResponses".into(),
                Value::Object(r.0.into_iter().collect()),
            );
        }
        if let Some(s) = request_state {
            map.insert("requestState".into(), Value::String(s));
        }
    }
}

/// The params of a listing: `cursor` is a string when present (the schema has no `null`).
fn page(cursor: Option<&str>) -> Value {
    match cursor {
        Some(cursor) => json!({ "cursor": cursor }),
        None => json!({}),
    }
}
