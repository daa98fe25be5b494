//! Prompts as the macros describe them: the listing, argument decoding, return conversions.

use std::collections::BTreeMap;
use std::fmt::Display;
use std::str::FromStr;
use std::sync::Arc;

use crate::boxed::BoxFuture;
use crate::protocol::{
    GetPromptParams, GetPromptResult, InputRequiredResult, JsonObject, McpError, Outcome, Prompt,
    PromptArgument, PromptMessage,
};
use crate::server::{Context, StateKey};

use super::completion::ArgumentCompletion;
use super::describe::{IconInfo, icons};

/// What answers a `prompts/get` of one prompt.
pub type PromptCall =
    fn(Context, GetPromptParams) -> BoxFuture<Result<Outcome<GetPromptResult>, McpError>>;

/// One argument as `prompts/list` shows it.
#[derive(Debug, Clone, Copy)]
pub struct PromptArgumentInfo {
    /// Its name.
    pub name: &'static str,
    /// A display name.
    pub title: Option<&'static str>,
    /// Its doc comment.
    pub description: Option<&'static str>,
    /// Whether a client must send it.
    pub required: bool,
}

/// The static description `#[mcp::prompt]` writes.
#[derive(Debug, Clone, Copy)]
pub struct PromptInfo {
    /// The name clients get it by.
    pub name: &'static str,
    /// A display name.
    pub title: Option<&'static str>,
    /// What it is for.
    pub description: Option<&'static str>,
    /// Its arguments.
    pub arguments: &'static [PromptArgumentInfo],
    /// Icons for display.
    pub icons: &'static [IconInfo],
    /// Its arguments' own completion functions.
    pub completions: &'static [ArgumentCompletion],
    /// The shared state types its parameters take (checked when the server is built).
    pub requires: &'static [fn() -> StateKey],
}

/// One registered prompt.
#[derive(Clone)]
pub struct PromptEntry {
    pub(crate) prompt: Prompt,
    pub(crate) call: PromptCall,
    pub(crate) requires: Vec<StateKey>,
    pub(crate) completions: &'static [ArgumentCompletion],
    /// Scopes a caller's token must hold to get it.
    pub(crate) scopes: Arc<[String]>,
    /// Why it cannot be served, found when it was assembled; `McpServer::build` reports it.
    pub(crate) invalid: Option<String>,
}

impl PromptEntry {
    /// A prompt written by hand rather than by `#[mcp::prompt]`: its listing as given and the
    /// function that answers `prompts/get` of it.
    ///
    /// ```
    /// use mcp::BoxFuture;
    /// use mcp::protocol::{GetPromptParams, GetPromptResult, McpError, Outcome, Prompt};
    /// use mcp::server::{Context, McpServer, PromptEntry};
    ///
    /// fn hello(_ctx: Context, _get: GetPromptParams) -> BoxFuture<Result<Outcome<GetPromptResult>, McpError>> {
    ///     Box::pin(async { Ok(GetPromptResult::new(vec![mcp::PromptMessage::user("Hello!")]).into()) })
    /// }
    ///
    /// let prompt = Prompt { name: "hello".into(), ..Prompt::default() };
    /// let server = McpServer::new("greeter")
    ///     .prompts([PromptEntry::from_prompt(prompt, hello)])
    ///     .build()?;
    /// # let _ = server;
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn from_prompt(prompt: Prompt, call: PromptCall) -> Self {
        Self {
            prompt,
            call,
            requires: Vec::new(),
            completions: &[],
            scopes: Arc::from([]),
            invalid: None,
        }
    }

    /// Assembles an entry.
    #[doc(hidden)]
    pub fn new(info: PromptInfo, call: PromptCall) -> Self {
        let arguments = info
            .arguments
            .iter()
            .map(|a| PromptArgument {
                name: a.name.to_owned(),
                title: a.title.map(str::to_owned),
                description: a.description.map(str::to_owned),
                required: Some(a.required),
            })
            .collect::<Vec<_>>();
        let prompt = Prompt {
            name: info.name.to_owned(),
            title: info.title.map(str::to_owned),
            description: info.description.map(str::to_owned),
            arguments: (!arguments.is_empty()).then_some(arguments),
            icons: icons(info.icons),
            ..Prompt::default()
        };
        Self {
            prompt,
            call,
            requires: info.requires.iter().map(|key| key()).collect(),
            completions: info.completions,
            scopes: Arc::from([]),
            invalid: None,
        }
    }

