//! A resource function as the generator sees it.

use syn::{ItemFn, LitStr, Type};

use crate::common::docs::Docs;
use crate::common::params::Param;

/// `#[mcp::resource("…")]` on an `async fn`.
pub struct ResourceFn {
    /// The function as written, minus the attributes consumed from its parameters.
    pub item: ItemFn,
    /// The URI or URI template, as written.
    pub uri: LitStr,
    /// The template's variables (empty for a static URI).
    pub variables: Vec<String>,
    /// Whether the URI parsed as a template (an invalid one was already reported).
    pub template_valid: bool,
    pub name: String,
    pub title: Option<String>,
    pub description: Docs,
    pub mime_type: Option<String>,
    pub params: Vec<Param>,
    pub ret: Type,
}

impl ResourceFn {
    /// A plain URI, not a template.
    pub fn is_static(&self) -> bool {
        self.variables.is_empty()
    }
}
