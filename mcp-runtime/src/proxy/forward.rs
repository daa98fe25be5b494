//! Each request a proxy serves, made to the remote: one round there per round here, or, for
//! a 2025-11-25 caller, every round there answered through the caller's back-channel.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::boxed::BoxFuture;
use crate::client::{ToolRound, ToolStart};
use crate::protocol::{
    CallToolParams, CallToolResult, CompleteParams, CompleteResult, Generation, GetPromptParams,
    GetPromptResult, InputRequest, InputRequiredResult, InputResponses, McpError, Outcome,
    ProgressToken, ReadResourceParams, ReadResourceResult, TASKS_EXTENSION, V2026_07_28, keys,
    methods,
};
use crate::server::{Context, State};

use super::tasks::{self, ToolState};
use super::{Remote, passed_through, relay};

/// How many rounds a proxy answers for a 2025-11-25 caller before it gives up on a remote
/// that keeps asking.
const MAX_ROUNDS: usize = 10;

fn remote(ctx: &Context) -> Result<Arc<Remote>, McpError> {
    ctx.state::<Remote>().map(State::into_arc).ok_or_else(|| {
        tracing::error!("a proxy entry runs on a server that is not the proxy");
        McpError::internal("Internal error")
    })
}

/// One remote round's answer, as the proxy reads it.
trait Answer<R>: DeserializeOwned {
    fn outcome(self) -> Outcome<R>;
}

impl<R: DeserializeOwned> Answer<R> for Outcome<R> {
    fn outcome(self) -> Outcome<R> {
        self
    }
}

/// A `tools/call`'s may be a task, for a caller that declared the tasks extension.
impl Answer<ToolStart> for ToolRound {
    fn outcome(self) -> Outcome<ToolStart> {
        self.0
    }
}

pub(super) fn call_tool(
    ctx: Context,
    params: CallToolParams,
) -> BoxFuture<Result<Outcome<CallToolResult>, McpError>> {
    let mut fields = Map::new();
    fields.insert("name".into(), Value::String(params.name));
    if let Some(arguments) = params.arguments {
        fields.insert("arguments".into(), Value::Object(arguments));
    }
    let answers = params.input_responses;
    Box::pin(async move {
        let remote = remote(&ctx)?;
        let state = match tasks::open(params.request_state)? {
            Some(ToolState::Following(following)) => {
                return tasks::resumed(&ctx, &remote, following, answers).await;
            }
            Some(ToolState::Remote(state)) => Some(state),
            None => None,
        };
        let round = rounds::<ToolRound, _>(&ctx, methods::TOOLS_CALL, fields, answers, state);
        match round.await? {
            Outcome::Complete(ToolStart::Complete(result)) => Ok(Outcome::Complete(result)),
            Outcome::Complete(ToolStart::Task(task)) => tasks::started(&ctx, &remote, task).await,
            Outcome::InputRequired(mut ask) => {
                ask.request_state = ask.request_state.map(tasks::remote_state);
                Ok(Outcome::InputRequired(ask))
            }
        }
    })
}

pub(super) fn get_prompt(
    ctx: Context,
    params: GetPromptParams,
) -> BoxFuture<Result<Outcome<GetPromptResult>, McpError>> {
    let mut fields = Map::new();
    fields.insert("name".into(), Value::String(params.name));
    if let Some(arguments) = params.arguments {
        let arguments = arguments.into_iter().map(|(k, v)| (k, Value::String(v)));
        fields.insert("arguments".into(), Value::Object(arguments.collect()));
    }
    let (answers, state) = (params.input_responses, params.request_state);
    Box::pin(async move {
        rounds::<Outcome<_>, _>(&ctx, methods::PROMPTS_GET, fields, answers, state).await
    })
}

pub(super) fn read_resource(
    ctx: Context,
    params: ReadResourceParams,
    _vars: Vec<(String, String)>,
) -> BoxFuture<Result<Outcome<ReadResourceResult>, McpError>> {
    let fields = Map::from_iter([("uri".to_owned(), Value::String(params.uri))]);
    let (answers, state) = (params.input_responses, params.request_state);
    Box::pin(async move {
        rounds::<Outcome<_>, _>(&ctx, methods::RESOURCES_READ, fields, answers, state).await
    })
}

