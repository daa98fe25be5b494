//! A prompt function as the generator sees it.

use proc_macro2::Span;
use syn::{ItemFn, Type};

use crate::common::docs::Docs;
use crate::common::params::Param;

/// `#[mcp::prompt]` on an `async fn`.
pub struct PromptFn {
    /// The function as written, minus the attributes consumed from its parameters.
    pub item: ItemFn,
    pub name: (String, Span),
    pub title: Option<String>,
    pub description: Docs,
    pub params: Vec<Param>,
    pub ret: Type,
}
