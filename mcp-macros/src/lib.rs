//! Procedural macros of the `mcp` framework. Use them through the `mcp` facade crate, where
//! each is documented with examples and what it expands to.
//!
//! Every macro follows the same pipeline, one module per step: parse the item into a model,
//! check the model (collecting every error, each spanned on the offending tokens), generate
//! from the model. The user's function is re-emitted as written; generated code names the
//! runtime only through `::mcp::__private`.

mod common;
mod elicitation;
mod prompt;
mod resource;
mod tool;

use proc_macro::TokenStream;

/// Turns an `async fn` into an MCP tool. Documented on `mcp::tool`.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(attr.into(), item.into()).into()
}

/// Turns an `async fn` into an MCP prompt. Documented on `mcp::prompt`.
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    prompt::expand(attr.into(), item.into()).into()
}

/// Turns an `async fn` into an MCP resource or resource template. Documented on
/// `mcp::resource`.
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    resource::expand(attr.into(), item.into()).into()
}

/// Derives a form question (struct) or a choice (fieldless enum). Documented on
/// `mcp::Elicitation`.
#[proc_macro_derive(Elicitation, attributes(elicitation))]
pub fn derive_elicitation(input: TokenStream) -> TokenStream {
    elicitation::expand(input.into()).into()
}
