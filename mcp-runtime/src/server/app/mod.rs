//! [`McpServer`]: the server `#[mcp::tool]` functions are registered on.
//!
//! It turns a list of macro-described tools into a low-level [`Server`]: the listing (schemas
//! computed once), dispatch by name, structured-output wrapping, and sealed `requestState` on by
//! default.

mod args;
pub(crate) mod guards;
pub(crate) mod params;
mod prompts;
mod resources;
mod returns;
mod schema;
mod tools;
mod uri_template;

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::protocol::{
    CallToolResult, CompleteParams, CompleteResult, Implementation, McpError, Outcome,
};
use crate::state::{ConfigError, RequestStateSecurity};
use crate::transport::{Duplex, memory};

use super::app_state::AppState;
use super::handlers::{Handler, erase};
use super::{RequestContext, Server, ServerBuilder};
use resources::Listing;

pub use args::{InvalidArgument, take_arg, take_arg_or};
pub use prompts::{
    IntoPromptOutcome, PromptArgumentInfo, PromptArgumentType, PromptCall, PromptDef, PromptEntry,
    PromptInfo,
};
pub use resources::{
    FromTemplateVar, IntoResourceOutcome, ResourceCall, ResourceDef, ResourceEntry, ResourceInfo,
    TemplateVars,
};
pub use returns::{IntoToolOutcome, Json};
pub use schema::{OutputSchema, input_schema, output_schema};
pub use tools::{ToolCall, ToolDef, ToolEntry, ToolInfo};
pub use uri_template::{TemplateError, UriTemplate};

/// A server assembled from `#[mcp::tool]` functions (registered with `mcp::tools![…]`; see the
/// `mcp` facade crate for the macros).
///
/// ```
/// use mcp_runtime::server::McpServer;
///
/// let server = McpServer::new("greeter")
///     .version("1.2.0")
///     .instructions("Greets people.")
///     .build()?;
/// assert_eq!(server.info().name, "greeter");
/// # Ok::<(), mcp_runtime::server::BuildError>(())
/// ```
///
/// Sealing of `requestState` is on by default with a per-process key
/// ([`RequestStateSecurity::ephemeral`]); pass shared keys with
/// [`request_state_security`](Self::request_state_security) to run several instances.
#[derive(Debug)]
pub struct McpServer {
    info: Implementation,
    instructions: Option<String>,
    tools: Vec<ToolEntry>,
    prompts: Vec<PromptEntry>,
    resources: Vec<ResourceEntry>,
    security: RequestStateSecurity,
    app_state: AppState,
    complete: Option<CompletionHandler>,
    #[cfg(feature = "http")]
    auth: Option<crate::auth::ResourceServer>,
    shutdown: Shutdown,
}

/// How [`McpServer::serve_http`] shuts down; see [`McpServer::grace_period`] and
/// [`McpServer::drain`].
#[derive(Debug, Clone, Copy, Default)]
struct Shutdown {
    grace_period: Option<std::time::Duration>,
    drain: std::time::Duration,
}

/// The `completion/complete` handler, kept aside until [`McpServer::build`] hands it to the
/// low-level builder.
#[derive(Clone)]
struct CompletionHandler(Handler<CompleteParams, CompleteResult>);

impl std::fmt::Debug for CompletionHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CompletionHandler")
    }
}

/// Why an [`McpServer`] could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Two tools, prompts or resources share a name (or URI).
    #[error(
        "two {kind}s are named `{name}` (registrations #{first} and #{second}); {kind} names must be unique"
    )]
    Duplicate {
        /// `tool`, `prompt` or `resource`.
        kind: &'static str,
        /// The name or URI.
        name: String,
        /// Position of the first registration (from 1).
        first: usize,
        /// Position of the second.
        second: usize,
    },
    /// A handler takes shared state that was never registered.
    #[error(
        "{kind} `{name}` takes `State<{state}>`, but no `{state}` was registered: add \
         `.state(value)` to the server"
    )]
    MissingState {
        /// `tool`, `prompt` or `resource`.
        kind: &'static str,
        /// Its name (or URI).
        name: String,
        /// The missing type.
        state: &'static str,
    },
    /// The request-state policy is unusable.
    #[error(transparent)]
    RequestState(#[from] ConfigError),
}

/// Why serving stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The server could not be built.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// The listener failed (e.g. the address is in use).
    #[error("serving failed: {0}")]
    Io(#[from] std::io::Error),
}

