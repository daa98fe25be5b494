//! Assembling a [`Server`]: identity, handlers, limits.

use std::future::Future;
use std::sync::Arc;

use crate::protocol::{
    CacheHint, CallToolParams, CallToolResult, CompleteParams, CompleteResult, GetPromptParams,
    GetPromptResult, Implementation, ListChangedCapability, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, McpError, Outcome,
    PaginatedParams, Prompt, ReadResourceParams, ReadResourceResult, Resource, ResourceTemplate,
    ResourcesCapability, ServerCapabilities, Tool, paginate,
};

use crate::state::{ConfigError, RequestStateSecurity, StateBoundary};

use super::Server;
use super::app_state::AppState;
use super::context::RequestContext;
use super::handlers::{Handler, erase};

/// The longest message accepted by default (4 MiB).
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 4 * 1024 * 1024;
/// Items per page of the built-in list handlers.
pub const DEFAULT_PAGE_SIZE: usize = 100;

#[derive(Default)]
pub(crate) struct Handlers {
    pub list_tools: Option<Handler<PaginatedParams, ListToolsResult>>,
    pub call_tool: Option<Handler<CallToolParams, Outcome<CallToolResult>>>,
    pub list_prompts: Option<Handler<PaginatedParams, ListPromptsResult>>,
    pub get_prompt: Option<Handler<GetPromptParams, Outcome<GetPromptResult>>>,
    pub list_resources: Option<Handler<PaginatedParams, ListResourcesResult>>,
    pub list_resource_templates: Option<Handler<PaginatedParams, ListResourceTemplatesResult>>,
    pub read_resource: Option<Handler<ReadResourceParams, Outcome<ReadResourceResult>>>,
    pub complete: Option<Handler<CompleteParams, CompleteResult>>,
}

/// Builds a low-level [`Server`]: one handler per method.
///
/// `on_call_tool`, `on_get_prompt` and `on_read_resource` may finish or ask for input
/// (their closures return anything that converts into [`Outcome`]); every other handler returns
/// its plain result type, so asking for input from, say, `tools/list` does not compile.
///
/// ```
/// use mcp_runtime::protocol::{CallToolResult, Implementation, Tool};
/// use mcp_runtime::server::Server;
///
/// let server = Server::builder(Implementation::new("echo", "1.0.0"))
///     .tools(vec![Tool::new("echo", serde_json::json!({"type": "object"}))])
///     .on_call_tool(|_ctx, params| async move {
///         let text = params.arguments.and_then(|a| a.get("text").cloned()).unwrap_or_default();
///         Ok(CallToolResult::text(text.as_str().unwrap_or_default()))
///     })
///     .build();
/// # let _ = server;
/// ```
pub struct ServerBuilder {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) handlers: Handlers,
    pub(crate) cache: CacheHint,
    pub(crate) page_size: usize,
    pub(crate) max_message_size: usize,
    pub(crate) logging: bool,
    pub(crate) state: Option<StateBoundary>,
    pub(crate) app_state: AppState,
}

impl ServerBuilder {
    pub(crate) fn new(info: Implementation) -> Self {
        Self {
            info,
            instructions: None,
            handlers: Handlers::default(),
            cache: CacheHint::default(),
            page_size: DEFAULT_PAGE_SIZE,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            logging: true,
            state: None,
            app_state: AppState::default(),
        }
    }

    /// Guidance for the model, returned by `server/discover` and `initialize`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Cache hints for list results and reads that set none themselves (default: 0 ms, private).
    pub fn cache_hint(mut self, hint: CacheHint) -> Self {
        self.cache = hint;
        self
    }