pub(super) async fn complete(
    ctx: Context,
    params: CompleteParams,
) -> Result<CompleteResult, McpError> {
    remote(&ctx)?
        .client
        .complete(&params)
        .await
        .map_err(passed_through)
}

/// The remote's answer to one round, or, for a caller that cannot take a round of questions
/// (2025-11-25), its answer once every round was answered through the caller's back-channel.
async fn rounds<A: Answer<R> + Send, R>(
    ctx: &Context,
    method: &str,
    fields: Map<String, Value>,
    mut answers: Option<InputResponses>,
    mut state: Option<String>,
) -> Result<Outcome<R>, McpError> {
    let remote = remote(ctx)?;
    // Held until the call ends, however many rounds it takes.
    let progress = remote.progress.relay(ctx);
    let progress = progress.as_ref().map(|relayed| &relayed.token);
    for _ in 0..MAX_ROUNDS {
        let mut params = fields.clone();
        if let Some(answers) = answers.take() {
            let answers = answers.0.into_iter().collect();
            params.insert("inputResponses".into(), Value::Object(answers));
        }
        if let Some(state) = state.take() {
            params.insert("requestState".into(), Value::String(state));
        }
        let modern = remote.client.protocol_version() == V2026_07_28;
        let meta = callers_meta(ctx, method, modern, progress)?;
        if !meta.is_empty() {
            params.insert("_meta".into(), Value::Object(meta));
        }
        let answer: A = relay::request(ctx, &remote.client, method, Value::Object(params))
            .await
            .map_err(passed_through)?;
        match answer.outcome() {
            Outcome::InputRequired(ask) if ctx.generation() == Generation::V2025_11_25 => {
                answers = Some(ask_caller(ctx, &ask).await?);
                state = ask.request_state;
            }
            outcome => return Ok(outcome),
        }
    }
    Err(McpError::internal(format!(
        "The proxied server asked for input more than {MAX_ROUNDS} times"
    )))
}

/// The `_meta` a round goes to the remote with: the proxy's progress token for the call, and
/// on 2026-07-28 our caller's log level (a 2025-11-25 session's is set once for the whole
/// session, and `ctx.log` keeps what our caller asked for) and capabilities, so the remote
/// asks only what our caller can answer. The tasks extension goes only with a `tools/call`
/// whose caller declared it to a proxy that passes tasks through (see [`tasks`]); the
/// remote's task would end any other request here.
fn callers_meta(
    ctx: &Context,
    method: &str,
    modern: bool,
    progress: Option<&ProgressToken>,
) -> Result<Map<String, Value>, McpError> {
    let mut meta = Map::new();
    let unserializable = |e: serde_json::Error| McpError::internal(format!("Unserializable: {e}"));
    if let Some(token) = progress {
        meta.insert(
            "progressToken".to_owned(),
            serde_json::to_value(token).map_err(unserializable)?,
        );
    }
    if modern {
        if let Some(level) = ctx.log_level() {
            let level = serde_json::to_value(level).map_err(unserializable)?;
            meta.insert(keys::LOG_LEVEL.to_owned(), level);
        }
        let mut capabilities = ctx.client_capabilities().clone();
        let tasks =
            method == methods::TOOLS_CALL && ctx.client_extension(TASKS_EXTENSION).is_some();
        if let Some(extensions) = capabilities.extensions.as_mut().filter(|_| !tasks) {
            extensions.remove(TASKS_EXTENSION);
        }
        capabilities.tasks = None;
        let capabilities = serde_json::to_value(capabilities).map_err(unserializable)?;
        meta.insert(keys::CLIENT_CAPABILITIES.to_owned(), capabilities);
    }
    Ok(meta)
}

/// The remote's questions, asked of the caller as requests of its session.
async fn ask_caller(ctx: &Context, ask: &InputRequiredResult) -> Result<InputResponses, McpError> {
    let mut answers = InputResponses::new();
    for (key, request) in ask.input_requests.iter().flatten() {
        let answer: Value = match request {
            InputRequest::Elicit(params) => ctx.request_client(request.method(), params).await?,
            InputRequest::CreateMessage(params) => {
                ctx.request_client(request.method(), params).await?
            }
            InputRequest::ListRoots => {
                ctx.request_client(request.method(), &serde_json::json!({}))
                    .await?
            }
        };
        answers.insert(key.clone(), answer);
    }
    Ok(answers)
}
