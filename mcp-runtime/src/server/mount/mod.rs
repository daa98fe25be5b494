//! Servers mounted in an `McpServer` ([`McpServer::mount`](super::McpServer::mount)): each
//! keeps its own registry, shared state, request-state sealing and tasks, and its parent
//! routes to it the requests that name its tools, prompts, resources, tasks (`tasks`: by the
//! prefix of the task id) or extension methods, and lists what it has beside its own.
//!
//! A routed request goes through the child's whole pipeline (gate, state boundary, handler),
//! with the same connection, caller and notification sink: a `requestState` the child mints is
//! sealed with the child's keys for the child's audience, so a sibling (or the parent) cannot
//! open it.

mod bus;
mod listing;
mod prefix;
mod route;
mod tasks;

use std::collections::HashSet;
use std::sync::Arc;

use crate::protocol::{ListChangedCapability, ServerCapabilities};

use super::registry::LiveTables;
use super::{BuildError, McpServer, Server, ServerBuilder};

pub(crate) use listing::install;
pub(crate) use prefix::Prefix;

/// One mounted server, built, and how its names read in its parent.
#[derive(Clone)]
pub(crate) struct Mount {
    pub prefix: Prefix,
    pub server: Server,
}

/// Builds each child to publish on the parent's bus under its prefix and to answer as the
/// endpoint's server, and checks that the prefixes and the children's names tell them apart.
pub(crate) fn build(
    parent: &ServerBuilder,
    children: Vec<(String, McpServer)>,
) -> Result<Arc<[Mount]>, BuildError> {
    let (parent_name, parent_bus) = (&parent.info.name, &parent.bus);
    // Mounted in a mounted server, a child still answers as the outermost one.
    let endpoint = parent
        .answering_as
        .clone()
        .unwrap_or_else(|| Arc::new(parent.info.clone()));
    let mut prefixes = HashSet::new();
    // The default sealing audience is the server's name: two children of one name sharing
    // keys could open each other's requestState.
    let mut names = HashSet::from([parent_name.to_owned()]);
    let mut mounts = Vec::with_capacity(children.len());
    for (prefix, child) in children {
        let prefix = Prefix::new(&prefix)?;
        if !prefixes.insert(prefix.clone()) {
            return Err(BuildError::InvalidMount {
                prefix: prefix.as_str().to_owned(),
                reason: "two servers are mounted under it".to_owned(),
            });
        }
        let bus = bus::PrefixedBus::new(parent_bus.clone(), prefix.clone());
        let server = child
            .notification_bus(bus)
            .answering_as(endpoint.clone())
            .build()?;
        if !names.insert(server.info().name.clone()) {
            return Err(BuildError::InvalidMount {
                prefix: prefix.as_str().to_owned(),
                reason: format!(
                    "its server is named `{}` like its parent or a sibling; the name is the \
                     audience its requestState is sealed for, so each must have its own",
                    server.info().name
                ),
            });
        }
        mounts.push(Mount { prefix, server });
    }
    Ok(mounts.into())
}

/// Refuses a mount whose names collide: two tools, prompts, resources (or templates) or
/// extension methods that would read the same in the parent. The tasks extension's methods
/// are the exception: every server serving tasks serves them, and each request goes to the
/// server whose prefix its task id carries.
pub(crate) fn check_clashes(parent: &Server) -> Result<(), BuildError> {
    let (live, mounts) = (parent.inner.live.as_deref(), &*parent.inner.mounts);
    listing::unique::<listing::Tools>(live, mounts)?;
    listing::unique::<listing::Prompts>(live, mounts)?;
    listing::unique::<listing::Resources>(live, mounts)?;
    listing::unique::<listing::Templates>(live, mounts)?;
    let mut methods: HashSet<&str> = parent.inner.extensions.method_names().collect();
    for mount in mounts {
        for method in mount.server.extension_methods() {
            if !methods.insert(method) && !tasks::TASK_METHODS.contains(&method) {
                return Err(BuildError::MountClash {
                    kind: "extension method",
                    name: method.to_owned(),
                });
            }
        }
    }
    Ok(())
}

impl Server {
    fn mounts(&self) -> &[Mount] {
        &self.inner.mounts
    }

    fn live(&self) -> Option<&LiveTables> {
        self.inner.live.as_deref()
    }

