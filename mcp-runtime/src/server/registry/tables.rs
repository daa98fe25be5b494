//! A registry's functions as the low-level server's handlers: the listings, and each call
//! routed by tool name, prompt name or resource URI.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::protocol::{CallToolResult, Generation, McpError, Outcome};
use crate::server::ServerBuilder;

use super::prompts::{PromptCall, PromptEntry};
use super::resources::{Listing, ResourceEntry};
use super::tools::{ToolCall, ToolEntry};

pub(super) fn with_tools(builder: ServerBuilder, tools: Vec<ToolEntry>) -> ServerBuilder {
    let listing = tools.iter().map(|e| e.tool.clone()).collect();
    let table: Arc<HashMap<String, (ToolCall, bool)>> = Arc::new(
        tools
            .into_iter()
            .map(|e| (e.tool.name, (e.call, e.wraps_output)))
            .collect(),
    );
    builder
        .list_tools(listing)
        .on_call_tool(move |ctx, params| {
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

pub(super) fn with_prompts(builder: ServerBuilder, prompts: Vec<PromptEntry>) -> ServerBuilder {
    let listing = prompts.iter().map(|e| e.prompt.clone()).collect();
    let table: Arc<HashMap<String, PromptCall>> = Arc::new(
        prompts
            .into_iter()
            .map(|e| (e.prompt.name, e.call))
            .collect(),
    );
    builder
        .list_prompts(listing)
        .on_get_prompt(move |ctx, params| {
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

pub(super) fn with_resources(
    mut builder: ServerBuilder,
    resources: Vec<ResourceEntry>,
) -> ServerBuilder {
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
        builder = builder.list_resources(statics);
    }
    if !templates.is_empty() {
        builder = builder.list_resource_templates(templates);
    }
    builder.on_read_resource(move |ctx, params| {
        let found = match exact.get(&params.uri) {
            Some(entry) => Some((entry.call, entry.cache, Vec::new())),
            None => patterns.iter().find_map(|e| {
                e.template
                    .matches(&params.uri)
                    .map(|vars| (e.call, e.cache, vars))
            }),
        };
        // Each revision says "not found" its own way.
        let legacy = ctx.generation() == Generation::V2025_11_25;
        async move {
            let Some((call, cache, vars)) = found else {
                return Err(if legacy {
                    McpError::legacy_resource_not_found(&params.uri)
                } else {
                    McpError::resource_not_found(&params.uri)
                });
            };
            let mut outcome = call(ctx, params, vars).await?;
            // The answer's own hint wins; the runtime fills in the server's default after.
            if let (Outcome::Complete(result), Some(hint)) = (&mut outcome, cache) {
                result.ttl_ms.get_or_insert(hint.ttl_ms);
                result.cache_scope.get_or_insert(hint.scope);
            }
            Ok(outcome)
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
