//! A tool as the macros describe it: its listing and the function that answers a call.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::boxed::BoxFuture;
use crate::protocol::{
    CallToolParams, CallToolResult, JsonObject, McpError, Outcome, Tool, ToolAnnotations,
};
use crate::server::{Context, StateKey};

use super::describe::{IconInfo, icons};
use super::policy::{RateLimit, ToolPolicy};
use super::schema::OutputSchema;

/// What answers a call of one tool.
pub type ToolCall =
    fn(Context, CallToolParams) -> BoxFuture<Result<Outcome<CallToolResult>, McpError>>;

/// Whether a tool may run as a task of the tasks extension (`io.modelcontextprotocol/tasks`):
/// answer `tools/call` with a task handle at once, run in the background, and be polled with
/// `tasks/get` for its status, its questions and its result.
///
/// `#[mcp::tool(task = "optional")]` or `task = "required"` sets it; a hand-written
/// [`ToolEntry`] takes it from [`ToolEntry::task`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TaskSupport {
    /// Always answered in the call, never as a task (the default).
    #[default]
    Forbidden,
    /// A task for every client that declared the tasks extension on the request; answered in
    /// the call for the others.
    Optional,
    /// Only as a task: a client that did not declare the tasks extension on the request gets
    /// `-32021` naming it in `requiredCapabilities`.
    Required,
}

/// The static description the `#[mcp::tool]` macro writes for a tool.
#[derive(Debug, Clone, Copy)]
pub struct ToolInfo {
    /// The name clients call it by.
    pub name: &'static str,
    /// A display name.
    pub title: Option<&'static str>,
    /// What it does (from the doc comment).
    pub description: Option<&'static str>,
    /// Read-only hint.
    pub read_only: Option<bool>,
    /// Destructive hint.
    pub destructive: Option<bool>,
    /// Idempotent hint.
    pub idempotent: Option<bool>,
    /// Open-world hint.
    pub open_world: Option<bool>,
    /// Icons for display.
    pub icons: &'static [IconInfo],
    /// The shared state types its parameters take (checked when the server is built).
    pub requires: &'static [fn() -> StateKey],
    /// Whether it may run as a task (`task = …`).
    pub task: TaskSupport,
    /// In a task, its Resolve parameters are asked on the `tools/call` itself, round by round,
    /// before the task is made (`ask_before_task`); otherwise through the task's
    /// `input_required` status.
    pub ask_before_task: bool,
}

/// One registered tool: its listing and its call, ready for [`McpServer`](super::McpServer).
#[derive(Clone)]
pub struct ToolEntry {
    pub(crate) tool: Tool,
    pub(crate) call: ToolCall,
    pub(crate) wraps_output: bool,
    pub(crate) requires: Vec<StateKey>,
    pub(crate) task: TaskSupport,
    pub(crate) ask_before_task: bool,
    /// Scopes, timeout, rate limit; `None` when it has none of them.
    pub(crate) policy: Option<Arc<ToolPolicy>>,
    /// Why it cannot be served, found when it was assembled; `McpServer::build` reports it.
    pub(crate) invalid: Option<String>,
}

impl ToolEntry {
    /// A tool written by hand rather than by `#[mcp::tool]`: its listing as given (say, an
    /// input schema no Rust type derives) and the function that answers its calls.
    ///
    /// ```
    /// use mcp::BoxFuture;
    /// use mcp::protocol::{CallToolParams, CallToolResult, McpError, Outcome, Tool};
    /// use mcp::server::{Context, McpServer, ToolEntry};
    ///
    /// fn shout(_ctx: Context, call: CallToolParams) -> BoxFuture<Result<Outcome<CallToolResult>, McpError>> {
    ///     let text = call.arguments.and_then(|a| a.get("text")?.as_str().map(str::to_uppercase));
    ///     Box::pin(async move { Ok(CallToolResult::text(text.unwrap_or_default()).into()) })
    /// }
    ///
    /// let schema = serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}}});
    /// let server = McpServer::new("loud")
    ///     .tools([ToolEntry::from_tool(Tool::new("shout", schema), shout)])
    ///     .build()?;
    /// # let _ = server;
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn from_tool(tool: Tool, call: ToolCall) -> Self {
        Self {
            tool,
            call,
            wraps_output: false,
            requires: Vec::new(),
            task: TaskSupport::Forbidden,
            ask_before_task: false,
            policy: None,
            invalid: None,
        }
    }

    /// Assembles the entry `#[mcp::tool]` describes; the schemas are computed here, once, never
    /// per call.
    #[doc(hidden)]
    pub fn new(
        info: ToolInfo,
        input_schema: fn() -> Value,
        output_schema: fn() -> Option<OutputSchema>,
        call: ToolCall,
    ) -> Self {
        let output = output_schema();
        let hints = [
            info.read_only,
            info.destructive,
            info.idempotent,
            info.open_world,
        ];
        let annotations = hints
            .iter()
            .any(Option::is_some)
            .then_some(ToolAnnotations {
                title: None,
                read_only_hint: info.read_only,
                destructive_hint: info.destructive,
                idempotent_hint: info.idempotent,
                open_world_hint: info.open_world,
            });
        let mut tool = Tool::new(info.name, input_schema());
        tool.title = info.title.map(str::to_owned);
        tool.description = info.description.map(str::to_owned);
        tool.annotations = annotations;
        tool.icons = icons(info.icons);
        tool.output_schema = output.as_ref().map(|o| Arc::new(o.schema.clone()));
        Self {
            tool,
            call,
            wraps_output: output.is_some_and(|o| o.wrapped),
            requires: info.requires.iter().map(|key| key()).collect(),
            task: info.task,
            ask_before_task: info.ask_before_task,
            policy: None,
            invalid: None,
        }
    }

