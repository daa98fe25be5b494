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

// The macros carry no doc comments of their own: rustdoc appends a re-exported item's docs to
// the re-export's, and the facade's (`mcp::tool` and the rest) are the documentation.

#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(attr.into(), item.into()).into()
}

#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    prompt::expand(attr.into(), item.into()).into()
}

#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    resource::expand(attr.into(), item.into()).into()
}

#[proc_macro_derive(Elicitation, attributes(elicitation))]
pub fn derive_elicitation(input: TokenStream) -> TokenStream {
    elicitation::expand(input.into()).into()
}
