//! `#[mcp::prompt]`: parse → model → check → generate.

mod check;
mod generate;
mod model;
mod parse;

use proc_macro2::TokenStream;

use crate::common::errors::Errors;
use crate::common::registration::{PROMPT, finish, parse_fn};

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::new();
    let Some(function) = parse_fn(item.clone(), &PROMPT, &mut errors) else {
        return finish(errors, TokenStream::new, || item);
    };
    let prompt = parse::parse(attr, function, &mut errors);
    check::check(&prompt, &mut errors);
    finish(
        errors,
        || generate::generate(&prompt),
        || generate::fallback(&prompt),
    )
}
