//! What the remote lists, read once, as entries that forward to it.

use std::future::Future;

use crate::client::{Client, ClientError};
use crate::protocol::{McpError, code};
use crate::server::{PromptEntry, ResourceEntry, TaskSupport, ToolEntry};

use super::forward;

/// How many pages of one listing are followed before the remote counts as never ending.
const MAX_PAGES: usize = 100;

pub(super) struct Listed {
    pub tools: Vec<ToolEntry>,
    pub prompts: Vec<PromptEntry>,
    pub resources: Vec<ResourceEntry>,
}

/// What the remote lists; with `tasks`, each tool may answer with a task, made once the
/// remote answered with one (see [`tasks`](super::tasks)).
pub(super) async fn fetch(client: &Client, tasks: bool) -> Result<Listed, ClientError> {
    let tools = all(|cursor| async move {
        let page = client.list_tools(cursor.as_deref()).await?;
        Ok((page.tools, page.next_cursor))
    })
    .await?;
    let prompts = all(|cursor| async move {
        let page = client.list_prompts(cursor.as_deref()).await?;
        Ok((page.prompts, page.next_cursor))
    })
    .await?;
    let resources = all(|cursor| async move {
        let page = client.list_resources(cursor.as_deref()).await?;
        Ok((page.resources, page.next_cursor))
    })
    .await?;
    let templates = all(|cursor| async move {
        let page = client.list_resource_templates(cursor.as_deref()).await?;
        Ok((page.resource_templates, page.next_cursor))
    })
    .await?;
    let mut entries: Vec<ResourceEntry> = resources
        .into_iter()
        .map(|r| ResourceEntry::from_resource(r, forward::read_resource))
        .collect();
    for template in templates {
        let uri = template.uri_template.clone();
        match ResourceEntry::from_template(template, forward::read_resource) {
            Ok(entry) => entries.push(entry),
            // Served without it rather than not at all; said once, at start.
            Err(error) => tracing::warn!(
                template = %uri,
                %error,
                "the proxied server's resource template cannot be matched; it is not served"
            ),
        }
    }
    Ok(Listed {
        tools: tools
            .into_iter()
            .map(|t| {
                let mut entry = ToolEntry::from_tool(t, forward::call_tool);
                if tasks {
                    entry = entry.task(TaskSupport::Optional);
                    entry.ask_before_task = true;
                }
                entry
            })
            .collect(),
        prompts: prompts
            .into_iter()
            .map(|p| PromptEntry::from_prompt(p, forward::get_prompt))
            .collect(),
        resources: entries,
    })
}

/// Every page of one listing; empty when the remote does not serve the method.
async fn all<T, F, Fut>(mut page: F) -> Result<Vec<T>, ClientError>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<(Vec<T>, Option<String>), ClientError>>,
{
    let mut items = Vec::new();
    let mut cursor = None;
    for _ in 0..MAX_PAGES {
        match page(cursor.take()).await {
            Ok((more, next)) => {
                items.extend(more);
                match next {
                    Some(next) => cursor = Some(next),
                    None => return Ok(items),
                }
            }
            Err(ClientError::Rpc(McpError { code, .. })) if code == code::METHOD_NOT_FOUND => {
                return Ok(items);
            }
            Err(other) => return Err(other),
        }
    }
    Err(ClientError::TooManyPages { max: MAX_PAGES })
}
