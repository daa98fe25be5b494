//! A registry's functions as the low-level server's handlers: the listings, and each call
//! routed by tool name, prompt name or resource URI, all read from the live [`Tables`] so that
//! what a `ServerHandle` changes at run time is what the next request sees.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::boxed::BoxFuture;
use crate::name_map::NameMap;
use crate::protocol::{
    CacheHint, CallToolParams, CallToolResult, CompleteParams, CompleteResult, CompletionReference,
    Generation, McpError, Outcome, PaginatedParams, Prompt, Resource, ResourceTemplate,
    TASKS_EXTENSION, Tool, paginate,
};
use crate::server::handlers::erase;
use crate::server::tasks::TaskRuntime;
use crate::server::{Context, ExtendedOutcome, ListPage, ServerBuilder};

use super::completion::{CompleteCall, Completions, Owner};
use super::live::LiveTables;
use super::policy::{ToolPolicy, check_scopes, timed_out};
use super::prompts::{PromptCall, PromptEntry};
use super::resources::{Listing, ResourceEntry};
use super::tools::{TaskSupport, ToolCall, ToolEntry};

/// How a call of one tool runs: its function and what the runtime does around it.
#[derive(Clone)]
pub(crate) struct ToolRun {
    pub call: ToolCall,
    /// Its structured output is a non-object wrapped as `{"result": …}`.
    pub wraps_output: bool,
    pub task: TaskSupport,
    pub ask_before_task: bool,
    pub policy: Option<Arc<ToolPolicy>>,
}

impl ToolRun {
    /// One round of the function, ended with a tool error when it outlasts the tool's
    /// timeout (its future dropped then).
    pub fn invoke(&self, ctx: Context, params: CallToolParams) -> ToolFuture {
        let Some(limit) = self.policy.as_ref().and_then(|p| p.timeout) else {
            return (self.call)(ctx, params);
        };
        let name = params.name.clone();
        let call = (self.call)(ctx, params);
        Box::pin(async move {
            match tokio::time::timeout(limit, call).await {
                Ok(outcome) => outcome,
                Err(_) => {
                    tracing::info!(tool = %name, ?limit, "a tool round ran out of time");
                    Ok(Outcome::Complete(timed_out(&name, limit)))
                }
            }
        })
    }

    /// What the function answered, as the client gets it.
    pub fn finish(&self, outcome: Outcome<CallToolResult>) -> Outcome<CallToolResult> {
        match outcome {
            Outcome::Complete(result) => Outcome::Complete(self.finish_result(result)),
            ask => ask,
        }
    }

    /// The function's result, as the client gets it.
    pub fn finish_result(&self, result: CallToolResult) -> CallToolResult {
        if self.wraps_output {
            wrap_output(result)
        } else {
            result
        }
    }
}

/// One round of a tool's function.
pub(crate) type ToolFuture = BoxFuture<Result<Outcome<CallToolResult>, McpError>>;

/// One consistent state of the registry: the entries, and the listings and dispatch tables
/// computed from them. Never changed once built; a change builds a new one.
#[derive(Default)]
pub(crate) struct Tables {
    pub tools: Vec<ToolEntry>,
    pub prompts: Vec<PromptEntry>,
    pub resources: Vec<ResourceEntry>,
    /// Per kind, how many changes it has seen: the cursors of its listing carry it, so a
    /// cursor from before a change is refused rather than skipping or repeating entries.
    pub versions: Versions,
    tool_listing: Arc<[Tool]>,
    tool_calls: NameMap<ToolRun>,
    prompt_listing: Arc<[Prompt]>,
    /// Each prompt's function, and the scopes its caller must hold.
    prompt_calls: NameMap<(PromptCall, Arc<[String]>)>,
    resource_listing: Arc<[Resource]>,
    template_listing: Arc<[ResourceTemplate]>,
    /// Static resources by URI, as indexes into `resources`.
    exact: NameMap<usize>,
    /// Templates, in registration order (the first that matches a URI reads it).
    patterns: Vec<usize>,
    completions: Completions,
}

/// How many changes each kind of entry has seen.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Versions {
    pub tools: u64,
    pub prompts: u64,
    pub resources: u64,
}

impl Tables {
    pub fn new(
        tools: Vec<ToolEntry>,
        prompts: Vec<PromptEntry>,
        resources: Vec<ResourceEntry>,
        versions: Versions,
    ) -> Self {
        let tool_listing = tools.iter().map(|e| e.tool.clone()).collect();
        let tool_calls = tools
            .iter()
            .map(|e| {
                let run = ToolRun {
                    call: e.call,
                    wraps_output: e.wraps_output,
                    task: e.task,
                    ask_before_task: e.ask_before_task,
                    policy: e.policy.clone(),
                };
                (e.tool.name.clone(), run)
            })
            .collect();
        let prompt_listing = prompts.iter().map(|e| e.prompt.clone()).collect();
        let prompt_calls = prompts
            .iter()
            .map(|e| (e.prompt.name.clone(), (e.call, e.scopes.clone())))
            .collect();
        let mut statics = Vec::new();
        let mut templates = Vec::new();
        let mut exact = NameMap::default();
        let mut patterns = Vec::new();
        for (index, entry) in resources.iter().enumerate() {
            match &entry.listing {
                Listing::Static(r) => statics.push(r.clone()),
                Listing::Template(t) => templates.push(t.clone()),
            }
            if entry.template.is_static() {
                exact.insert(entry.uri().to_owned(), index);
            } else {
                patterns.push(index);
            }
        }
        let completions = completions(&prompts, &resources);
        Self {
            tools,
            prompts,
            resources,
            versions,
            tool_listing,
            tool_calls,
            prompt_listing,
            prompt_calls,
            resource_listing: statics.into(),
            template_listing: templates.into(),
            exact,
            patterns,
            completions,
        }
    }