impl McpServer {
    /// A server that introduces itself as `name`, version `0.0.0` until [`version`](Self::version).
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            info: Implementation::new(name, "0.0.0"),
            instructions: None,
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            app_state: AppState::default(),
            security: RequestStateSecurity::ephemeral(),
            complete: None,
            shutdown: Shutdown::default(),
            #[cfg(feature = "http")]
            auth: None,
        }
    }

    /// The version it reports.
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.info.version = version.into();
        self
    }

    /// Guidance for the model, sent by `server/discover` and `initialize`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Registers tools, usually `mcp::tools![a, b, c]`.
    pub fn tools(mut self, tools: impl IntoIterator<Item = ToolEntry>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// Registers prompts, usually `mcp::prompts![a, b]`.
    pub fn prompts(mut self, prompts: impl IntoIterator<Item = PromptEntry>) -> Self {
        self.prompts.extend(prompts);
        self
    }

    /// Registers resources and resource templates, usually `mcp::resources![a, b]`.
    pub fn resources(mut self, resources: impl IntoIterator<Item = ResourceEntry>) -> Self {
        self.resources.extend(resources);
        self
    }

    /// Shares `value` with every handler that takes an `mcp::State<T>` parameter (one value
    /// per type).
    ///
    /// A handler reads it as `inventory: mcp::State<Inventory>` (see the `mcp` facade), or
    /// with `ctx.state::<Inventory>()`.
    ///
    /// ```
    /// use mcp_runtime::server::McpServer;
    ///
    /// struct Inventory {
    ///     items: Vec<String>,
    /// }
    ///
    /// let server = McpServer::new("shop")
    ///     .state(Inventory { items: vec!["apple".into()] })
    ///     .build()?;
    /// # let _ = server;
    /// # Ok::<(), mcp_runtime::server::BuildError>(())
    /// ```
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.app_state.insert(value);
        self
    }

    /// Answers `completion/complete` (and declares the `completions` capability), for every
    /// prompt argument and template variable at once.
    ///
    /// The macros have no per-argument completion yet; this is the same handler the low-level
    /// [`ServerBuilder::on_complete`] takes.
    ///
    /// ```
    /// use mcp_runtime::protocol::CompleteResult;
    /// use mcp_runtime::server::McpServer;
    ///
    /// let server = McpServer::new("completer")
    ///     .on_complete(|_ctx, _params| async { Ok(CompleteResult::values(vec!["eu-west-1".into()])) })
    ///     .build()?;
    /// assert!(server.capabilities().completions.is_some());
    /// # Ok::<(), mcp_runtime::server::BuildError>(())
    /// ```
    pub fn on_complete<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(RequestContext, CompleteParams) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<CompleteResult, McpError>> + Send + 'static,
    {
        self.complete = Some(CompletionHandler(erase(f)));
        self
    }

    /// How `requestState` is sealed (default: a random per-process key).
    pub fn request_state_security(mut self, security: RequestStateSecurity) -> Self {
        self.security = security;
        self
    }

    /// How long [`serve_http`](Self::serve_http) lets in-flight requests finish after Ctrl-C or
    /// SIGTERM before it returns anyway (default 30 s, the transport's `DEFAULT_GRACE_PERIOD`).
    ///
    /// ```
    /// # use std::time::Duration;
    /// let server = mcp_runtime::server::McpServer::new("provisioner")
    ///     .grace_period(Duration::from_secs(10));
    /// # let _ = server;
    /// ```
    pub fn grace_period(mut self, grace: std::time::Duration) -> Self {
        self.shutdown.grace_period = Some(grace);
        self
    }

    /// How long, after the signal, [`serve_http`](Self::serve_http) leaves idle keep-alive
    /// connections for their peer to close (default zero). Behind a load balancer that pools
    /// connections, set it longer than the balancer's upstream idle timeout, so a POST is never
    /// sent on a connection the server is closing (the transport's `HttpTransport::drain`).
    ///
    /// ```
    /// # use std::time::Duration;
    /// let server = mcp_runtime::server::McpServer::new("provisioner")
    ///     .drain(Duration::from_secs(3));
    /// # let _ = server;
    /// ```
    pub fn drain(mut self, drain: std::time::Duration) -> Self {
        self.shutdown.drain = drain;
        self
    }

    /// Checks the registrations and assembles the low-level [`Server`].
    pub fn build(self) -> Result<Server, BuildError> {
        unique("tool", self.tools.iter().map(|e| e.tool.name.as_str()))?;
        unique(
            "prompt",
            self.prompts.iter().map(|e| e.prompt.name.as_str()),
        )?;
        unique("resource", self.resources.iter().map(ResourceEntry::uri))?;
        let needs = self
            .tools
            .iter()
            .map(|e| ("tool", e.tool.name.as_str(), &e.requires))
            .chain(
                self.prompts
                    .iter()
                    .map(|e| ("prompt", e.prompt.name.as_str(), &e.requires)),
            )
            .chain(
                self.resources
                    .iter()
                    .map(|e| ("resource", e.uri(), &e.requires)),
            );
        for (kind, name, requires) in needs {
            if let Some(missing) = requires.iter().find(|key| !self.app_state.contains(key)) {
                return Err(BuildError::MissingState {
                    kind,
                    name: name.to_owned(),
                    state: missing.name,
                });
            }
        }
        let mut builder = Server::builder(self.info)
            .request_state_security(self.security)?
            .with_app_state(self.app_state);
        if let Some(instructions) = self.instructions {
            builder = builder.instructions(instructions);
        }
        if !self.tools.is_empty() {
            builder = with_tools(builder, self.tools);
        }
        if !self.prompts.is_empty() {
            builder = with_prompts(builder, self.prompts);
        }
        if !self.resources.is_empty() {
            builder = with_resources(builder, self.resources);
        }
        if let Some(CompletionHandler(complete)) = self.complete {
            builder = builder.on_complete(move |ctx, params| complete(ctx, params));
        }
        Ok(builder.build())
    }

    /// Requires OAuth 2.1 bearer tokens on [`serve_http`](Self::serve_http): the endpoint
    /// becomes a resource server (see [`ResourceServer`](crate::auth::ResourceServer)).
    /// Handlers read the caller with `Context::identity`, and sealed `requestState` is bound to
    /// it. Stdio and in-memory serving ignore it: a local process takes its credentials from
    /// its environment, as the MCP spec says. [`build`](Self::build) does not carry it either;
    /// a server mounted with `HttpTransport` gets it from `HttpTransport::auth`.
    ///
    /// With JWT access tokens (feature `jwt`) this is
    /// `.auth(ResourceServer::jwt(resource_url, issuer, JwtKey::hmac(secret)?)?)`; any other
    /// kind of token takes a [`TokenVerifier`](crate::auth::TokenVerifier):
    ///
    /// ```no_run
    /// use mcp_runtime::auth::{AuthError, Identity, ResourceServer, verify_fn};
    /// use mcp_runtime::server::McpServer;
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let introspect = verify_fn(|token: String| async move {
    ///     // Ask the authorization server about `token` (RFC 7662)…
    ///     Err::<Identity, _>(AuthError::invalid(format!("unknown token of {} bytes", token.len())))
    /// });
    /// McpServer::new("billing")
    ///     .auth(ResourceServer::new("https://mcp.example.com/mcp", "https://auth.example.com", introspect)?)
    ///     .serve_http("0.0.0.0:8000")
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "http")]
    pub fn auth(mut self, auth: crate::auth::ResourceServer) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Serves MCP over this process's stdin and stdout until stdin closes.
    pub async fn serve_stdio(self) -> Result<(), BuildError> {
        #[cfg(feature = "http")]
        if self.auth.is_some() {
            tracing::warn!(
                "bearer-token authorization applies to HTTP only; stdio is served without it"
            );
        }
        self.build()?.serve_stdio().await;
        Ok(())
    }

    /// Serves MCP over Streamable HTTP at `http://addr/mcp` (both generations) until Ctrl-C or
    /// SIGTERM; then it stops accepting, and in-flight requests finish first (within the
    /// [`grace_period`](Self::grace_period)). See [`crate::transport::http`] to mount it in an
    /// axum app.
    #[cfg(feature = "http")]
    pub async fn serve_http(
        mut self,
        addr: impl tokio::net::ToSocketAddrs,
    ) -> Result<(), ServeError> {
        let auth = self.auth.take();
        let Shutdown {
            grace_period,
            drain,
        } = self.shutdown;
        let mut transport = crate::transport::http::HttpTransport::new(self.build()?).drain(drain);
        if let Some(grace) = grace_period {
            transport = transport.grace_period(grace);
        }
        if let Some(auth) = auth {
            transport = transport.auth(auth);
        }
        transport.serve_until_signal(addr).await?;
        Ok(())
    }

    /// Starts the server on an in-memory connection and returns the client's end (for tests and
    /// embedding); connect a [`Client`](crate::client::Client) to it. Needs a Tokio runtime.
    pub fn serve_in_memory(self) -> Result<Duplex, BuildError> {
        let server = self.build()?;
        let (client_end, server_end) = memory::pair();
        tokio::spawn(async move { server.serve(server_end).await });
        Ok(client_end)
    }
}