    /// Every extension method it serves, its mounted servers' included.
    fn extension_methods(&self) -> Vec<&str> {
        let mut methods: Vec<&str> = self.inner.extensions.method_names().collect();
        for mount in self.mounts() {
            methods.extend(mount.server.extension_methods());
        }
        methods
    }

    /// Whether it answers `tools/call` of `name`, itself or through a mount.
    fn serves_tool(&self, name: &str) -> bool {
        self.live().is_some_and(|l| l.read().has_tool(name)) || self.mounted_tool(name).is_some()
    }

    fn serves_prompt(&self, name: &str) -> bool {
        self.live().is_some_and(|l| l.read().has_prompt(name))
            || self.mounted_prompt(name).is_some()
    }

    /// Whether `uri` names one of its templates as listed, itself or through a mount.
    fn serves_template(&self, uri: &str) -> bool {
        self.live().is_some_and(|l| l.read().has_template(uri))
            || self.mounted_template(uri).is_some()
    }

    fn serves_extension_method(&self, method: &str) -> bool {
        self.inner.extensions.method(method).is_some() || self.mounted_method(method).is_some()
    }

    /// The mount serving tool `name` (named in the parent), with the name the child knows.
    fn mounted_tool<'a>(&self, name: &'a str) -> Option<(&Mount, &'a str)> {
        self.mounts().iter().find_map(|m| {
            let inner = m.prefix.strip_name(name)?;
            m.server.serves_tool(inner).then_some((m, inner))
        })
    }

    fn mounted_prompt<'a>(&self, name: &'a str) -> Option<(&Mount, &'a str)> {
        self.mounts().iter().find_map(|m| {
            let inner = m.prefix.strip_name(name)?;
            m.server.serves_prompt(inner).then_some((m, inner))
        })
    }

    fn mounted_resource<'a>(&self, uri: &'a str) -> Option<(&Mount, &'a str)> {
        self.mounts().iter().find_map(|m| {
            let inner = m.prefix.strip_uri(uri)?;
            m.server
                .resource_exists_strictly(inner)
                .then_some((m, inner))
        })
    }

    fn mounted_template<'a>(&self, uri: &'a str) -> Option<(&Mount, &'a str)> {
        self.mounts().iter().find_map(|m| {
            let inner = m.prefix.strip_uri(uri)?;
            m.server.serves_template(inner).then_some((m, inner))
        })
    }

    fn mounted_method(&self, method: &str) -> Option<&Mount> {
        self.mounts()
            .iter()
            .find(|m| m.server.serves_extension_method(method))
    }

    /// The params field a mounted server's extension routes `method` by, if any.
    #[cfg(feature = "http")]
    pub(in crate::server) fn mounted_routing_param(&self, method: &str) -> Option<&str> {
        self.mounted_method(method)?.server.routing_param(method)
    }

    /// Whether `uri` is a resource of its own or of a mount, never "unknown, so yes": routing
    /// must not send a URI to a child that does not have it.
    fn resource_exists_strictly(&self, uri: &str) -> bool {
        self.live().is_some_and(|l| l.read().resource_exists(uri))
            || self.mounted_resource(uri).is_some()
    }

    /// What its mounted servers add to what it advertises: each capability any of them has,
    /// and their extensions.
    pub(super) fn advertise_mounts(&self, capabilities: &mut ServerCapabilities) {
        for mount in self.mounts() {
            let child = mount.server.capabilities();
            let listed = |mine: &mut Option<ListChangedCapability>, theirs| {
                if mine.is_none() {
                    *mine = theirs;
                }
            };
            listed(&mut capabilities.tools, child.tools);
            listed(&mut capabilities.prompts, child.prompts);
            match (&mut capabilities.resources, child.resources) {
                (None, theirs) => capabilities.resources = theirs,
                (Some(mine), Some(theirs)) => {
                    mine.subscribe = mine.subscribe.or(theirs.subscribe);
                    mine.list_changed = mine.list_changed.or(theirs.list_changed);
                }
                (Some(_), None) => {}
            }
            if capabilities.completions.is_none() {
                capabilities.completions = child.completions;
            }
            if capabilities.logging.is_none() {
                capabilities.logging = child.logging;
            }
            if let Some(theirs) = child.extensions {
                let mine = capabilities.extensions.get_or_insert_with(Default::default);
                for (id, settings) in theirs {
                    mine.entry(id).or_insert(settings);
                }
            }
        }
    }
}
