//! What a Resolve parameter holds once the client has answered.

use std::ops::{Deref, DerefMut};

use crate::protocol::{CreateMessageResult, Root};

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