fn unique<'a>(kind: &'static str, names: impl Iterator<Item = &'a str>) -> Result<(), BuildError> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (index, name) in names.enumerate() {
        if let Some(first) = seen.insert(name, index) {
            return Err(BuildError::Duplicate {
                kind,
                name: name.to_owned(),
                first: first + 1,
                second: index + 1,
            });
        }
    }
    Ok(())
}

fn with_tools(builder: ServerBuilder, tools: Vec<ToolEntry>) -> ServerBuilder {
    let listing = tools.iter().map(|e| e.tool.clone()).collect();
    let table: Arc<HashMap<String, (ToolCall, bool)>> = Arc::new(
        tools
            .into_iter()
            .map(|e| (e.tool.name, (e.call, e.wraps_output)))
            .collect(),
    );
    builder.tools(listing).on_call_tool(move |ctx, params| {
        let found = table.get(&params.name).copied();
        async move {
            let Some((call, wraps)) = found else {
                return Err(McpError::invalid_params(format!(
                    "Unknown tool: {}",
                    params.name
                )));
            };
            let outcome = call(ctx, params).await?;
            Ok(if wraps { wrap_output(outcome) } else { outcome })
        }
    })
}

fn with_prompts(builder: ServerBuilder, prompts: Vec<PromptEntry>) -> ServerBuilder {
    let listing = prompts.iter().map(|e| e.prompt.clone()).collect();
    let table: Arc<HashMap<String, PromptCall>> = Arc::new(
        prompts
            .into_iter()
            .map(|e| (e.prompt.name, e.call))
            .collect(),
    );
    builder.prompts(listing).on_get_prompt(move |ctx, params| {
        let found = table.get(&params.name).copied();
        async move {
            let Some(call) = found else {
                return Err(McpError::invalid_params(format!(
                    "Unknown prompt: {}",
                    params.name
                )));
            };
            call(ctx, params).await
        }
    })
}