    /// Items per page for the built-in list handlers ([`tools`](Self::tools) and friends).
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.page_size = page_size.max(1);
        self
    }

    /// The longest message accepted (default 4 MiB); longer ones are answered with -32600.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// Whether to advertise the (deprecated) logging capability (default on).
    pub fn logging(mut self, enabled: bool) -> Self {
        self.logging = enabled;
        self
    }

    /// Handles `tools/list`.
    pub fn on_list_tools<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(RequestContext, PaginatedParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ListToolsResult, McpError>> + Send + 'static,
    {
        self.handlers.list_tools = Some(erase(f));
        self
    }

    /// Serves `tools/list` from a fixed list, paginated.
    pub fn tools(self, tools: Vec<Tool>) -> Self {
        let tools: Arc<[Tool]> = tools.into();
        let page_size = self.page_size;
        self.on_list_tools(move |_, params| {
            let page = paginate(&tools, params.cursor.as_deref(), page_size).map(|(page, next)| {
                ListToolsResult {
                    tools: page.to_vec(),
                    next_cursor: next,
                    ..ListToolsResult::default()
                }
            });
            async move { page }
        })
    }

    /// Handles `tools/call`: return a `CallToolResult`, an `InputRequiredResult`, or an
    /// [`Outcome`].
    pub fn on_call_tool<F, Fut, O>(mut self, f: F) -> Self
    where
        F: Fn(RequestContext, CallToolParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, McpError>> + Send + 'static,
        O: Into<Outcome<CallToolResult>> + 'static,
    {
        self.handlers.call_tool = Some(erase(f));
        self
    }

    /// Handles `prompts/list`.
    pub fn on_list_prompts<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(RequestContext, PaginatedParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ListPromptsResult, McpError>> + Send + 'static,
    {
        self.handlers.list_prompts = Some(erase(f));
        self
    }

    /// Serves `prompts/list` from a fixed list, paginated.
    pub fn prompts(self, prompts: Vec<Prompt>) -> Self {
        let prompts: Arc<[Prompt]> = prompts.into();
        let page_size = self.page_size;
        self.on_list_prompts(move |_, params| {
            let page =
                paginate(&prompts, params.cursor.as_deref(), page_size).map(|(page, next)| {
                    ListPromptsResult {
                        prompts: page.to_vec(),
                        next_cursor: next,
                        ..ListPromptsResult::default()
                    }
                });
            async move { page }
        })
    }

    /// Handles `prompts/get`: return a `GetPromptResult`, an `InputRequiredResult`, or an
    /// [`Outcome`].
    pub fn on_get_prompt<F, Fut, O>(mut self, f: F) -> Self
    where
        F: Fn(RequestContext, GetPromptParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, McpError>> + Send + 'static,
        O: Into<Outcome<GetPromptResult>> + 'static,
    {
        self.handlers.get_prompt = Some(erase(f));
        self
    }

    /// Handles `resources/list`.
    pub fn on_list_resources<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(RequestContext, PaginatedParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ListResourcesResult, McpError>> + Send + 'static,
    {
        self.handlers.list_resources = Some(erase(f));
        self
    }

    /// Serves `resources/list` from a fixed list, paginated.
    pub fn resources(self, resources: Vec<Resource>) -> Self {
        let resources: Arc<[Resource]> = resources.into();
        let page_size = self.page_size;
        self.on_list_resources(move |_, params| {
            let page =
                paginate(&resources, params.cursor.as_deref(), page_size).map(|(page, next)| {
                    ListResourcesResult {
                        resources: page.to_vec(),
                        next_cursor: next,
                        ..ListResourcesResult::default()
                    }
                });
            async move { page }
        })
    }

    /// Handles `resources/templates/list`.
    pub fn on_list_resource_templates<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(RequestContext, PaginatedParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ListResourceTemplatesResult, McpError>> + Send + 'static,
    {
        self.handlers.list_resource_templates = Some(erase(f));
        self
    }

    /// Serves `resources/templates/list` from a fixed list, paginated.
    pub fn resource_templates(self, templates: Vec<ResourceTemplate>) -> Self {
        let templates: Arc<[ResourceTemplate]> = templates.into();
        let page_size = self.page_size;
        self.on_list_resource_templates(move |_, params| {
            let page =
                paginate(&templates, params.cursor.as_deref(), page_size).map(|(page, next)| {
                    ListResourceTemplatesResult {
                        resource_templates: page.to_vec(),
                        next_cursor: next,
                        ..ListResourceTemplatesResult::default()
                    }
                });
            async move { page }
        })
    }

    /// Handles `resources/read`: return a `ReadResourceResult`, an `InputRequiredResult`, or
    /// an [`Outcome`]. A missing resource is [`McpError::resource_not_found`].
    pub fn on_read_resource<F, Fut, O>(mut self, f: F) -> Self
    where
        F: Fn(RequestContext, ReadResourceParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, McpError>> + Send + 'static,
        O: Into<Outcome<ReadResourceResult>> + 'static,
    {
        self.handlers.read_resource = Some(erase(f));
        self
    }

    /// Handles `completion/complete`.
    pub fn on_complete<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(RequestContext, CompleteParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CompleteResult, McpError>> + Send + 'static,
    {
        self.handlers.complete = Some(erase(f));
        self
    }

    /// The capabilities implied by the registered handlers.
    fn capabilities(&self) -> ServerCapabilities {
        let h = &self.handlers;
        let empty = || Some(Default::default());
        ServerCapabilities {
            tools: (h.list_tools.is_some() || h.call_tool.is_some())
                .then(ListChangedCapability::default),
            prompts: (h.list_prompts.is_some() || h.get_prompt.is_some())
                .then(ListChangedCapability::default),
            resources: (h.list_resources.is_some()
                || h.list_resource_templates.is_some()
                || h.read_resource.is_some())
            .then(ResourcesCapability::default),
            completions: h.complete.as_ref().and_then(|_| empty()),
            logging: if self.logging { empty() } else { None },
            ..ServerCapabilities::default()
        }
    }

    /// Shares `value` with every handler: `ctx.state::<T>()`, or an `mcp::State<T>` parameter
    /// of a macro-built handler. One value per type; a second call for the same type replaces
    /// the first.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.app_state.insert(value);
        self
    }

    pub(crate) fn with_app_state(mut self, app_state: AppState) -> Self {
        self.app_state = app_state;
        self
    }

    /// Seals every `requestState` this server mints and opens every one it receives, under
    /// `security` (see [`crate::state`]). Without it, handlers' state goes to the client as
    /// plaintext and comes back unverified, which is only safe for state that carries no
    /// authority.
    ///
    /// Fails when the policy has explicit keys but neither the server nor the policy names an
    /// audience.
    ///
    /// ```
    /// use mcp_runtime::protocol::Implementation;
    /// use mcp_runtime::server::Server;
    /// use mcp_runtime::state::RequestStateSecurity;
    ///
    /// let server = Server::builder(Implementation::new("deployer", "1.0.0"))
    ///     .request_state_security(RequestStateSecurity::ephemeral())?
    ///     .build();
    /// # let _ = server;
    /// # Ok::<(), mcp_runtime::state::ConfigError>(())
    /// ```
    pub fn request_state_security(
        mut self,
        security: RequestStateSecurity,
    ) -> Result<Self, ConfigError> {
        self.state = Some(StateBoundary::new(security, &self.info.name)?);
        Ok(self)
    }

    /// Finishes the server.
    pub fn build(self) -> Server {
        let capabilities = self.capabilities();
        Server::from_builder(self, capabilities)
    }
}
