//! One page of a listing (`tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list`): the same shape for the fixed listings of a [`ServerBuilder`]
//! and the live tables of an `McpServer`.
//!
//! [`ServerBuilder`]: super::ServerBuilder

use std::sync::Arc;

use crate::protocol::{
    CacheHint, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedParams, Prompt, Resource, ResourceTemplate, Tool, paginate,
};

use super::handlers::{Handler, erase};

/// A listing result of items `T`.
pub(crate) trait ListPage<T>: Send + 'static {
    /// One page: its items, the cursor of the next one, and the listing's cache hint.
    fn page(items: Vec<T>, next_cursor: Option<String>, hint: Option<CacheHint>) -> Self;
}

macro_rules! list_page {
    ($result:ty, $item:ty, $field:ident) => {
        impl ListPage<$item> for $result {
            fn page(
                items: Vec<$item>,
                next_cursor: Option<String>,
                hint: Option<CacheHint>,
            ) -> Self {
                Self {
                    $field: items,
                    next_cursor,
                    ttl_ms: hint.map(|h| h.ttl_ms),
                    cache_scope: hint.map(|h| h.scope),
                    ..Self::default()
                }
            }
        }
    };
}

list_page!(ListToolsResult, Tool, tools);
list_page!(ListPromptsResult, Prompt, prompts);
list_page!(ListResourcesResult, Resource, resources);
list_page!(
    ListResourceTemplatesResult,
    ResourceTemplate,
    resource_templates
);

/// The handler paging a listing fixed at build.
pub(crate) fn fixed_listing<T, R>(
    items: Vec<T>,
    page_size: usize,
    hint: Option<CacheHint>,
) -> Handler<PaginatedParams, R>
where
    T: Clone + Send + Sync + 'static,
    R: ListPage<T>,
{
    let items: Arc<[T]> = items.into();
    erase(move |_, params: PaginatedParams| {
        let result = paginate(&items, params.cursor.as_deref(), page_size)
            .map(|(items, next)| R::page(items.to_vec(), next, hint));
        async move { result }
    })
}
