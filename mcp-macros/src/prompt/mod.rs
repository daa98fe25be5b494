//! `#[mcp::prompt]`: parse → check → generate.

mod generate;
mod model;
mod parse;

use proc_macro2::TokenStream;

use crate::common::errors::Errors;
use crate::common::registration::{PROMPT, finish, parse_fn};
use crate::common::signature::{check_resolve, check_signature};

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = match parse_fn(item, &PROMPT) {
        Ok(item) => item,
        Err(tokens) => return tokens,
    };
    let mut errors = Errors::default();
    let prompt = parse::parse(attr, item, &mut errors);
    check_signature(&prompt.item.sig, &prompt.params, "prompt", &mut errors);
    check_resolve(&prompt.params, &prompt.ret, &mut errors);
    if prompt.name.0.is_empty() {
        errors.push(syn::Error::new(
            prompt.name.1,
            "a prompt name cannot be empty",
        ));
    }
    let plan = crate::common::resolve::plan(&prompt.params, &mut errors);
    finish(
        &errors,
        || generate::generate(&prompt, &plan),
        || generate::fallback(&prompt),
    )
}
