//! A parent's listings with its mounted servers' entries in them, under their prefixes, and
//! the checks that no two entries read alike.

use std::collections::HashSet;
use std::sync::Arc;

use crate::protocol::{
    CacheHint, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedParams, Prompt, Resource, ResourceTemplate, Tool,
};
use crate::server::registry::{LiveTables, Tables, page};
use crate::server::{BuildError, ListPage, ServerBuilder};

use super::{Mount, Prefix};

/// One kind of listed entry.
pub(crate) trait Kind {
    type Item: Clone + Send + Sync + 'static;
    type Page: ListPage<Self::Item>;
    const NAME: &'static str;
    fn own(tables: &Tables) -> (&[Self::Item], u64);
    fn key(item: &Self::Item) -> &str;
    fn rename(item: &mut Self::Item, prefix: &Prefix);
}

pub(crate) struct Tools;
pub(crate) struct Prompts;
pub(crate) struct Resources;
pub(crate) struct Templates;

impl Kind for Tools {
    type Item = Tool;
    type Page = ListToolsResult;
    const NAME: &'static str = "tool";
    fn own(t: &Tables) -> (&[Tool], u64) {
        (t.tool_listing(), t.versions.tools)
    }
    fn key(item: &Tool) -> &str {
        &item.name
    }
    fn rename(item: &mut Tool, prefix: &Prefix) {
        item.name = prefix.name(&item.name);
    }
}

impl Kind for Prompts {
    type Item = Prompt;
    type Page = ListPromptsResult;
    const NAME: &'static str = "prompt";
    fn own(t: &Tables) -> (&[Prompt], u64) {
        (t.prompt_listing(), t.versions.prompts)
    }
    fn key(item: &Prompt) -> &str {
        &item.name
    }
    fn rename(item: &mut Prompt, prefix: &Prefix) {
        item.name = prefix.name(&item.name);
    }
}

impl Kind for Resources {
    type Item = Resource;
    type Page = ListResourcesResult;
    const NAME: &'static str = "resource";
    fn own(t: &Tables) -> (&[Resource], u64) {
        (t.resource_listing(), t.versions.resources)
    }
    fn key(item: &Resource) -> &str {
        &item.uri
    }
    fn rename(item: &mut Resource, prefix: &Prefix) {
        item.uri = prefix.uri(&item.uri);
    }
}

impl Kind for Templates {
    type Item = ResourceTemplate;
    type Page = ListResourceTemplatesResult;
    const NAME: &'static str = "resource template";
    fn own(t: &Tables) -> (&[ResourceTemplate], u64) {
        (t.template_listing(), t.versions.resources)
    }
    fn key(item: &ResourceTemplate) -> &str {
        &item.uri_template
    }
    fn rename(item: &mut ResourceTemplate, prefix: &Prefix) {
        item.uri_template = prefix.uri(&item.uri_template);
    }
}

/// Everything of kind `K` a server lists, its mounts' entries renamed, and a version that
/// grows with every change of any of them (the sum of theirs), for the cursors.
pub(crate) fn listed<K: Kind>(live: Option<&LiveTables>, mounts: &[Mount]) -> (Vec<K::Item>, u64) {
    let (mut items, mut version) = match live {
        Some(live) => {
            let tables = live.read();
            let (own, version) = K::own(&tables);
            (own.to_vec(), version)
        }
        None => (Vec::new(), 0),
    };
    for mount in mounts {
        let (theirs, v) = listed::<K>(mount.server.live(), mount.server.mounts());
        version += v;
        items.extend(theirs.into_iter().map(|mut item| {
            K::rename(&mut item, &mount.prefix);
            item
        }));
    }
    (items, version)
}

/// No two entries of kind `K` read alike in the parent.
pub(crate) fn unique<K: Kind>(
    live: Option<&LiveTables>,
    mounts: &[Mount],
) -> Result<(), BuildError> {
    let (items, _) = listed::<K>(live, mounts);
    let mut seen = HashSet::new();
    for item in &items {
        if !seen.insert(K::key(item)) {
            return Err(BuildError::MountClash {
                kind: K::NAME,
                name: K::key(item).to_owned(),
            });
        }
    }
    Ok(())
}

fn handler<K: Kind>(
    live: &Arc<LiveTables>,
    mounts: &Arc<[Mount]>,
    page_size: usize,
    hint: Option<CacheHint>,
) -> impl Fn(
    crate::server::Context,
    PaginatedParams,
) -> std::future::Ready<Result<K::Page, crate::protocol::McpError>>
+ Send
+ Sync
+ 'static {
    let (live, mounts) = (live.clone(), mounts.clone());
    move |_, params| {
        let (items, version) = listed::<K>(Some(&live), &mounts);
        let result = page(&items, version, params.cursor.as_deref(), page_size)
            .map(|(items, next)| K::Page::page(items, next, hint));
        std::future::ready(result)
    }
}

/// Lists the mounts' entries beside the parent's own, and lets clients subscribe to the
/// mounts' resources through it.
pub(crate) fn install(
    mut builder: ServerBuilder,
    live: &Arc<LiveTables>,
    mounts: Arc<[Mount]>,
) -> ServerBuilder {
    if mounts.is_empty() {
        return builder;
    }
    let (size, hints) = (builder.page_size, builder.cache_hints);
    builder = builder
        .on_list_tools(handler::<Tools>(live, &mounts, size, hints.tools))
        .on_list_prompts(handler::<Prompts>(live, &mounts, size, hints.prompts))
        .on_list_resources(handler::<Resources>(live, &mounts, size, hints.resources))
        .on_list_resource_templates(handler::<Templates>(live, &mounts, size, hints.resources));
    let (tables, routes) = (live.clone(), mounts.clone());
    builder = builder.resource_exists(move |uri| {
        tables.read().resource_exists(uri)
            || routes.iter().any(|m| {
                m.prefix
                    .strip_uri(uri)
                    .is_some_and(|inner| m.server.resource_exists_strictly(inner))
            })
    });
    builder.mounts = mounts;
    builder
}
