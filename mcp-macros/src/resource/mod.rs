//! `#[mcp::resource("uri")]`: parse → model → check → generate.

mod check;
mod generate;
mod model;
mod parse;
mod template;

use proc_macro2::TokenStream;

use crate::common::errors::Errors;
use crate::common::registration::{RESOURCE, finish, parse_fn};

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::new();
    let Some(function) = parse_fn(item.clone(), &RESOURCE, &mut errors) else {
        return finish(errors, TokenStream::new, || item);
    };
    let resource = parse::parse(attr, function, &mut errors);
    check::check(&resource, &mut errors);
    finish(
        errors,
        || generate::generate(&resource),
        || generate::fallback(&resource),
    )
}
