//! Answering a batch of the server's input requests with the registered handlers, all at once:
//! the questions of an `InputRequiredResult` round, and those a task shows in `tasks/get`.

use std::sync::Arc;

use tokio::task::JoinSet;

use crate::protocol::{InputRequest, InputResponses, McpError};

use super::ClientError;
use super::callbacks::Callbacks;

/// Answers every request of `requests` concurrently, keyed as asked; the first failure ends
/// the batch (the handlers still running are stopped with it).
pub(super) async fn answer_all<'a>(
    callbacks: &Arc<Callbacks>,
    requests: impl IntoIterator<Item = (&'a str, &'a InputRequest)>,
) -> Result<InputResponses, ClientError> {
    let mut tasks = JoinSet::new();
    for (key, request) in requests {
        let (key, request, callbacks) = (key.to_owned(), request.clone(), callbacks.clone());
        tasks.spawn(async move { (key, callbacks.answer(request).await) });
    }
    let mut responses = InputResponses::new();
    while let Some(joined) = tasks.join_next().await {
        let (key, answer) = joined.map_err(|e| {
            ClientError::Rpc(McpError::internal(format!("an answer handler failed: {e}")))
        })?;
        responses.insert(key, answer?);
    }
    Ok(responses)
}