    /// Whether `uri` names one of the resources: a static URI, or one a template matches.
    pub fn resource_exists(&self, uri: &str) -> bool {
        self.exact.contains_key(uri)
            || self
                .patterns
                .iter()
                .any(|&i| self.resources[i].template.matches(uri).is_some())
    }

    /// The listings as clients see them, for a server this one is mounted in.
    pub fn tool_listing(&self) -> &[Tool] {
        &self.tool_listing
    }

    pub fn prompt_listing(&self) -> &[Prompt] {
        &self.prompt_listing
    }

    pub fn resource_listing(&self) -> &[Resource] {
        &self.resource_listing
    }

    pub fn template_listing(&self) -> &[ResourceTemplate] {
        &self.template_listing
    }

    pub fn has_tool(&self, name: &str) -> bool {
        self.tool_calls.contains_key(name)
    }

    pub fn has_prompt(&self, name: &str) -> bool {
        self.prompt_calls.contains_key(name)
    }

    /// Whether `uri` is one of the templates as listed (a completion names one so).
    pub fn has_template(&self, uri: &str) -> bool {
        self.template_listing.iter().any(|t| t.uri_template == uri)
    }

    pub fn has_completions(&self) -> bool {
        !self.completions.calls.is_empty()
    }

    pub fn has_resources(&self) -> bool {
        !self.resources.is_empty()
    }
}

/// The completion functions of every prompt argument and template variable that has one.
fn completions(prompts: &[PromptEntry], resources: &[ResourceEntry]) -> Completions {
    let mut completions = Completions::default();
    let owners = prompts
        .iter()
        .map(|e| (Owner::Prompt, e.prompt.name.as_str(), e.completions))
        .chain(
            resources
                .iter()
                .map(|e| (Owner::Resource, e.uri(), e.completions)),
        );
    for (owner, name, arguments) in owners {
        completions.known.insert((owner, name.to_owned()));
        for argument in arguments {
            completions.calls.insert(
                (owner, name.to_owned(), argument.argument.to_owned()),
                argument.complete,
            );
        }
    }
    completions
}

/// One page of a listing whose cursors carry the listing's `version`: `"{version}:{offset}"`.
pub(crate) fn page<T: Clone>(
    items: &[T],
    version: u64,
    cursor: Option<&str>,
    page_size: usize,
) -> Result<(Vec<T>, Option<String>), McpError> {
    let offset = match cursor {
        None => None,
        Some(cursor) => {
            let (issued, offset) = cursor
                .split_once(':')
                .ok_or_else(|| McpError::invalid_params("Invalid cursor"))?;
            if issued != version.to_string() {
                return Err(McpError::invalid_params(
                    "Invalid cursor: the list changed since it was issued; list again from the start",
                ));
            }
            Some(offset)
        }
    };
    let (items, next) = paginate(items, offset, page_size)?;
    Ok((items.to_vec(), next.map(|n| format!("{version}:{n}"))))
}

/// The handler of a listing of the live tables: the page of `pick`'s items, whose cursors
/// carry the listing's version.
fn live_listing<T, R>(
    live: &Arc<LiveTables>,
    page_size: usize,
    hint: Option<CacheHint>,
    pick: fn(&Tables) -> (&Arc<[T]>, u64),
) -> impl Fn(Context, PaginatedParams) -> std::future::Ready<Result<R, McpError>> + Send + Sync + 'static
where
    T: Clone + Send + Sync + 'static,
    R: ListPage<T>,
{
    let tables = live.clone();
    move |_, params| {
        let t = tables.read();
        let (items, version) = pick(&t);
        let result = page(items, version, params.cursor.as_deref(), page_size)
            .map(|(items, next)| R::page(items, next, hint));
        std::future::ready(result)
    }
}

