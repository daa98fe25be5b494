//! The registry of a running server: its [`Tables`], swapped whole on each change so that a
//! reader sees either the old or the new state, never half of one.

use std::sync::{Arc, Mutex, PoisonError, RwLock};

use crate::protocol::{ListChangedCapability, ServerCapabilities};
use crate::push::Change;
use crate::server::{AppState, BuildError};

use super::prompts::PromptEntry;
use super::resources::ResourceEntry;
use super::tables::{Tables, Versions};
use super::tools::ToolEntry;

/// The tables a running `McpServer` serves from.
pub(crate) struct LiveTables {
    current: RwLock<Arc<Tables>>,
    /// Held by one change at a time, from reading the current tables to publishing the new,
    /// so two changes never build on the same old state and lose one of them.
    writer: Mutex<()>,
    /// Whether the application answers `completion/complete` itself (then the capability
    /// stays whatever the tables hold).
    completes_itself: bool,
}

impl LiveTables {
    pub fn new(tables: Tables, completes_itself: bool) -> Self {
        Self {
            current: RwLock::new(Arc::new(tables)),
            writer: Mutex::new(()),
            completes_itself,
        }
    }

    /// The current tables, for the length of one lookup. A panic elsewhere cannot leave them
    /// half-written (they are swapped whole), so a poisoned lock is still safe to read.
    pub fn read(&self) -> std::sync::RwLockReadGuard<'_, Arc<Tables>> {
        self.current.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// The capabilities the tables imply now, on top of the builder's: each kind the server
    /// has, with `listChanged`, since any handler may change the tables through its context's
    /// handle at any time.
    pub fn advertise(&self, capabilities: &mut ServerCapabilities) {
        let t = self.read();
        let list_changed = || ListChangedCapability {
            list_changed: Some(true),
        };
        capabilities.tools = (!t.tools.is_empty()).then(list_changed);
        capabilities.prompts = (!t.prompts.is_empty()).then(list_changed);
        capabilities.resources = t.has_resources().then(|| {
            let mut resources = capabilities.resources.take().unwrap_or_default();
            resources.list_changed = Some(true);
            resources
        });
        if !self.completes_itself && !t.has_completions() {
            capabilities.completions = None;
        } else if capabilities.completions.is_none() {
            capabilities.completions = Some(Default::default());
        }
    }

    /// Adds `tools`, each replacing the tool of the same name if there is one. The change to
    /// announce, if anything changed.
    pub fn add_tools(
        &self,
        tools: Vec<ToolEntry>,
        app_state: &AppState,
    ) -> Result<Option<Change>, BuildError> {
        check(&tools, &[], &[], app_state)?;
        Ok(self.change(|t| {
            if tools.is_empty() {
                return None;
            }
            let mut all = t.tools.clone();
            let mut relisted = false;
            for entry in tools {
                relisted |= upsert(
                    &mut all,
                    entry,
                    |e| e.tool.name.as_str(),
                    |a, b| a.tool == b.tool,
                );
            }
            let versions = Versions {
                tools: t.versions.tools + u64::from(relisted),
                ..t.versions
            };
            let next = Tables::new(all, t.prompts.clone(), t.resources.clone(), versions);
            Some((next, relisted.then_some(Change::ToolsListChanged)))
        }))
    }

    pub fn remove_tool(&self, name: &str) -> Option<Change> {
        self.change(|t| {
            let all = without(&t.tools, |e| e.tool.name == name)?;
            let versions = Versions {
                tools: t.versions.tools + 1,
                ..t.versions
            };
            let next = Tables::new(all, t.prompts.clone(), t.resources.clone(), versions);
            Some((next, Some(Change::ToolsListChanged)))
        })
    }

    pub fn add_prompts(
        &self,
        prompts: Vec<PromptEntry>,
        app_state: &AppState,
    ) -> Result<Option<Change>, BuildError> {
        check(&[], &prompts, &[], app_state)?;
        Ok(self.change(|t| {
            if prompts.is_empty() {
                return None;
            }
            let mut all = t.prompts.clone();
            let mut relisted = false;
            for entry in prompts {
                relisted |= upsert(
                    &mut all,
                    entry,
                    |e| e.prompt.name.as_str(),
                    |a, b| a.prompt == b.prompt,
                );
            }
            let versions = Versions {
                prompts: t.versions.prompts + u64::from(relisted),
                ..t.versions
            };
            let next = Tables::new(t.tools.clone(), all, t.resources.clone(), versions);
            Some((next, relisted.then_some(Change::PromptsListChanged)))
        }))
    }

    pub fn remove_prompt(&self, name: &str) -> Option<Change> {
        self.change(|t| {
            let all = without(&t.prompts, |e| e.prompt.name == name)?;
            let versions = Versions {
                prompts: t.versions.prompts + 1,
                ..t.versions
            };
            let next = Tables::new(t.tools.clone(), all, t.resources.clone(), versions);
            Some((next, Some(Change::PromptsListChanged)))
        })
    }

    pub fn add_resources(
        &self,
        resources: Vec<ResourceEntry>,
        app_state: &AppState,
    ) -> Result<Option<Change>, BuildError> {
        check(&[], &[], &resources, app_state)?;
        Ok(self.change(|t| {
            if resources.is_empty() {
                return None;
            }
            let mut all = t.resources.clone();
            let mut relisted = false;
            for entry in resources {
                relisted |= upsert(&mut all, entry, ResourceEntry::uri, |a, b| {
                    a.listing == b.listing
                });
            }
            let versions = Versions {
                resources: t.versions.resources + u64::from(relisted),
                ..t.versions
            };
            let next = Tables::new(t.tools.clone(), t.prompts.clone(), all, versions);
            Some((next, relisted.then_some(Change::ResourcesListChanged)))
        }))
    }