    /// Sets the listing's `_meta` from `meta = …` (or records why it cannot).
    #[doc(hidden)]
    pub fn with_meta(mut self, meta: Result<JsonObject, String>) -> Self {
        match meta {
            Ok(meta) => self.prompt.meta = Some(meta),
            Err(reason) => self.invalid = Some(reason),
        }
        self
    }

    /// Gets only for callers whose access token holds every one of `scopes`
    /// (`#[mcp::prompt(scopes = ["notes:read"])]`), added to any given before; the prompt stays
    /// listed for everybody. As for a tool: see
    /// [`ToolEntry::scopes`](super::ToolEntry::scopes).
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let held = self.scopes.iter().cloned();
        self.scopes = held.chain(scopes.into_iter().map(Into::into)).collect();
        self
    }

    /// The scopes a caller must hold to get the prompt.
    pub fn required_scopes(&self) -> &[String] {
        &self.scopes
    }

    /// How the prompt is listed.
    pub fn prompt(&self) -> &Prompt {
        &self.prompt
    }
}

impl std::fmt::Debug for PromptEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptEntry")
            .field("prompt", &self.prompt)
            .finish_non_exhaustive()
    }
}

/// Implemented by `#[mcp::prompt]` for the function's hidden twin type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an MCP prompt",
    label = "not a prompt",
    note = "annotate the function with `#[mcp::prompt]`"
)]
pub trait PromptDef {
    /// The registration.
    fn entry() -> PromptEntry;
}

/// A prompt argument's type. Prompt arguments travel as strings, so it is anything parsed with
/// `FromStr` whose error is `Display` (`String`, numbers, `bool`, your own types): required, or
/// optional as an `Option` of one. A value that does not parse is `-32602` naming the argument,
/// as for a resource template's variables.
///
/// `M` tells the two kinds of impl apart (`Parsed` for `T`, `Optional` for `Option<T>`): with
/// one blanket impl over `FromStr` the `Option` impl would overlap, since std may some day make
/// `Option<T>` parse. Generated code names it as `PromptArgumentType<_>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a prompt argument",
    label = "prompt arguments are parsed from strings with `FromStr`",
    note = "use `String`, a number, or a type implementing `FromStr` with a `Display` error, \
            or an `Option` of one for an optional argument"
)]
pub trait PromptArgumentType<M>: Sized {
    /// Whether a client must send it.
    const REQUIRED: bool;
    /// Takes it out of the request's arguments.
    fn take(
        arguments: &mut BTreeMap<String, String>,
        prompt: &str,
        name: &str,
    ) -> Result<Self, McpError>;
}

/// The [`PromptArgumentType`] impl of a required argument.
#[derive(Debug)]
pub enum Parsed {}

/// The [`PromptArgumentType`] impl of an optional argument.
#[derive(Debug)]
pub enum Optional {}

impl<T> PromptArgumentType<Parsed> for T
where
    T: FromStr,
    T::Err: Display,
{
    const REQUIRED: bool = true;

    fn take(
        arguments: &mut BTreeMap<String, String>,
        prompt: &str,
        name: &str,
    ) -> Result<Self, McpError> {
        let raw = arguments.remove(name).ok_or_else(|| {
            McpError::invalid_params(format!(
                "Missing required argument `{name}` for prompt `{prompt}`"
            ))
        })?;
        parse(&raw, prompt, name)
    }
}

impl<T> PromptArgumentType<Optional> for Option<T>
where
    T: FromStr,
    T::Err: Display,
{
    const REQUIRED: bool = false;

    fn take(
        arguments: &mut BTreeMap<String, String>,
        prompt: &str,
        name: &str,
    ) -> Result<Self, McpError> {
        arguments
            .remove(name)
            .map(|raw| parse(&raw, prompt, name))
            .transpose()
    }
}

