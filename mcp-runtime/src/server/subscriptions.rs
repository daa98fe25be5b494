//! 2025-11-25 `resources/subscribe` and `resources/unsubscribe`: bounded per session, and only
//! for resources the server has.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::value::RawValue;

use crate::protocol::{
    McpError, Resource, ResourceTemplate, SubscribeParams, decode_params, methods,
};

use super::Server;
use super::connection::Connection;
use super::registry::UriTemplate;

/// Says whether a URI names a resource of the server.
pub(super) type ResourceExists = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// What fixed listings say exists: a listed URI, or one a listed template matches. `None`
/// when a template cannot be read, since a subscription must not be refused for a resource
/// the server has.
pub(super) fn listed(
    resources: &[Resource],
    templates: &[ResourceTemplate],
) -> Option<ResourceExists> {
    let exact: HashSet<String> = resources.iter().map(|r| r.uri.clone()).collect();
    let patterns = templates
        .iter()
        .map(|t| UriTemplate::parse(&t.uri_template).ok())
        .collect::<Option<Vec<_>>>()?;
    Some(Arc::new(move |uri: &str| {
        exact.contains(uri) || patterns.iter().any(|t| t.matches(uri).is_some())
    }))
}

/// The longest URI a 2025-11-25 `resources/subscribe` may name.
pub const MAX_SUBSCRIBED_URI: usize = 4096;

impl Server {
    /// Whether `uri` may be subscribed to: a resource the server has, or any URI when that is
    /// unknown.
    pub(super) fn resource_exists(&self, uri: &str) -> bool {
        self.inner
            .resource_exists
            .as_ref()
            .is_none_or(|exists| exists(uri))
    }

    /// Subscribes the connection to a resource, or unsubscribes it (`method` says which).
    pub(super) fn set_subscription(
        &self,
        method: &str,
        params: Option<&RawValue>,
        connection: &Connection,
    ) -> Result<(), McpError> {
        let p: SubscribeParams = decode_params(params)?;
        if method != methods::RESOURCES_SUBSCRIBE {
            connection.unsubscribe(&p.uri);
            return Ok(());
        }
        if p.uri.len() > MAX_SUBSCRIBED_URI {
            return Err(McpError::invalid_params(format!(
                "The URI is longer than the {MAX_SUBSCRIBED_URI} bytes a subscription may name"
            )));
        }
        if !self.resource_exists(&p.uri) {
            return Err(McpError::legacy_resource_not_found(&p.uri));
        }
        connection.subscribe(&p.uri)
    }
}
