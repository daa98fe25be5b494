//! A prompt function as the checks and the generator see it.

use proc_macro2::Span;
use syn::{ItemFn, Type};

use crate::common::describe::Describe;
use crate::common::docs::Docs;
use crate::common::params::Param;
use crate::common::paths::Paths;
use crate::common::policy::Policy;
use crate::common::resolve::Plan;

/// `#[mcp::prompt]` on an `async fn`.
pub struct PromptFn {
    /// The function as written, minus the attributes consumed from its parameters.
    pub item: ItemFn,
    pub name: (String, Span),
    pub title: Option<String>,
    pub description: Docs,
    /// `icons` and `meta`.
    pub describe: Describe,
    /// `scopes` (the only policy key a prompt takes).
    pub policy: Policy,
    pub params: Vec<Param>,
    /// The order its Resolve parameters are asked in.
    pub plan: Plan,
    pub ret: Type,
    /// Where generated code finds the runtime.
    pub paths: Paths,
}
