//! The automatic round loop: answer every question of a round (concurrently), retry with the
//! answers and the state echoed byte for byte, until the server returns its result.

use std::time::Duration;

use crate::protocol::{InputRequiredResult, InputResponses, Outcome};

use super::answers::answer_all;
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
        answer_all(&self.inner.callbacks, ask.requests()).await
    }

    /// Runs one call to completion (within the call timeout, if one is set). `send` performs
    /// one round.
    pub(crate) async fn drive<R, F, Fut>(&self, resume: Resume, send: F) -> Result<R, ClientError>
    where
        F: Fn(Option<InputResponses>, Option<String>) -> Fut,
        Fut: Future<Output = Result<Outcome<R>, ClientError>>,
    {
        self.bounded(self.rounds(resume, send)).await
    }

    /// Runs `call` within the call timeout, if one is set.
    pub(super) async fn bounded<R>(
        &self,
        call: impl Future<Output = Result<R, ClientError>>,
    ) -> Result<R, ClientError> {
        match self.inner.call_timeout {
            Some(limit) => tokio::time::timeout(limit, call)
                .await
                .unwrap_or(Err(ClientError::Timeout(limit))),
            None => call.await,
        }
    }

    /// The rounds of one call, unbounded: `send` performs one round.
    pub(super) async fn rounds<R, F, Fut>(&self, resume: Resume, send: F) -> Result<R, ClientError>
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
                responses = Some(answer_all(&self.inner.callbacks, ask.requests()).await?);
            }
            state = ask.request_state;
        }
    }
}
