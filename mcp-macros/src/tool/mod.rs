//! `#[mcp::tool]`: parse → model → check → generate.

mod check;
mod generate;
mod model;
mod parse;

use proc_macro2::TokenStream;

use crate::common::errors::Errors;
use crate::common::registration::{TOOL, finish, parse_fn};

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::new();
    let Some(function) = parse_fn(item.clone(), &TOOL, &mut errors) else {
        return finish(errors, TokenStream::new, || item);
    };
    let tool = parse::parse(attr, function, &mut errors);
    check::check(&tool, &mut errors);
    finish(
        errors,
        || generate::generate(&tool),
        || generate::fallback(&tool),
    )
}
