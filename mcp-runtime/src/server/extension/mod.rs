//! The extension point: what a server adds to MCP under an extension id (2026-07-28
//! `capabilities.extensions`). An [`Extension`] is advertised by `server/discover`, serves its
//! own methods through the same gate, auth, bounds and transports as the core methods, and may
//! answer `tools/call`, `prompts/get` or `resources/read` with a `resultType` of its own, each
//! only for a client that declared the extension on the request.
//!
//! 2025-11-25 sessions get none of it: that revision has no `extensions` capability, no
//! `resultType` to tell an extension's result apart, and core `tasks/*` methods of another
//! shape under the names the tasks extension reuses. Its `initialize` advertises no
//! extensions, its requests for an extension's methods are `-32601`, and
//! [`Context::client_extension`] is `None` there.

mod dispatch;
mod id;
mod outcome;
mod registry;

use std::future::Future;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::boxed::BoxFuture;
use crate::protocol::{McpError, decode_params};

use super::handlers::erase;
use crate::server::{Context, TaskReader};

pub(in crate::server) use dispatch::undeclared;
pub use outcome::ExtendedOutcome;
pub(crate) use registry::Extensions;

/// An extension method's handler: the raw params in (decoded to the handler's own type inside),
/// the result as JSON out.
type MethodHandler =
    Arc<dyn Fn(Context, Option<&RawValue>) -> BoxFuture<Result<Value, McpError>> + Send + Sync>;

/// What a server adds to MCP under one extension id: the settings it advertises, the methods it
/// serves, the `resultType` values it may answer core methods with. Register it with
/// [`ServerBuilder::extension`](super::ServerBuilder::extension) or
/// [`McpServer::extension`](super::McpServer::extension); the id and every name are checked by
/// `build`.
///
/// A method's handler takes the same [`Context`] as a core handler (the caller's identity,
/// cancellation, progress, the server's handle and state) and its params decoded as any
/// `Deserialize` type (bad params are `-32602`); it returns anything that serializes to a JSON
/// object, which goes out with `resultType: "complete"` and the server's identity. A client
/// that did not declare the extension on the request is refused with `-32021` naming it in
/// `requiredCapabilities` (the tasks extension's rule for its methods), unless the method is
/// registered with [`method_without_declaration`](Self::method_without_declaration).
///
/// Extension `_meta` keys need no registration: a request's arrive in [`Context::meta`], and a
/// result's go in its own `_meta`. A method whose requests an HTTP intermediary should route by
/// what they address (a task's id, say) names that params member with
/// [`routing_param`](Self::routing_param).
///
/// ```
/// use mcp::protocol::{Implementation, McpError};
/// use mcp::server::{Context, Extension, Server};
/// use serde_json::{Value, json};
///
/// #[derive(serde::Deserialize)]
/// struct Say {
///     text: String,
/// }
///
/// let echo = Extension::new("com.example/echo")
///     .settings(json!({"maxLength": 1000}))
///     .method("echo/say", |ctx: Context, say: Say| async move {
///         // What the client declared for the extension on this request.
///         let loud = ctx
///             .client_extension("com.example/echo")
///             .and_then(|settings| settings.get("loud"))
///             .and_then(Value::as_bool)
///             .unwrap_or(false);
///         let text = if loud { say.text.to_uppercase() } else { say.text };
///         Ok::<_, McpError>(json!({"text": text}))
///     });
/// let server = Server::builder(Implementation::new("echo", "1.0.0"))
///     .extension(echo)
///     .build()?;
/// let advertised = server.capabilities().extensions.unwrap_or_default();
/// assert_eq!(advertised["com.example/echo"], json!({"maxLength": 1000}));
/// # Ok::<(), mcp::server::BuildError>(())
/// ```
pub struct Extension {
    id: String,
    settings: Value,
    methods: Vec<Method>,
    result_types: Vec<ResultTypeClaim>,
    routes: Vec<Route>,
    /// How a listen reads the tasks it asks for (the tasks runtime's).
    task_reader: Option<TaskReader>,
}

/// One method of an extension, as registered.
struct Method {
    name: String,
    /// Whether only a client that declared the extension on the request may call it.
    requires_declaration: bool,
    handler: MethodHandler,
}

