//! What a Resolve parameter holds once the client has answered.

use std::ops::{Deref, DerefMut};

use crate::protocol::{
    CreateMessageResult, ElicitationCompleteParams, Generation, Root, notification_methods,
};
use crate::server::Context;

use super::elicitation::Elicitation;

/// A form the user filled in and accepted. As a tool parameter it makes the runtime ask (the
/// question is `T`'s doc comment, or `#[mcp(ask = …)]`); the function runs only once the user
/// accepted, and a decline or cancel ends the call with an error result saying so. Use
/// [`Elicited<T>`] to handle a decline yourself.
#[derive(Debug, Clone, PartialEq)]
pub struct Elicit<T>(pub(crate) T);

impl<T> Elicit<T> {
    /// The answer.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> Deref for Elicit<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> DerefMut for Elicit<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// What the user did with a form, for a function that branches on a decline.
#[derive(Debug, Clone, PartialEq)]
pub enum Elicited<T> {
    /// Filled in and submitted.
    Accepted(T),
    /// Said no.
    Declined,
    /// Dismissed the question.
    Cancelled,
}

impl<T> Elicited<T> {
    /// The answer, if accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicited::Accepted(value) => Some(value),
            Elicited::Declined | Elicited::Cancelled => None,
        }
    }
}

/// How a Resolve parameter is filled from a form outcome.
pub trait FromElicitation: Sized {
    /// The form.
    type Form: Elicitation;
    /// The parameter, or `None` when the function must not run (a decline for [`Elicit`]).
    fn from_outcome(outcome: Elicited<Self::Form>) -> Option<Self>;
}

impl<T: Elicitation> FromElicitation for Elicit<T> {
    type Form = T;
    fn from_outcome(outcome: Elicited<T>) -> Option<Self> {
        outcome.accepted().map(Elicit)
    }
}

impl<T: Elicitation> FromElicitation for Elicited<T> {
    type Form = T;
    fn from_outcome(outcome: Elicited<T>) -> Option<Self> {
        Some(outcome)
    }
}

/// What the client's LLM answered to the sampling request built by `#[mcp(ask = …)]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample(pub(crate) CreateMessageResult);

impl Sample {
    /// The first text block of the answer, if any.
    pub fn text(&self) -> Option<&str> {
        self.0.content.as_slice().iter().find_map(|c| c.as_text())
    }

    /// The whole result.
    pub fn into_inner(self) -> CreateMessageResult {
        self.0
    }
}

impl Deref for Sample {
    type Target = CreateMessageResult;
    fn deref(&self) -> &CreateMessageResult {
        &self.0
    }
}

/// The client's root folders.
#[derive(Debug, Clone, PartialEq)]
pub struct ListRoots(pub(crate) Vec<Root>);

impl ListRoots {
    /// The roots.
    pub fn into_inner(self) -> Vec<Root> {
        self.0
    }
}

impl Deref for ListRoots {
    type Target = [Root];
    fn deref(&self) -> &[Root] {
        &self.0
    }
}

/// What an [`ElicitUrl`] parameter asks: the message and the URL the user is sent to. Build it
/// with [`ElicitUrl::ask`] in the parameter's `#[mcp(ask = …)]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlQuestion {
    pub(crate) message: String,
    pub(crate) url: String,
}

/// An out-of-band step at a URL (a sign-in, a payment, a consent page) that the user agreed
/// to take: URL-mode elicitation. As a parameter with `#[mcp(ask = ElicitUrl::ask(message,
/// url))]` it makes the runtime ask; the function runs once the user accepted, and a decline
/// or cancel ends the call with an error result saying so, as for [`Elicit`].
///
/// The client declares `elicitation.url` for it (else the call fails with -32021). On
/// 2026-07-28 the question goes out in an `InputRequiredResult`; in a 2025-11-25 session it
/// is an `elicitation/create` request with a fresh `elicitationId`, and once the step is done
/// the function calls [`complete`](Self::complete) to send
/// `notifications/elicitation/complete`. A 2025-11-25 HTTP client that takes no event
/// stream cannot be asked: it gets -32042 with the URL instead, and retries later.
///
/// Accepting says only that the user agreed to go: the server learns that the step is done
/// from the site at the URL (its own callback), never from the client.
///
/// ```
/// use mcp::ElicitUrl;
///
/// /// Links the user's GitHub account.
/// #[mcp::tool]
/// async fn link_github(
///     #[mcp(ask = ElicitUrl::ask("Sign in to GitHub to link your account",
///                                "https://example.com/connect/github"))]
///     sign_in: ElicitUrl,
/// ) -> String {
///     // … wait until the callback at the URL has stored the user's token …
///     sign_in.complete().await;
///     format!("Linked through {}", sign_in.url())
/// }
/// # let _ = mcp::McpServer::new("s").tools(mcp::tools![link_github]);
/// ```
#[derive(Debug, Clone)]
pub struct ElicitUrl {
    pub(crate) question: UrlQuestion,
    pub(crate) elicitation_id: Option<String>,
    pub(crate) ctx: Context,
}

impl ElicitUrl {
    /// The question of an `ElicitUrl` parameter: `message` says why the user should go to
    /// `url`. The URL must not carry credentials or personal data, nor sign the user in by
    /// itself: the client shows it and the user's browser opens it.
    pub fn ask(message: impl Into<String>, url: impl Into<String>) -> UrlQuestion {
        UrlQuestion {
            message: message.into(),
            url: url.into(),
        }
    }

    /// The URL the user agreed to open.
    pub fn url(&self) -> &str {
        &self.question.url
    }

    /// The `elicitationId` of a 2025-11-25 question (`None` on 2026-07-28, which has none).
    pub fn elicitation_id(&self) -> Option<&str> {
        self.elicitation_id.as_deref()
    }

    /// Tells a 2025-11-25 client that the step at the URL is done
    /// (`notifications/elicitation/complete` with the question's `elicitationId`), so it can
    /// close what it showed. Does nothing on 2026-07-28, where the call's result says it.
    pub async fn complete(&self) {
        let Some(id) = &self.elicitation_id else {
            return;
        };
        if self.ctx.generation() != Generation::V2025_11_25 {
            return;
        }
        let params = ElicitationCompleteParams {
            elicitation_id: id.clone(),
        };
        self.ctx
            .notify(notification_methods::ELICITATION_COMPLETE, &params)
            .await;
    }
}
