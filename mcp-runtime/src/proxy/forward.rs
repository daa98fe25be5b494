//! Each request a proxy serves, made to the remote: one round there per round here, or, for
//! a 2025-11-25 caller, every round there answered through the caller's back-channel.

use std::future::Future;

use serde_json::Value;

use crate::boxed::BoxFuture;
use crate::client::ClientError;
use crate::protocol::{
    CallToolParams, CallToolResult, CompleteParams, CompleteResult, Generation, GetPromptParams,
    GetPromptResult, InputRequest, InputRequiredResult, InputResponses, McpError, Outcome,
    ReadResourceParams, ReadResourceResult,
};
use crate::server::{Context, State};

use super::{Remote, passed_through};

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
    Box::pin(async move {
        let remote = remote(&ctx)?;
        let arguments = params.arguments.map(Value::Object);
        let name = params.name;
        rounds(
            &ctx,
            params.input_responses,
            params.request_state,
            |answers, state| {
                remote
                    .client
                    .call_tool_once(&name, arguments.clone(), answers, state)
            },
        )
        .await
    })
}

pub(super) fn get_prompt(
    ctx: Context,
    params: GetPromptParams,
) -> BoxFuture<Result<Outcome<GetPromptResult>, McpError>> {
    Box::pin(async move {
        let remote = remote(&ctx)?;
        let arguments = params
            .arguments
            .map(|a| Value::Object(a.into_iter().map(|(k, v)| (k, Value::String(v))).collect()));
        let name = params.name;
        rounds(
            &ctx,
            params.input_responses,
            params.request_state,
            |answers, state| {
                remote
                    .client
                    .get_prompt_once(&name, arguments.clone(), answers, state)
            },
        )
        .await
    })
}

pub(super) fn read_resource(
    ctx: Context,
    params: ReadResourceParams,
    _vars: Vec<(String, String)>,
) -> BoxFuture<Result<Outcome<ReadResourceResult>, McpError>> {
    Box::pin(async move {
        let remote = remote(&ctx)?;
        let uri = params.uri;
        rounds(
            &ctx,
            params.input_responses,
            params.request_state,
            |answers, state| remote.client.read_resource_once(&uri, answers, state),
        )
        .await
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
async fn rounds<R, F, Fut>(
    ctx: &Context,
    mut answers: Option<InputResponses>,
    mut state: Option<String>,
    mut once: F,
) -> Result<Outcome<R>, McpError>
where
    F: FnMut(Option<InputResponses>, Option<String>) -> Fut,
    Fut: Future<Output = Result<Outcome<R>, ClientError>>,
{
    for _ in 0..MAX_ROUNDS {
        match once(answers.take(), state.take())
            .await
            .map_err(passed_through)?
        {
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
