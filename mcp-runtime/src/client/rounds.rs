//! The automatic round loop: answer every question of a round (concurrently), retry with the
//! answers and the state echoed byte for byte, until the server returns its result.

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;

use crate::protocol::{InputRequiredResult, InputResponses, McpError, Outcome};

use super::callbacks::Callbacks;
use super::{Client, ClientError};

/// How many rounds a call may take by default before the client gives up.
pub const DEFAULT_MAX_ROUNDS: u32 = 10;
const FIRST_BACKOFF: Duration = Duration::from_millis(50);
const MAX_BACKOFF: Duration = Duration::from_millis(250);

/// Where a persisted round resumes: the answers and state of the round to send.
#[derive(Debug, Clone, Default)]
pub struct Resume {
    /// The answers to send with the first request.
    pub input_responses: Option<InputResponses>,
    /// The `requestState` the server last returned, byte for byte.
    pub request_state: Option<String>,
}

impl Client {
    /// Answers every question of `ask` with the registered handlers (concurrently), as the
    /// `inputResponses` of the retry; for a round restored from storage.
    pub async fn answer(&self, ask: &InputRequiredResult) -> Result<InputResponses, ClientError> {
        answer_all(&self.inner.callbacks, ask).await
    }

    /// Runs one call to completion (within the call timeout, if one is set). `send` performs
    /// one round.
    pub(crate) async fn drive<R, F, Fut>(&self, resume: Resume, send: F) -> Result<R, ClientError>
    where
        F: Fn(Option<InputResponses>, Option<String>) -> Fut,
        Fut: Future<Output = Result<Outcome<R>, ClientError>>,
    {
        match self.inner.call_timeout {
            Some(limit) => tokio::time::timeout(limit, self.rounds(resume, send))
                .await
                .unwrap_or(Err(ClientError::Timeout(limit))),
            None => self.rounds(resume, send).await,
        }
    }

    async fn rounds<R, F, Fut>(&self, resume: Resume, send: F) -> Result<R, ClientError>
    where
        F: Fn(Option<InputResponses>, Option<String>) -> Fut,
        Fut: Future<Output = Result<Outcome<R>, ClientError>>,
    {
        let max = self.inner.max_rounds;
        let mut restarts_left = self.inner.restarts;
        let mut responses = resume.input_responses;
        let mut state = resume.request_state;
        let mut backoff = FIRST_BACKOFF;
        let mut rounds = 0u32;
        loop {
            let retried = state.is_some();
            let ask = match send(responses.take(), state.take()).await {
                Ok(Outcome::Complete(result)) => return Ok(result),
                Ok(Outcome::InputRequired(ask)) => ask,
                // The state cannot be opened here (another instance's key, a restart, expiry):
                // only a fresh call can go on.
                Err(ClientError::Rpc(e))
                    if retried && restarts_left > 0 && e.is_invalid_request_state() =>
                {
                    restarts_left -= 1;
                    tracing::info!(
                        restarts_left,
                        "the server rejected the requestState; starting the call over"
                    );
                    rounds = 0;
                    backoff = FIRST_BACKOFF;
                    continue;
                }
                Err(e) => return Err(e),
            };
            rounds += 1;
            if rounds > max {
                return Err(ClientError::TooManyRounds { max });
            }
            if ask.requests().next().is_none() {
                // Nothing to answer: the server is working; wait before asking again.
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
            } else {
                backoff = FIRST_BACKOFF;
                responses = Some(answer_all(&self.inner.callbacks, &ask).await?);
            }
            state = ask.request_state;
        }
    }
}

/// Answers every question of a round at once; the first failure ends the call.
async fn answer_all(
    callbacks: &Arc<Callbacks>,
    ask: &InputRequiredResult,
) -> Result<InputResponses, ClientError> {
    let mut tasks = JoinSet::new();
    for (key, request) in ask.requests() {
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