    /// Sets the listing's `_meta` from `meta = …` (or records why it cannot).
    #[doc(hidden)]
    pub fn with_meta(mut self, meta: Result<JsonObject, String>) -> Self {
        match meta {
            Ok(meta) => self.tool.meta = Some(meta),
            Err(reason) => self.invalid = Some(reason),
        }
        self
    }

    /// Lets the tool run as a task (see [`TaskSupport`]); by default it never does.
    pub fn task(mut self, support: TaskSupport) -> Self {
        self.task = support;
        self
    }

    /// Calls only by callers whose access token holds every one of `scopes`
    /// (`#[mcp::tool(scopes = ["notes:write"])]`); added to any given before.
    ///
    /// Any other caller is refused with `-32003` naming the scopes, which over HTTP is a
    /// `403` with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`, the
    /// challenge a client answers by authorizing again for those scopes (MCP's step-up).
    /// Every round of a multi-round call is checked, and a call that would start a task.
    ///
    /// The tool stays in `tools/list` for every caller: a listing that differed per caller
    /// could not be cached publicly nor announced by one `list_changed`, and a client that
    /// never saw the tool could never call it to learn which scopes to ask for.
    ///
    /// A request without a verified caller is not checked: only a transport that
    /// authenticates (HTTP with `auth`) has tokens and scopes; over stdio the server runs
    /// with its user's own credentials, as the MCP spec has it. Scopes are compared exactly.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp::protocol::{CallToolParams, CallToolResult, McpError, Outcome, Tool};
    /// use mcp::server::{Context, RateLimit, ToolEntry};
    /// use mcp::BoxFuture;
    ///
    /// fn erase(_ctx: Context, _call: CallToolParams) -> BoxFuture<Result<Outcome<CallToolResult>, McpError>> {
    ///     Box::pin(async { Ok(CallToolResult::text("erased").into()) })
    /// }
    ///
    /// let entry = ToolEntry::from_tool(Tool::new("erase", serde_json::json!({"type": "object"})), erase)
    ///     .scopes(["notes:write"])
    ///     .timeout(Duration::from_secs(30))
    ///     .rate_limit(RateLimit::per_minute(10));
    /// assert_eq!(entry.required_scopes(), ["notes:write"]);
    /// ```
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let policy = Arc::make_mut(self.policy.get_or_insert_default());
        policy.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Ends each round of a call that runs longer than `timeout`
    /// (`#[mcp::tool(timeout = "30s")]`): the function's future is dropped, so it stops at its
    /// next `.await`, and the call answers with a tool error (`isError: true`) saying so.
    /// In a task the task's rounds are bounded the same way.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        Arc::make_mut(self.policy.get_or_insert_default()).timeout = Some(timeout);
        self
    }

    /// Lets each caller call the tool at most as often as `limit` says
    /// (`#[mcp::tool(rate_limit = "10/min")]`; see [`RateLimit`] for who one caller is).
    ///
    /// A call over the limit answers with a tool error (`isError: true`) saying when to try
    /// again: the model reading it can wait or do something else, where a JSON-RPC error
    /// would stop the client's whole turn. A multi-round call counts once, on its first
    /// round; a call that starts a task counts like any other.
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        Arc::make_mut(self.policy.get_or_insert_default()).with_rate_limit(limit);
        self
    }

    /// The scopes a caller must hold to call the tool (see [`scopes`](Self::scopes)).
    pub fn required_scopes(&self) -> &[String] {
        self.policy.as_ref().map_or(&[], |p| &p.scopes)
    }

    /// Whether the tool may run as a task.
    pub fn task_support(&self) -> TaskSupport {
        self.task
    }

    /// Whether, in a task, its Resolve parameters are asked on the `tools/call` itself before
    /// the task is made (`#[mcp::tool(ask_before_task)]`), rather than through the task's
    /// `input_required` status.
    pub fn asks_before_task(&self) -> bool {
        self.ask_before_task
    }

    /// How the tool is listed in `tools/list`.
    pub fn tool(&self) -> &Tool {
        &self.tool
    }
}

impl std::fmt::Debug for ToolEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolEntry")
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}

/// Implemented by `#[mcp::tool]` for the function's hidden twin type, so `mcp::tools![f]`
/// finds the tool the compiler knows about, not a string.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an MCP tool",
    label = "not a tool",
    note = "annotate the function with `#[mcp::tool]`"
)]
pub trait ToolDef {
    /// The registration.
    fn entry() -> ToolEntry;
}
