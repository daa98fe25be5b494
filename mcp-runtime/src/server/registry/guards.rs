//! Compile-time guards the macros route return types and handler futures through, so a rule the
//! syntax cannot see (behind a type alias, inside a future) is still an error at the user's
//! tokens, worded as a sentence.

use std::borrow::Cow;
use std::fmt::Display;
use std::future::Future;
use std::marker::PhantomData;

use crate::boxed::BoxFuture;
use crate::protocol::{
    CallToolResult, ContentBlock, GetPromptResult, McpError, Outcome, PromptMessage,
    ReadResourceResult, ResourceContents,
};

use super::prompts::IntoPromptOutcome;
use super::resources::IntoResourceOutcome;
use super::returns::{IntoToolOutcome, Json};
use super::schema::OutputSchema;

/// A return type that can never carry an `InputRequiredResult`. Every impl is
/// `do_not_recommend`, so a failing guard reports the guard's own sentence, never this trait.
///
/// A return type added to `IntoToolOutcome`, `IntoPromptOutcome` or `IntoResourceOutcome` that
/// cannot ask needs its line in `never_asks!` too, or functions with Resolve parameters (and
/// static resources) cannot return it; the list proves each entry against `CAN_ASK`.
pub trait NeverAsks {}

/// `NeverAsks` for each type, with a compile-time proof that none of the return-conversion
/// traits it implements says it can ask.
macro_rules! never_asks {
    ($($ty:ty => [$($outcome:ident),*];)*) => {$(
        #[diagnostic::do_not_recommend]
        impl NeverAsks for $ty {}
        $(const _: () = assert!(!<$ty as $outcome>::CAN_ASK);)*
    )*};
}

never_asks! {
    CallToolResult => [IntoToolOutcome];
    ContentBlock => [IntoToolOutcome];
    Vec<ContentBlock> => [IntoToolOutcome];
    () => [IntoToolOutcome];
    String => [IntoToolOutcome, IntoPromptOutcome, IntoResourceOutcome];
    &'static str => [IntoToolOutcome, IntoPromptOutcome, IntoResourceOutcome];
    Cow<'static, str> => [IntoToolOutcome];
    bool => [IntoToolOutcome];
    i8 => [IntoToolOutcome];
    i16 => [IntoToolOutcome];
    i32 => [IntoToolOutcome];
    i64 => [IntoToolOutcome];
    i128 => [IntoToolOutcome];
    isize => [IntoToolOutcome];
    u8 => [IntoToolOutcome];
    u16 => [IntoToolOutcome];
    u32 => [IntoToolOutcome];
    u64 => [IntoToolOutcome];
    u128 => [IntoToolOutcome];
    usize => [IntoToolOutcome];
    f32 => [IntoToolOutcome];
    f64 => [IntoToolOutcome];
    GetPromptResult => [IntoPromptOutcome];
    Vec<PromptMessage> => [IntoPromptOutcome];
    PromptMessage => [IntoPromptOutcome];
    Vec<u8> => [IntoResourceOutcome];
    ResourceContents => [IntoResourceOutcome];
    Vec<ResourceContents> => [IntoResourceOutcome];
    ReadResourceResult => [IntoResourceOutcome];
}

#[diagnostic::do_not_recommend]
impl<T> NeverAsks for Json<T> {}

// `InputRequiredResult` is not `Display`, so `Result<T, InputRequiredResult>` is left out.
#[diagnostic::do_not_recommend]
impl<T: NeverAsks, E: Display> NeverAsks for Result<T, E> {}

/// The return type of a tool with Resolve parameters: the runtime asks for them, so the function
/// returns only its final result. Works through type aliases.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a tool whose Resolve parameters ask the client",
    label = "not a final tool result",
    note = "the runtime asks for the Resolve parameters and runs the function once they are \
            answered, so it returns its final result: text, `mcp::Json<T>`, `CallToolResult`, \
            content blocks, or a `Result` of these whose error is `Display` (never \
            `InputRequiredResult` or `Outcome`)",
    note = "`mcp::Json<T>` needs `T` to derive `serde::Serialize` and `schemars::JsonSchema` \
            (schemars 1.x, `schemars = \"1\"` in Cargo.toml; a 0.8 derive implements another \
            trait and does not count)"
)]
pub trait ResolvedToolReturn: Sized {
    /// [`IntoToolOutcome::output_schema`].
    fn output_schema() -> Option<OutputSchema>;
    /// [`IntoToolOutcome::into_tool_outcome`].
    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError>;
}

#[diagnostic::do_not_recommend]
impl<T: IntoToolOutcome + NeverAsks> ResolvedToolReturn for T {
    #[inline]
    fn output_schema() -> Option<OutputSchema> {
        <T as IntoToolOutcome>::output_schema()
    }

    #[inline]
    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
        <T as IntoToolOutcome>::into_tool_outcome(self)
    }
}

/// The return type of a prompt with Resolve parameters.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a prompt whose Resolve parameters ask the client",
    label = "not a final prompt result",
    note = "the runtime asks for the Resolve parameters and runs the function once they are \
            answered, so it returns its final messages: `Vec<PromptMessage>`, a \
            `PromptMessage`, text, `GetPromptResult`, or a `Result` of these whose error is \
            `Display` (never `InputRequiredResult` or `Outcome`)"
)]
pub trait ResolvedPromptReturn: Sized {
    /// [`IntoPromptOutcome::into_prompt_outcome`].
    fn into_prompt_outcome(self, prompt: &str) -> Result<Outcome<GetPromptResult>, McpError>;
}

