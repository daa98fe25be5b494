//! `#[derive(mcp::Elicitation)]`: parse → check → generate. On a struct, a form; on a fieldless
//! enum, a choice that forms can use as a field.

mod generate;
mod model;
mod parse;
mod rename;

use proc_macro2::TokenStream;

use crate::common::errors::Errors;

pub fn expand(input: TokenStream) -> TokenStream {
    let input: syn::DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors = Errors::default();
    let model = parse::parse(&input, &mut errors);
    match model {
        Some(model) if errors.is_empty() => generate::generate(&model),
        _ => errors.to_compile_errors(),
    }
}