    pub fn remove_resource(&self, uri: &str) -> Option<Change> {
        self.change(|t| {
            let all = without(&t.resources, |e| e.uri() == uri)?;
            let versions = Versions {
                resources: t.versions.resources + 1,
                ..t.versions
            };
            let next = Tables::new(t.tools.clone(), t.prompts.clone(), all, versions);
            Some((next, Some(Change::ResourcesListChanged)))
        })
    }

    /// Replaces every tool, prompt and resource at once, as a proxy does when its remote's
    /// listing changed; the changes to announce, one per kind whose listing changed.
    pub fn replace(
        &self,
        tools: Vec<ToolEntry>,
        prompts: Vec<PromptEntry>,
        resources: Vec<ResourceEntry>,
        app_state: &AppState,
    ) -> Result<Vec<Change>, BuildError> {
        check(&tools, &prompts, &resources, app_state)?;
        let mut changes = Vec::new();
        self.change(|t| {
            let tools_changed = !alike(&t.tools, &tools, |a, b| a.tool == b.tool);
            let prompts_changed = !alike(&t.prompts, &prompts, |a, b| a.prompt == b.prompt);
            let resources_changed = !alike(&t.resources, &resources, |a, b| a.listing == b.listing);
            let versions = Versions {
                tools: t.versions.tools + u64::from(tools_changed),
                prompts: t.versions.prompts + u64::from(prompts_changed),
                resources: t.versions.resources + u64::from(resources_changed),
            };
            for (changed, change) in [
                (tools_changed, Change::ToolsListChanged),
                (prompts_changed, Change::PromptsListChanged),
                (resources_changed, Change::ResourcesListChanged),
            ] {
                if changed {
                    changes.push(change);
                }
            }
            // Swapped even when listed alike: what runs may have changed.
            Some((Tables::new(tools, prompts, resources, versions), None))
        });
        Ok(changes)
    }

    /// Builds the next tables from the current ones with `next` (which says `None` when it
    /// changes nothing) and swaps them in; the change to announce, if the listing changed.
    fn change(
        &self,
        next: impl FnOnce(&Tables) -> Option<(Tables, Option<Change>)>,
    ) -> Option<Change> {
        let _writer = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        let current = self.read().clone();
        // Built outside the swap, so readers wait only for the pointer to change.
        let (tables, change) = next(&current)?;
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(tables);
        change
    }
}

/// Replaces the entry `key` names in place (a replaced tool keeps its place in the listing),
/// or appends it; whether the listing changed. A replacement listed exactly as the entry it
/// replaces (same name, description, schema…) changes only what runs: clients have nothing to
/// list again, and their cursors stay good.
fn upsert<E>(
    all: &mut Vec<E>,
    entry: E,
    key: impl Fn(&E) -> &str,
    listed_alike: impl Fn(&E, &E) -> bool,
) -> bool {
    match all.iter().position(|e| key(e) == key(&entry)) {
        Some(i) => {
            let relisted = !listed_alike(&all[i], &entry);
            all[i] = entry;
            relisted
        }
        None => {
            all.push(entry);
            true
        }
    }
}

/// Whether two listings list the same entries in the same order.
fn alike<E>(old: &[E], new: &[E], listed_alike: impl Fn(&E, &E) -> bool) -> bool {
    old.len() == new.len() && old.iter().zip(new).all(|(a, b)| listed_alike(a, b))
}

/// `all` without the entry `hit` finds; `None` when there is none.
fn without<E: Clone>(all: &[E], hit: impl Fn(&E) -> bool) -> Option<Vec<E>> {
    let at = all.iter().position(hit)?;
    let mut rest = all.to_vec();
    rest.remove(at);
    Some(rest)
}

/// What `McpServer::build` checks of its registrations, for entries registered at build or
/// added later: unique names within the batch, every registration usable, every shared state
/// a function takes registered.
pub(crate) fn check(
    tools: &[ToolEntry],
    prompts: &[PromptEntry],
    resources: &[ResourceEntry],
    app_state: &AppState,
) -> Result<(), BuildError> {
    unique("tool", tools.iter().map(|e| e.tool.name.as_str()))?;
    unique("prompt", prompts.iter().map(|e| e.prompt.name.as_str()))?;
    unique("resource", resources.iter().map(ResourceEntry::uri))?;
    let invalid = tools
        .iter()
        .map(|e| ("tool", e.tool.name.as_str(), &e.invalid))
        .chain(
            prompts
                .iter()
                .map(|e| ("prompt", e.prompt.name.as_str(), &e.invalid)),
        )
        .chain(resources.iter().map(|e| ("resource", e.uri(), &e.invalid)));
    for (kind, name, invalid) in invalid {
        if let Some(reason) = invalid {
            return Err(BuildError::InvalidRegistration {
                kind,
                name: name.to_owned(),
                reason: reason.clone(),
            });
        }
    }
    let needs = tools
        .iter()
        .map(|e| ("tool", e.tool.name.as_str(), &e.requires))
        .chain(
            prompts
                .iter()
                .map(|e| ("prompt", e.prompt.name.as_str(), &e.requires)),
        )
        .chain(resources.iter().map(|e| ("resource", e.uri(), &e.requires)));
    for (kind, name, requires) in needs {
        if let Some(missing) = requires.iter().find(|key| !app_state.contains(key)) {
            return Err(BuildError::MissingState {
                kind,
                name: name.to_owned(),
                state: missing.name,
            });
        }
    }
    Ok(())
}

fn unique<'a>(kind: &'static str, names: impl Iterator<Item = &'a str>) -> Result<(), BuildError> {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
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