fn parse<T>(raw: &str, prompt: &str, name: &str) -> Result<T, McpError>
where
    T: FromStr,
    T::Err: Display,
{
    raw.parse().map_err(|e| {
        McpError::invalid_params(format!(
            "Invalid value for argument `{name}` of prompt `{prompt}`: {e}"
        ))
    })
}

/// A value a `#[mcp::prompt]` function can return: messages (`Vec<PromptMessage>`, one
/// `PromptMessage`, or text as one user message), a [`GetPromptResult`], or a `Result` of these
/// whose error is `Display` (a `-32603` naming the prompt) or `InputRequiredResult`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP prompt",
    label = "this return type is not a prompt result",
    note = "return `Vec<PromptMessage>`, `PromptMessage`, text, `GetPromptResult`, or a `Result` \
            of these whose error is `Display` or `InputRequiredResult`"
)]
pub trait IntoPromptOutcome {
    /// Whether this type can carry an `InputRequiredResult`.
    const CAN_ASK: bool = false;

    /// The answer.
    fn into_prompt_outcome(self, prompt: &str) -> Result<Outcome<GetPromptResult>, McpError>;
}

impl IntoPromptOutcome for GetPromptResult {
    fn into_prompt_outcome(self, _: &str) -> Result<Outcome<GetPromptResult>, McpError> {
        Ok(Outcome::Complete(self))
    }
}

impl IntoPromptOutcome for Vec<PromptMessage> {
    fn into_prompt_outcome(self, _: &str) -> Result<Outcome<GetPromptResult>, McpError> {
        Ok(Outcome::Complete(GetPromptResult::new(self)))
    }
}

impl IntoPromptOutcome for PromptMessage {
    fn into_prompt_outcome(self, _: &str) -> Result<Outcome<GetPromptResult>, McpError> {
        Ok(Outcome::Complete(GetPromptResult::new(vec![self])))
    }
}

impl IntoPromptOutcome for String {
    fn into_prompt_outcome(self, _: &str) -> Result<Outcome<GetPromptResult>, McpError> {
        Ok(Outcome::Complete(GetPromptResult::new(vec![
            PromptMessage::user(self),
        ])))
    }
}

impl IntoPromptOutcome for &'static str {
    fn into_prompt_outcome(self, _: &str) -> Result<Outcome<GetPromptResult>, McpError> {
        Ok(Outcome::Complete(GetPromptResult::new(vec![
            PromptMessage::user(self),
        ])))
    }
}

impl IntoPromptOutcome for InputRequiredResult {
    const CAN_ASK: bool = true;

    fn into_prompt_outcome(self, _: &str) -> Result<Outcome<GetPromptResult>, McpError> {
        Ok(Outcome::InputRequired(self))
    }
}

impl IntoPromptOutcome for Outcome<GetPromptResult> {
    const CAN_ASK: bool = true;

    fn into_prompt_outcome(self, _: &str) -> Result<Outcome<GetPromptResult>, McpError> {
        Ok(self)
    }
}

impl<T: IntoPromptOutcome, E: Display> IntoPromptOutcome for Result<T, E> {
    const CAN_ASK: bool = T::CAN_ASK;

    fn into_prompt_outcome(self, prompt: &str) -> Result<Outcome<GetPromptResult>, McpError> {
        match self {
            Ok(value) => value.into_prompt_outcome(prompt),
            Err(error) => Err(McpError::internal(format!(
                "Error rendering prompt `{prompt}`: {error}"
            ))),
        }
    }
}

impl<T: IntoPromptOutcome> IntoPromptOutcome for Result<T, InputRequiredResult> {
    const CAN_ASK: bool = true;

    fn into_prompt_outcome(self, prompt: &str) -> Result<Outcome<GetPromptResult>, McpError> {
        match self {
            Ok(value) => value.into_prompt_outcome(prompt),
            Err(ask) => Ok(Outcome::InputRequired(ask)),
        }
    }
}
