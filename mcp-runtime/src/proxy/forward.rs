//! Each request a proxy serves, made to the remote: one round there per round here, or, for
//! a 2025-11-25 caller, every round there answered through the caller's back-channel.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::boxed::BoxFuture;
use crate::protocol::{
    CallToolParams, CallToolResult, CompleteParams, CompleteResult, Generation, GetPromptParams,
    GetPromptResult, InputRequest, InputRequiredResult, InputResponses, McpError, Outcome,
    ProgressToken, ReadResourceParams, ReadResourceResult, TASKS_EXTENSION, V2026_07_28, keys,
    methods,
};
use crate::server::{Context, State};

use super::{Remote, passed_through, relay};

/// How many rounds a proxy answers for a 2025-11-25 caller before it gives up on a remote
/// that keeps asking.
const MAX_ROUNDS: usize = 10;

fn remote(ctx: &Context) -> Result<State<Remote>, McpError> {
    ctx.state::<Remote>().ok_or_else(|| {
        tracing::error!("a proxy entry runs on a server that is not the proxy");
        McpError::internal("Internal error")
    })
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
    let (answers, state) = (params.input_responses, params.request_state);
    Box::pin(async move { rounds(&ctx, methods::TOOLS_CALL, fields, answers, state).await })
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
    Box::pin(async move { rounds(&ctx, methods::PROMPTS_GET, fields, answers, state).await })
}

pub(super) fn read_resource(
    ctx: Context,
    params: ReadResourceParams,
    _vars: Vec<(String, String)>,
) -> BoxFuture<Result<Outcome<ReadResourceResult>, McpError>> {
    let fields = Map::from_iter([("uri".to_owned(), Value::String(params.uri))]);
    let (answers, state) = (params.input_responses, params.request_state);
    Box::pin(async move { rounds(&ctx, methods::RESOURCES_READ, fields, answers, state).await })
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
async fn rounds<R: DeserializeOwned + Send>(
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
        let meta = callers_meta(
            ctx,
            remote.client.protocol_version() == V2026_07_28,
            progress,
        )?;
        if !meta.is_empty() {
            params.insert("_meta".into(), Value::Object(meta));
        }
        let outcome = relay::request(ctx, &remote.client, method, Value::Object(params))
            .await
            .map_err(passed_through)?;
        match outcome {
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
/// asks only what our caller can answer. Those go without the tasks extension: a task would end the call here, and the
/// proxy passes calls, not tasks.
fn callers_meta(
    ctx: &Context,
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
        if let Some(extensions) = &mut capabilities.extensions {
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
