//! A resource function as the checks and the generator see it.

use proc_macro2::Span;
use syn::{ItemFn, LitInt, LitStr, Type};

use crate::common::describe::Describe;
use crate::common::docs::Docs;
use crate::common::params::Param;
use crate::common::paths::Paths;
use crate::common::policy::Policy;
use crate::common::resolve::Plan;

/// `#[mcp::resource("…")]` on an `async fn`.
pub struct ResourceFn {
    /// The function as written, minus the attributes consumed from its parameters.
    pub item: ItemFn,
    /// The URI or URI template, as written (empty when the attribute has none).
    pub uri: LitStr,
    /// What the URI is as a template.
    pub template: Template,
    pub name: String,
    pub title: Option<String>,
    pub description: Docs,
    pub mime_type: Option<String>,
    /// `icons` and `meta`.
    pub describe: Describe,
    /// `annotations(…)`.
    pub annotations: Option<AnnotationsSpec>,
    /// `size = …` in bytes, and where it is written.
    pub size: Option<(u64, LitInt)>,
    /// `cache(ttl_ms = …, scope = "…")`.
    pub cache: Option<CacheSpec>,
    /// `scopes` (the only policy key a resource takes).
    pub policy: Policy,
    pub params: Vec<Param>,
    /// The order its Resolve parameters are asked in.
    pub plan: Plan,
    pub ret: Type,
    /// Where generated code finds the runtime.
    pub paths: Paths,
}

/// `annotations(audience = [...], priority = …, last_modified = "…")`, as written.
pub struct AnnotationsSpec {
    pub audience: Option<Vec<LitStr>>,
    /// The value and where it is written.
    pub priority: Option<(f64, Span)>,
    pub last_modified: Option<LitStr>,
}

/// `cache(ttl_ms = …, scope = "public" | "private")`, as written.
pub struct CacheSpec {
    /// Where `cache` is written.
    pub span: Span,
    pub ttl_ms: Option<u64>,
    pub scope: Option<LitStr>,
}

/// The URI as a template.
pub enum Template {
    /// The attribute has no URI (a syntax error, already reported).
    Missing,
    /// Not in the grammar the runtime's matcher accepts, and why.
    Invalid(&'static str),
    /// Its variables (none for a static URI).
    Variables(Vec<String>),
}

impl ResourceFn {
    /// The template's variables (none for a static URI, or one that is not a valid template).
    pub fn variables(&self) -> &[String] {
        match &self.template {
            Template::Variables(variables) => variables,
            Template::Missing | Template::Invalid(_) => &[],
        }
    }

    /// A plain URI, not a template.
    pub fn is_static(&self) -> bool {
        self.variables().is_empty()
    }

    /// Whether `param` is bound to a template variable (by its name, like a route parameter).
    pub fn is_variable(&self, param: &Param) -> bool {
        self.variables().contains(&param.wire_name())
    }
}
