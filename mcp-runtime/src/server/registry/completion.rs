//! Completion of one prompt argument or template variable, as `#[mcp(complete = f)]` names it:
//! the shapes of function that may complete, and the `completion/complete` handler that routes
//! each request to the function of its argument (the server's `on_complete` answering the rest).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Display;
use std::future::Future;

use crate::boxed::BoxFuture;
use crate::protocol::{CompleteParams, CompleteResult, McpError};
use crate::server::Context;

/// What answers `completion/complete` for one argument.
pub type CompleteCall = fn(Context, CompleteParams) -> BoxFuture<Result<CompleteResult, McpError>>;

/// One argument's completion, as the macros register it.
#[derive(Debug, Clone, Copy)]
pub struct ArgumentCompletion {
    /// The argument's (or variable's) name on the wire.
    pub argument: &'static str,
    /// Its completion function, wrapped.
    pub complete: CompleteCall,
}

/// What a completion function taking two parameters gets besides the typed value: the request
/// context and the values the client has already given for the other arguments (to complete a
/// city within the country chosen before, say).
///
/// ```
/// use mcp::server::CompletionRequest;
///
/// /// Cities of the country already chosen, starting with what was typed.
/// async fn cities(prefix: String, request: CompletionRequest) -> Vec<String> {
///     let all: &[&str] = match request.argument("country") {
///         Some("PT") => &["Lisbon", "Porto"],
///         _ => &["Paris", "Berlin"],
///     };
///     all.iter().filter(|c| c.starts_with(&prefix)).map(|c| c.to_string()).collect()
/// }
///
/// #[mcp::prompt]
/// async fn trip(country: String, #[mcp(complete = cities)] city: String) -> String {
///     format!("Plan a trip to {city}, {country}.")
/// }
/// # let _ = mcp::McpServer::new("s").prompts(mcp::prompts![trip]).build()?;
/// # Ok::<(), mcp::BuildError>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CompletionRequest {
    /// The request's context: who asks, shared state, cancellation.
    pub ctx: Context,
    /// The values of the other arguments, as far as the client has given them.
    pub arguments: BTreeMap<String, String>,
}

impl CompletionRequest {
    /// The value already given for argument `name`.
    pub fn argument(&self, name: &str) -> Option<&str> {
        self.arguments.get(name).map(String::as_str)
    }
}

/// A function that completes an argument: `async fn(value: String) -> R` or
/// `async fn(value: String, request: CompletionRequest) -> R`, where `value` is what the user has
/// typed so far and `R` is a [`IntoCompletion`] (`Vec<String>`, [`CompleteResult`], or a `Result`
/// of these whose error is `Display`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot complete an argument",
    label = "not a completion function",
    note = "a completion function is `async fn(value: String) -> Vec<String>` or \
            `async fn(value: String, request: mcp::server::CompletionRequest) -> Vec<String>`; it \
            may return a `CompleteResult`, or a `Result` of either whose error is `Display`"
)]
pub trait Completer<Args>: Send + Sync + 'static {
    /// Completes `params.argument` for the request `ctx`.
    fn complete(
        &self,
        ctx: Context,
        params: CompleteParams,
    ) -> BoxFuture<Result<CompleteResult, McpError>>;
}

#[diagnostic::do_not_recommend]
impl<F, Fut> Completer<(String,)> for F
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoCompletion,
{
    fn complete(
        &self,
        _: Context,
        params: CompleteParams,
    ) -> BoxFuture<Result<CompleteResult, McpError>> {
        let name = params.argument.name;
        let future = self(params.argument.value);
        Box::pin(async move { future.await.into_completion(&name) })
    }
}

#[diagnostic::do_not_recommend]
impl<F, Fut> Completer<(String, CompletionRequest)> for F
where
    F: Fn(String, CompletionRequest) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoCompletion,
{
    fn complete(
        &self,
        ctx: Context,
        params: CompleteParams,
    ) -> BoxFuture<Result<CompleteResult, McpError>> {
        let name = params.argument.name;
        let mut arguments = params.context.and_then(|c| c.arguments).unwrap_or_default();
        // The argument being typed is `value`, not one of the others.
        arguments.remove(&name);
        let future = self(params.argument.value, CompletionRequest { ctx, arguments });
        Box::pin(async move { future.await.into_completion(&name) })
    }
}

/// Runs `completer` for one request: what the wrapper the macros generate calls, so a function
/// of the wrong shape is reported at `complete = …`.
pub fn run_completer<Args, C: Completer<Args>>(
    completer: C,
    ctx: Context,
    params: CompleteParams,
) -> BoxFuture<Result<CompleteResult, McpError>> {
    completer.complete(ctx, params)
}

/// What a completion function may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a completion function",
    label = "not a list of suggestions",
    note = "return `Vec<String>`, a `CompleteResult`, or a `Result` of either whose error is `Display`"
)]
pub trait IntoCompletion {
    /// The answer for argument `argument`.
    fn into_completion(self, argument: &str) -> Result<CompleteResult, McpError>;
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self, _: &str) -> Result<CompleteResult, McpError> {
        Ok(CompleteResult::values(self))
    }
}

impl IntoCompletion for CompleteResult {
    fn into_completion(self, _: &str) -> Result<CompleteResult, McpError> {
        Ok(self)
    }
}

impl<T: IntoCompletion, E: Display> IntoCompletion for Result<T, E> {
    fn into_completion(self, argument: &str) -> Result<CompleteResult, McpError> {
        match self {
            Ok(value) => value.into_completion(argument),
            Err(error) => Err(McpError::internal(format!(
                "Error completing `{argument}`: {error}"
            ))),
        }
    }
}

/// Whose argument a completion belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Owner {
    Prompt,
    Resource,
}

/// Every argument's completion function, by owner, owner's name (a prompt's name, a template's
/// URI template) and argument name; `known` lists the owners registered at all.
#[derive(Default)]
pub(crate) struct Completions {
    pub calls: HashMap<(Owner, String, String), CompleteCall>,
    pub known: std::collections::HashSet<(Owner, String)>,
}