#[diagnostic::do_not_recommend]
impl<T: IntoPromptOutcome + NeverAsks> ResolvedPromptReturn for T {
    #[inline]
    fn into_prompt_outcome(self, prompt: &str) -> Result<Outcome<GetPromptResult>, McpError> {
        <T as IntoPromptOutcome>::into_prompt_outcome(self, prompt)
    }
}

/// The return type of a resource template with Resolve parameters.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a resource whose Resolve parameters ask the client",
    label = "not final resource contents",
    note = "the runtime asks for the Resolve parameters and runs the function once they are \
            answered, so it returns its final contents: text, `Vec<u8>`, `ResourceContents`, \
            `ReadResourceResult`, or a `Result` of these whose error is `Display` (never \
            `InputRequiredResult` or `Outcome`)"
)]
pub trait ResolvedResourceReturn: Sized {
    /// [`IntoResourceOutcome::into_resource_outcome`].
    fn into_resource_outcome(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError>;
}

#[diagnostic::do_not_recommend]
impl<T: IntoResourceOutcome + NeverAsks> ResolvedResourceReturn for T {
    #[inline]
    fn into_resource_outcome(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        <T as IntoResourceOutcome>::into_resource_outcome(self, uri, mime_type)
    }
}

/// The return type of a static resource (a URI without `{variables}`), which may not ask.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a static resource",
    label = "not contents a static resource can return",
    note = "a static resource returns text, `Vec<u8>`, `ResourceContents`, \
            `ReadResourceResult`, or a `Result` of these whose error is `Display`; only resource \
            templates (URIs with `{{variables}}`) may ask the client with `InputRequiredResult`"
)]
pub trait StaticResourceReturn: Sized {
    /// [`IntoResourceOutcome::into_resource_outcome`].
    fn into_resource_outcome(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError>;
}

#[diagnostic::do_not_recommend]
impl<T: IntoResourceOutcome + NeverAsks> StaticResourceReturn for T {
    #[inline]
    fn into_resource_outcome(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        <T as IntoResourceOutcome>::into_resource_outcome(self, uri, mime_type)
    }
}

/// Boxes a handler's future whether or not it is `Send`, so the wrapper itself never fails to
/// compile over it. Method resolution picks [`BoxSend`] when the future is `Send` (the normal
/// case: the future itself, boxed once) and [`BoxNotSend`] otherwise; the macros then also emit a
/// check, spanned at the parameter or function that breaks `Send`, so the second case never
/// builds and its never-ready future never runs.
///
/// Call as `(&&SendProbe::of(&future)).boxed(future)` with both traits in scope.
pub struct SendProbe<F>(PhantomData<F>);

impl<F> SendProbe<F> {
    /// The probe for `future`'s type.
    #[inline]
    pub fn of(_: &F) -> Self {
        SendProbe(PhantomData)
    }
}

/// The [`SendProbe`] case of a `Send` future.
pub trait BoxSend<F: Future> {
    /// `future`, boxed.
    fn boxed(&self, future: F) -> BoxFuture<F::Output>;
}

impl<F: Future + Send + 'static> BoxSend<F> for &SendProbe<F> {
    #[inline]
    fn boxed(&self, future: F) -> BoxFuture<F::Output> {
        Box::pin(future)
    }
}

/// The [`SendProbe`] case of a future that is not `Send` (a compile error elsewhere).
pub trait BoxNotSend<F: Future> {
    /// A future that never completes, standing in for `future`.
    fn boxed(&self, future: F) -> BoxFuture<F::Output>;
}

impl<F: Future> BoxNotSend<F> for SendProbe<F>
where
    F::Output: 'static,
{
    fn boxed(&self, _: F) -> BoxFuture<F::Output> {
        Box::pin(std::future::pending())
    }
}

/// What the macros' generated `Send` checks go through: `(&&SendGate::<P>::new())
/// .future_must_be_send(&future)` requires `future: Send` only when `P` (the parameter types,
/// checked one by one before) is `Send`, so a parameter that is not `Send` is reported once, at
/// the parameter, and not again through the future that holds it.
pub struct SendGate<T>(PhantomData<T>);

impl<T> SendGate<T> {
    /// The gate for `T`.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        SendGate(PhantomData)
    }

    /// The gate for `T` and the type of `future` together.
    pub fn after<F>(_: &F) -> SendGate<(T, F)> {
        SendGate(PhantomData)
    }
}

/// The open [`SendGate`]: everything checked before is `Send`.
pub trait FutureMustBeSend {
    /// Requires `future` to be `Send`.
    fn future_must_be_send<F: Send>(&self, future: &F) {
        let _ = future;
    }
}

impl<T: Send> FutureMustBeSend for &SendGate<T> {}

/// The closed [`SendGate`]: an earlier check failed and reports the cause.
pub trait SendCheckSkipped {
    /// Requires nothing.
    fn future_must_be_send<F>(&self, future: &F) {
        let _ = future;
    }
}

impl<T> SendCheckSkipped for SendGate<T> {}
