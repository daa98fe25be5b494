//! A tool function as the generator sees it.

use proc_macro2::Span;
use syn::{Attribute, Expr, Ident, ItemFn, Type};

use crate::common::docs::Docs;
use crate::common::types::ResolveKind;

/// `#[mcp::tool]` on an `async fn`.
pub struct ToolFn {
    /// The function as written, minus the attributes the macro consumed from its parameters.
    pub item: ItemFn,
    /// The name clients call it by, and where it came from.
    pub name: (String, Span),
    pub title: Option<String>,
    pub description: Docs,
    pub hints: Hints,
    pub params: Vec<Param>,
    /// The declared return type (`()` when there is none).
    pub ret: Type,
}

/// The annotations of `tools/list`.
#[derive(Default)]
pub struct Hints {
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

/// One parameter of the function.
pub struct Param {
    pub ident: Ident,
    pub ty: Type,
    pub kind: ParamKind,
}

/// What fills a parameter.
pub enum ParamKind {
    /// An argument from the client, described in the input schema.
    Argument {
        /// Its name on the wire.
        wire_name: String,
        /// Its doc comments, carried to the schema.
        docs: Vec<Attribute>,
        /// Used when the client leaves it out.
        default: Option<ArgDefault>,
    },
    /// The request context.
    Context,
    /// Asked of the client by the runtime.
    Resolve(ResolveKind),
}

/// `#[mcp(default)]` or `#[mcp(default = expr)]`.
pub enum ArgDefault {
    Trait,
    Expr(Box<Expr>),
}