/// Serves every registry method from `live`: whatever was registered at build, the handlers
/// are there, so a kind first added at run time is served too.
pub(super) fn install(
    mut builder: ServerBuilder,
    live: &Arc<LiveTables>,
    tasks: Option<Arc<TaskRuntime>>,
) -> ServerBuilder {
    let page_size = builder.page_size;
    let hints = builder.cache_hints;
    builder = builder.on_list_tools(live_listing(live, page_size, hints.tools, |t| {
        (&t.tool_listing, t.versions.tools)
    }));
    let tables = live.clone();
    builder = builder.on_call_tool(move |ctx, params| {
        // Copied out, so the call runs with the function it started with whatever changes.
        let found = tables.read().tool_calls.get(&params.name).cloned();
        let tasks = tasks.clone();
        async move {
            let Some(run) = found else {
                return Err(McpError::invalid_params(format!(
                    "Unknown tool: {}",
                    params.name
                )));
            };
            if let Some(policy) = &run.policy {
                let first_round = params.request_state.is_none();
                if let Some(refused) = policy.admit(&ctx, &params.name, first_round)? {
                    return Ok(ExtendedOutcome::from(Outcome::Complete(refused)));
                }
            }
            if run.task != TaskSupport::Forbidden {
                let declared = ctx.client_extension(TASKS_EXTENSION).is_some();
                match (&tasks, declared) {
                    (Some(tasks), true) => return tasks.start(ctx, params, run).await,
                    (_, false) if run.task == TaskSupport::Required => {
                        return Err(McpError::missing_extension(
                            format!("Tool {} runs only as a task", params.name),
                            TASKS_EXTENSION,
                        ));
                    }
                    _ => {}
                }
            }
            let outcome = run.invoke(ctx, params).await?;
            Ok(ExtendedOutcome::from(run.finish(outcome)))
        }
    });

    builder = builder.on_list_prompts(live_listing(live, page_size, hints.prompts, |t| {
        (&t.prompt_listing, t.versions.prompts)
    }));
    let tables = live.clone();
    builder = builder.on_get_prompt(move |ctx, params| {
        let found = tables.read().prompt_calls.get(&params.name).cloned();
        async move {
            let Some((call, scopes)) = found else {
                return Err(McpError::invalid_params(format!(
                    "Unknown prompt: {}",
                    params.name
                )));
            };
            check_scopes(ctx.identity(), &scopes)?;
            call(ctx, params).await
        }
    });

    builder = builder.on_list_resources(live_listing(live, page_size, hints.resources, |t| {
        (&t.resource_listing, t.versions.resources)
    }));
    builder =
        builder.on_list_resource_templates(live_listing(live, page_size, hints.resources, |t| {
            (&t.template_listing, t.versions.resources)
        }));
    let tables = live.clone();
    builder = builder.on_read_resource(move |ctx, params| {
        let found = {
            let t = tables.read();
            match t.exact.get(&params.uri) {
                Some(&i) => {
                    let e = &t.resources[i];
                    Some((e.call, e.cache, e.vars.clone(), e.scopes.clone()))
                }
                None => t.patterns.iter().find_map(|&i| {
                    let e = &t.resources[i];
                    e.template
                        .matches(&params.uri)
                        .map(|vars| (e.call, e.cache, vars, e.scopes.clone()))
                }),
            }
        };
        // Each revision says "not found" its own way.
        let legacy = ctx.generation() == Generation::V2025_11_25;
        async move {
            let Some((call, cache, vars, scopes)) = found else {
                return Err(if legacy {
                    McpError::legacy_resource_not_found(&params.uri)
                } else {
                    McpError::resource_not_found(&params.uri)
                });
            };
            check_scopes(ctx.identity(), &scopes)?;
            let mut outcome = call(ctx, params, vars).await?;
            // The answer's own hint wins; the runtime fills in the server's default after.
            if let (Outcome::Complete(result), Some(hint)) = (&mut outcome, cache) {
                result.ttl_ms.get_or_insert(hint.ttl_ms);
                result.cache_scope.get_or_insert(hint.scope);
            }
            Ok(outcome)
        }
    });
    let tables = live.clone();
    builder = builder.resource_exists(move |uri| tables.read().resource_exists(uri));

    let fallback = builder.handlers.complete.take();
    let tables = live.clone();
    builder.handlers.complete = Some(erase(move |ctx, params: CompleteParams| {
        let (owner, name) = match &params.reference {
            CompletionReference::Prompt { name, .. } => (Owner::Prompt, name.clone()),
            CompletionReference::Resource { uri } => (Owner::Resource, uri.clone()),
        };
        let key = (owner, name, params.argument.name.clone());
        let (call, known): (Option<CompleteCall>, bool) = {
            let t = tables.read();
            (
                t.completions.calls.get(&key).copied(),
                t.completions.known.contains(&(key.0, key.1)),
            )
        };
        let fallback = fallback.clone();
        async move {
            if let Some(call) = call {
                return call(ctx, params).await;
            }
            if let Some(fallback) = fallback {
                return fallback(ctx, params).await;
            }
            if known {
                return Ok(CompleteResult::values(Vec::new()));
            }
            Err(McpError::invalid_params(match params.reference {
                CompletionReference::Prompt { name, .. } => format!("Unknown prompt: {name}"),
                CompletionReference::Resource { uri } => {
                    format!("Unknown resource template: {uri}")
                }
            }))
        }
    }));
    builder
}

fn wrap_output(mut result: CallToolResult) -> CallToolResult {
    if let Some(value) = result.structured_content.take() {
        result.structured_content = Some(Value::Object(Map::from_iter([(
            "result".to_owned(),
            value,
        )])));
    }
    result
}
