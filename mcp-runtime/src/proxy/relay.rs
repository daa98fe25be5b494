//! What the remote says while it answers one of our caller's requests, relayed to that
//! caller: its log messages through the caller's [`Context::log`] (which keeps only what the
//! caller asked for), and a 2025-11-25 remote's own requests through the caller's
//! back-channel when it has one.
//!
//! A 2026-07-28 caller has no back-channel: a request the remote makes in the middle of its
//! call gets an error naming why, and the remote's tool decides what to do with that. The
//! other way (turning the question into an `InputRequiredResult` for our caller and holding
//! the remote's call open until the caller's retry) would tie the caller's next round to this
//! process's memory of a call still running, where a 2026-07-28 round may reach any instance
//! and may never come.

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::client::{Client, ClientError, Heard, ServerRequest};
use crate::protocol::{
    Generation, LoggingMessageParams, McpError, RawNotification, notification_methods,
};
use crate::server::Context;

/// `client.request(method, params)`, with what the remote says meanwhile relayed to `ctx`'s
/// caller.
pub(super) async fn request<R: DeserializeOwned + Send>(
    ctx: &Context,
    client: &Client,
    method: &str,
    params: Value,
) -> Result<R, ClientError> {
    let (mut hearing, call) = client.request_hearing(method, params);
    let mut call = Box::pin(call);
    let outcome = loop {
        tokio::select! {
            // What the remote said before it answered is relayed before the answer.
            biased;
            Some(heard) = hearing.next() => relay(ctx, heard).await,
            outcome = &mut call => break outcome,
        }
    };
    // The hearing ends with the call: what is left of it is read to its end.
    drop(call);
    while let Some(heard) = hearing.next().await {
        relay(ctx, heard).await;
    }
    outcome
}

async fn relay(ctx: &Context, heard: Heard) {
    match heard {
        Heard::Notification(note) => log(ctx, note).await,
        Heard::Request(request) => ask(ctx, request).await,
    }
}

async fn log(ctx: &Context, note: RawNotification) {
    if note.method != notification_methods::MESSAGE {
        return;
    }
    let params = note
        .params
        .as_deref()
        .map(|p| serde_json::from_str::<LoggingMessageParams>(p.get()));
    match params {
        Some(Ok(message)) => {
            ctx.log(message.level, message.logger.as_deref(), message.data)
                .await;
        }
        _ => tracing::debug!("the proxied server sent a malformed log message; not relayed"),
    }
}

/// The remote's question, put to our caller over its own back-channel.
async fn ask(ctx: &Context, request: ServerRequest) {
    if ctx.generation() != Generation::V2025_11_25 {
        let refusal = McpError::internal(format!(
            "The proxy cannot put {} to its caller in the middle of a call: the caller speaks \
             2026-07-28, which asks through InputRequiredResult",
            request.method
        ));
        request.answer(Err(refusal));
        return;
    }
    let params = match &request.params {
        Value::Null => json!({}),
        params => params.clone(),
    };
    let answer = ctx
        .request_client::<_, Value>(&request.method, &params)
        .await;
    request.answer(answer);
}
