//! `#[derive(mcp::Elicitation)]`: parse → model → check → generate. On a struct, a form; on a
//! fieldless enum, a choice that forms can use as a field.

mod check;
mod generate;
mod model;
mod parse;
mod rename;

use proc_macro2::TokenStream;

use crate::common::errors::Errors;
use crate::common::registration::finish;

pub fn expand(input: TokenStream) -> TokenStream {
    let mut errors = Errors::new();
    let input: syn::DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(e) => {
            errors.push(e);
            return finish(errors, TokenStream::new, TokenStream::new);
        }
    };
    let model = parse::parse(&input, &mut errors);
    check::check(&model, &mut errors);
    finish(
        errors,
        || generate::generate(&model),
        || generate::fallback(&model),
    )
}