fn with_resources(mut builder: ServerBuilder, resources: Vec<ResourceEntry>) -> ServerBuilder {
    let mut statics = Vec::new();
    let mut templates = Vec::new();
    for entry in &resources {
        match &entry.listing {
            Listing::Static(r) => statics.push(r.clone()),
            Listing::Template(t) => templates.push(t.clone()),
        }
    }
    let (exact, patterns): (Vec<_>, Vec<_>) =
        resources.into_iter().partition(|e| e.template.is_static());
    let exact: Arc<HashMap<String, ResourceEntry>> =
        Arc::new(exact.into_iter().map(|e| (e.uri().to_owned(), e)).collect());
    let patterns: Arc<[ResourceEntry]> = patterns.into();
    if !statics.is_empty() {
        builder = builder.resources(statics);
    }
    if !templates.is_empty() {
        builder = builder.resource_templates(templates);
    }
    builder.on_read_resource(move |ctx, params| {
        let found = match exact.get(&params.uri) {
            Some(entry) => Some((entry.call, Vec::new())),
            None => patterns
                .iter()
                .find_map(|e| e.template.matches(&params.uri).map(|vars| (e.call, vars))),
        };
        async move {
            let Some((call, vars)) = found else {
                return Err(McpError::resource_not_found(&params.uri));
            };
            call(ctx, params, vars).await
        }
    })
}

fn wrap_output(outcome: Outcome<CallToolResult>) -> Outcome<CallToolResult> {
    match outcome {
        Outcome::Complete(mut result) => {
            if let Some(value) = result.structured_content.take() {
                result.structured_content = Some(Value::Object(Map::from_iter([(
                    "result".to_owned(),
                    value,
                )])));
            }
            Outcome::Complete(result)
        }
        ask => ask,
    }
}