/// A method's requests are routed by `params.<field>` (the `Mcp-Name` header carries it).
struct Route {
    method: String,
    field: String,
}

/// A `resultType` value an extension may answer core methods with, and which methods.
struct ResultTypeClaim {
    value: String,
    methods: Vec<String>,
}

impl Extension {
    /// An extension with id `id` (a prefix and a name, as `com.example/echo`), advertising
    /// empty settings and serving nothing yet.
    pub fn new(id: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            settings: Value::Object(Default::default()),
            methods: Vec::new(),
            result_types: Vec::new(),
            routes: Vec::new(),
            task_reader: None,
        }
    }

    /// Its id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The settings `server/discover` advertises under `capabilities.extensions[id]` (default
    /// `{}`, which says the extension is supported with no settings). `build` refuses a value
    /// that is not an object.
    pub fn settings(mut self, settings: Value) -> Self {
        self.settings = settings;
        self
    }

    /// Serves request method `name` for clients that declared the extension on the request;
    /// others get `-32021` with `requiredCapabilities: {"extensions": {id: {}}}`. `build`
    /// refuses a name the core protocol or another extension serves, and a
    /// `notifications/…` name (a request never carries one).
    pub fn method<P, R, F, Fut>(self, name: impl Into<String>, handler: F) -> Self
    where
        P: DeserializeOwned + Send + 'static,
        R: Serialize + Send + 'static,
        F: Fn(Context, P) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, McpError>> + Send + 'static,
    {
        self.with_method(name.into(), true, handler)
    }

    /// Serves request method `name` for every 2026-07-28 client, declared or not: for a method
    /// that makes sense to a client that has not opted in (one that reports what the extension
    /// offers, say).
    pub fn method_without_declaration<P, R, F, Fut>(
        self,
        name: impl Into<String>,
        handler: F,
    ) -> Self
    where
        P: DeserializeOwned + Send + 'static,
        R: Serialize + Send + 'static,
        F: Fn(Context, P) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, McpError>> + Send + 'static,
    {
        self.with_method(name.into(), false, handler)
    }

    /// Lets handlers of `methods` (among `tools/call`, `prompts/get` and `resources/read`)
    /// answer with an [`ExtensionResult`](crate::protocol::ExtensionResult) of `resultType`
    /// `value` (an [`ExtendedOutcome::Extension`]), for clients that declared the extension on the
    /// request. Such an answer to any other client is `-32021` naming the extension; one whose
    /// `resultType` no extension declared for the method is `-32603`. `build` refuses a value
    /// of the core protocol (`complete`, `input_required`) or of another extension.
    ///
    /// ```
    /// use mcp::protocol::{CallToolResult, ExtensionResult, Implementation, McpError, methods};
    /// use mcp::server::{ExtendedOutcome, Extension, Server};
    ///
    /// const JOBS: &str = "com.example/jobs";
    ///
    /// let server = Server::builder(Implementation::new("jobs", "1.0.0"))
    ///     .extension(Extension::new(JOBS).result_type("job", [methods::TOOLS_CALL]))
    ///     .on_call_tool(|ctx, _params| async move {
    ///         if ctx.client_extension(JOBS).is_none() {
    ///             return Ok(ExtendedOutcome::from(CallToolResult::text("done while you waited")));
    ///         }
    ///         let job = serde_json::json!({"jobId": "j-1"});
    ///         let job = ExtensionResult::new("job", job.as_object().cloned().unwrap_or_default());
    ///         Ok::<_, McpError>(ExtendedOutcome::Extension(job))
    ///     })
    ///     .build()?;
    /// # let _ = server;
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn result_type<I, S>(mut self, value: impl Into<String>, methods: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.result_types.push(ResultTypeClaim {
            value: value.into(),
            methods: methods.into_iter().map(Into::into).collect(),
        });
        self
    }

    /// Routes requests for `method` by the string at `params.<field>`, as `tools/call` is
    /// routed by the tool's name: over Streamable HTTP a 2026-07-28 request for `method` must
    /// carry that string as its `Mcp-Name` header, so an intermediary can route it without
    /// reading the body (SEP-2243; the tasks extension routes `tasks/get`, `tasks/update` and
    /// `tasks/cancel` by `taskId`). A request whose header is missing or differs from the body
    /// is refused with HTTP 400 and `-32020`, before any handler runs; so is one whose
    /// `params.<field>` is absent or not a string, as a `tools/call` without a name is. A field
    /// given twice in the params is `-32602`. Other transports carry no headers and check
    /// nothing.
    ///
    /// `field` is a member of `params` itself (no path into nested objects). `build` refuses a
    /// `method` this extension does not register, a second field for one method, and a field
    /// that cannot name a target (empty, `_meta`, `requestState`).
    ///
    /// It names the method rather than modifying the last one registered, so it reads the
    /// same for [`method`](Self::method) and
    /// [`method_without_declaration`](Self::method_without_declaration), in any order.
    ///
    /// ```
    /// use mcp::protocol::{Implementation, McpError};
    /// use mcp::server::{Context, Extension, Server};
    /// use serde_json::{Value, json};
    ///
    /// #[derive(serde::Deserialize)]
    /// #[serde(rename_all = "camelCase")]
    /// struct Lookup {
    ///     job_id: String,
    /// }
    ///
    /// let jobs = Extension::new("com.example/jobs")
    ///     .method("jobs/get", |_ctx: Context, lookup: Lookup| async move {
    ///         Ok::<_, McpError>(json!({"jobId": lookup.job_id, "status": "working"}))
    ///     })
    ///     .method("jobs/count", |_ctx: Context, _: Value| async move {
    ///         Ok::<_, McpError>(json!({"count": 1}))
    ///     })
    ///     // `jobs/get` goes to the instance holding the job; `jobs/count` anywhere.
    ///     .routing_param("jobs/get", "jobId");
    /// let server = Server::builder(Implementation::new("jobs", "1.0.0"))
    ///     .extension(jobs)
    ///     .build()?;
    /// # let _ = server;
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn routing_param(mut self, method: impl Into<String>, field: impl Into<String>) -> Self {
        self.routes.push(Route {
            method: method.into(),
            field: field.into(),
        });
        self
    }

    /// Grants `subscriptions/listen` the task ids `reader` finds for the listen's caller, and
    /// sends each of their status changes as `notifications/tasks` (the tasks runtime, which
    /// the server layer below it cannot name).
    pub(crate) fn task_reader(mut self, reader: TaskReader) -> Self {
        self.task_reader = Some(reader);
        self
    }

    fn with_method<P, R, F, Fut>(mut self, name: String, requires_declaration: bool, f: F) -> Self
    where
        P: DeserializeOwned + Send + 'static,
        R: Serialize + Send + 'static,
        F: Fn(Context, P) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, McpError>> + Send + 'static,
    {
        // `erase` makes a panic in the handler a `-32603`, as for the core handlers.
        let typed = erase::<P, R, R, F, Fut>(f);
        let handler: MethodHandler = Arc::new(move |ctx, raw| {
            let params = match decode_params::<P>(raw) {
                Ok(params) => params,
                Err(error) => return Box::pin(std::future::ready(Err(error))),
            };
            let call = typed(ctx, params);
            Box::pin(async move {
                let result = call.await?;
                serde_json::to_value(result).map_err(|e| {
                    tracing::error!(error = %e, "an extension method's result does not serialize");
                    McpError::internal("Internal error")
                })
            })
        });
        self.methods.push(Method {
            name,
            requires_declaration,
            handler,
        });
        self
    }
}

impl std::fmt::Debug for Extension {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let methods: Vec<&str> = self.methods.iter().map(|m| m.name.as_str()).collect();
        let result_types: Vec<&str> = self.result_types.iter().map(|r| r.value.as_str()).collect();
        let routes: Vec<(&str, &str)> = self
            .routes
            .iter()
            .map(|r| (r.method.as_str(), r.field.as_str()))
            .collect();
        f.debug_struct("Extension")
            .field("id", &self.id)
            .field("settings", &self.settings)
            .field("methods", &methods)
            .field("result_types", &result_types)
            .field("routes", &routes)
            .field("task_reader", &self.task_reader.is_some())
            .finish()
    }
}
