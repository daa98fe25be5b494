//! A tool function as the checks and the generator see it.

use proc_macro2::Span;
use syn::{ItemFn, Type};

use crate::common::describe::Describe;
use crate::common::docs::Docs;
use crate::common::params::Param;
use crate::common::paths::Paths;
use crate::common::resolve::Plan;

/// `#[mcp::tool]` on an `async fn`.
pub struct ToolFn {
    /// The function as written, minus the attributes the macro consumed from its parameters.
    pub item: ItemFn,
    /// The name clients call it by, and where it came from.
    pub name: (String, Span),
    pub title: Option<String>,
    pub description: Docs,
    /// `icons` and `meta`.
    pub describe: Describe,
    pub hints: Hints,
    pub params: Vec<Param>,
    /// The order its Resolve parameters are asked in.
    pub plan: Plan,
    /// The declared return type (`()` when there is none).
    pub ret: Type,
    /// Where generated code finds the runtime.
    pub paths: Paths,
}

/// The annotations of `tools/list`.
#[derive(Default)]
pub struct Hints {
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}
