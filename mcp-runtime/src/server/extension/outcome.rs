//! What a multi-round handler answers with on the server: the protocol's [`Outcome`] widened by
//! an extension's own result. Only the server produces the third kind, so the protocol's type,
//! which the client also decodes into, keeps its two.

use crate::protocol::{
    CallToolResult, ExtensionResult, GetPromptResult, InputRequiredResult, Outcome,
    ReadResourceResult,
};

/// What a handler of `tools/call`, `prompts/get` or `resources/read` answers with: the method's
/// result, a request for input, or a result of one of the server's extensions in its place
/// (see [`Extension::result_type`](super::Extension::result_type)).
///
/// Handlers rarely name it: each of the three results, an [`InputRequiredResult`], an
/// [`Outcome`] and an [`ExtensionResult`] convert into it.
///
/// ```
/// use mcp::protocol::{CallToolResult, ExtensionResult, Outcome};
/// use mcp::server::ExtendedOutcome;
///
/// type Answer = ExtendedOutcome<CallToolResult>;
///
/// let plain: Answer = CallToolResult::text("done").into();
/// assert!(matches!(plain, ExtendedOutcome::Complete(_)));
/// let outcome: Answer = Outcome::Complete(CallToolResult::text("done")).into();
/// assert!(matches!(outcome, ExtendedOutcome::Complete(_)));
/// let task: Answer = ExtensionResult::new("task", Default::default()).into();
/// assert!(matches!(task, ExtendedOutcome::Extension(_)));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum ExtendedOutcome<T> {
    /// Done (`resultType: "complete"`).
    Complete(T),
    /// Ask the client, then retry (`resultType: "input_required"`).
    InputRequired(InputRequiredResult),
    /// An extension's result in place of the method's own.
    Extension(ExtensionResult),
}

impl<T> From<Outcome<T>> for ExtendedOutcome<T> {
    fn from(outcome: Outcome<T>) -> Self {
        match outcome {
            Outcome::Complete(result) => Self::Complete(result),
            Outcome::InputRequired(ask) => Self::InputRequired(ask),
        }
    }
}

impl<T> From<InputRequiredResult> for ExtendedOutcome<T> {
    fn from(ask: InputRequiredResult) -> Self {
        Self::InputRequired(ask)
    }
}

impl<T> From<ExtensionResult> for ExtendedOutcome<T> {
    fn from(result: ExtensionResult) -> Self {
        Self::Extension(result)
    }
}

impl From<CallToolResult> for ExtendedOutcome<CallToolResult> {
    fn from(result: CallToolResult) -> Self {
        Self::Complete(result)
    }
}

impl From<GetPromptResult> for ExtendedOutcome<GetPromptResult> {
    fn from(result: GetPromptResult) -> Self {
        Self::Complete(result)
    }
}

impl From<ReadResourceResult> for ExtendedOutcome<ReadResourceResult> {
    fn from(result: ReadResourceResult) -> Self {
        Self::Complete(result)
    }
}
