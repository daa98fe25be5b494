//! `#[mcp::resource("uri")]`: parse → check → generate.

mod check;
mod generate;
mod model;
mod parse;
mod template;

use proc_macro2::TokenStream;
use quote::quote;

use crate::common::errors::Errors;
use crate::common::registration::{RESOURCE, finish, parse_fn};

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = match parse_fn(item, &RESOURCE) {
        Ok(item) => item,
        Err(tokens) => return tokens,
    };
    let mut errors = Errors::default();
    let Some(resource) = parse::parse(attr, item.clone(), &mut errors) else {
        let compile_errors = errors.to_compile_errors();
        return quote!(#compile_errors #item);
    };
    check::check(&resource, &mut errors);
    let plan = crate::common::resolve::plan(&resource.params, &mut errors);
    finish(
        &errors,
        || generate::generate(&resource, &plan),
        || generate::fallback(&resource),
    )
}
