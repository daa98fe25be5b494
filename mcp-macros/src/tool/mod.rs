//! `#[mcp::tool]`: parse → check → generate.

mod check;
mod generate;
mod model;
mod parse;

use proc_macro2::TokenStream;

use crate::common::errors::Errors;
use crate::common::registration::{TOOL, finish, parse_fn};

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = match parse_fn(item, &TOOL) {
        Ok(item) => item,
        Err(tokens) => return tokens,
    };
    let mut errors = Errors::default();
    let tool = parse::parse(attr, item, &mut errors);
    check::check(&tool, &mut errors);
    let plan = crate::common::resolve::plan(&tool.params, &mut errors);
    finish(
        &errors,
        || generate::generate(&tool, &plan),
        || generate::fallback(&tool),
    )
}
